/*
Copyright 2026 The csi-resizer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// DriverOptions choose the CSI driver a test runs and its switches. Two
// drivers serve: csi-mock, the mock of Kubernetes' own e2e (built from
// test/tools/cmd/csi-mock), and, with Scripted, the project's scripted
// driver (test/csidriver, served by test/cmd/csi-test-driver).
type DriverOptions struct {
	Name string
	// Scripted runs csi-test-driver (Tools.TestDriver) instead of
	// csi-mock: its volumes are Volumes, kept in a state file that
	// outlives restarts, and it can inject random faults and latency.
	Scripted bool
	// Volumes are the scripted driver's initial volumes (ID -> bytes).
	Volumes map[string]int64
	// NodeExpansionRequired: the driver answers node_expansion_required.
	NodeExpansionRequired bool
	// NodeOnly: no controller EXPAND_VOLUME (the scripted driver's
	// NodeExpandVolume then grows the volume itself).
	NodeOnly bool
	// OfflineOnly: OFFLINE expansion only (csi-mock).
	OfflineOnly bool
	// Modify: the driver advertises the controller capability
	// MODIFY_VOLUME; csi-mock without it cannot modify volumes.
	Modify bool
	// AllocationUnit, when positive, makes the driver answer
	// ControllerExpandVolume with the size rounded up to a multiple of it.
	AllocationUnit int64

	// The scripted driver's own switches. FailRate and HangRate are the
	// shares of ControllerExpandVolume and ControllerModifyVolume calls that
	// fail at once or hang for HangFor; Seed seeds them (each start of the
	// driver adds its number, so a restart does not replay the same
	// faults); no fault is injected after FaultsUntil, when set.
	FailRate, HangRate float64
	HangFor            time.Duration
	Seed               uint64
	FaultsUntil        time.Time
	// Latency delays every call; it honours the caller's deadline.
	Latency time.Duration
	// NodeID is what NodeGetInfo answers kubelet; empty means
	// csidriver.DefaultNodeID.
	NodeID string
	// NodeExpand: the driver advertises the node capability EXPAND_VOLUME
	// and grows file systems in NodeExpandVolume.
	NodeExpand bool
}

// Driver is a CSI driver process (csi-mock, or the scripted driver) on a
// unix socket, with a call log of every ControllerExpandVolume,
// ControllerModifyVolume and node call, and answers a test scripts.
type Driver struct {
	DriverOptions
	Socket string
	// CallLog, FaultFile and StateFile (the scripted driver's volumes) are
	// the driver's files; ReceivedLog has the calls as they arrive
	// (csi-mock only, see Received).
	CallLog, FaultFile, StateFile, ReceivedLog string
	bin, dir                                   string
	// scripted is DriverOptions.Scripted at the start: a test that changes
	// the options before a restart does not change the driver.
	scripted bool

	mu      sync.Mutex
	proc    *Process
	runs    []Lifetime
	scripts int64 // Script calls so far
}

// StartDriver starts the driver o chooses in dir and waits for its socket.
func StartDriver(ctx context.Context, tools Tools, dir string, o DriverOptions) (*Driver, error) {
	d := &Driver{DriverOptions: o, dir: dir, bin: tools.CSIMock, scripted: o.Scripted,
		Socket:      filepath.Join(dir, "csi.sock"),
		FaultFile:   filepath.Join(dir, "faults.json"),
		CallLog:     filepath.Join(dir, "calls.jsonl"),
		ReceivedLog: filepath.Join(dir, "received.jsonl"),
	}
	if o.Scripted {
		if tools.TestDriver == "" {
			return nil, errors.New("E2E_TEST_DRIVER must name the csi-test-driver binary (make test-e2e and make test-chaos build it)")
		}
		d.bin, d.ReceivedLog = tools.TestDriver, ""
		d.StateFile = filepath.Join(dir, "driver-state.json")
		if err := csidriver.WriteState(d.StateFile, o.Volumes); err != nil {
			return nil, err
		}
	}
	return d, d.Start(ctx)
}

// args are the command line of the driver's n-th start.
func (d *Driver) args(n int) []string {
	args := []string{"--endpoint=" + d.Socket, "--driver-name=" + d.Name, "--fault-file=" + d.FaultFile, "--call-log=" + d.CallLog}
	flag := func(on bool, f string) {
		if on {
			args = append(args, f)
		}
	}
	flag(d.NodeExpansionRequired, "--node-expansion-required")
	flag(d.Modify, "--modify")
	flag(d.AllocationUnit > 0, "--allocation-unit="+strconv.FormatInt(d.AllocationUnit, 10))
	if !d.scripted {
		flag(d.NodeOnly, "--disable-controller-expansion")
		flag(d.OfflineOnly, "--disable-online-expansion")
		return append(args, "--received-log="+d.ReceivedLog, "--v=5")
	}
	flag(d.NodeOnly, "--controller-expand=false")
	flag(d.NodeExpand, "--node-expand")
	flag(d.NodeID != "", "--node-id="+d.NodeID)
	flag(!d.FaultsUntil.IsZero(), "--faults-until="+d.FaultsUntil.Format(time.RFC3339Nano))
	return append(args, "--state-file="+d.StateFile,
		"--fail-rate="+strconv.FormatFloat(d.FailRate, 'f', -1, 64),
		"--hang-rate="+strconv.FormatFloat(d.HangRate, 'f', -1, 64),
		"--hang-for="+d.HangFor.String(), "--latency="+d.Latency.String(),
		"--seed="+strconv.FormatUint(d.Seed+uint64(n), 10), "--v=2")
}

// Start starts the driver (again) and waits for its socket.
func (d *Driver) Start(ctx context.Context) error {
	d.mu.Lock()
	n := len(d.runs) + 1
	name := filepath.Base(d.bin)
	// A killed driver leaves its socket behind: remove it, so that the
	// socket's appearance means the new process listens.
	_ = os.Remove(d.Socket)
	run := Lifetime{Name: fmt.Sprintf("%s-%d", name, n), Start: time.Now()}
	p, err := startProcess(nil, "", run.Name, d.Log(), d.bin, d.args(n)...)
	if err != nil {
		d.mu.Unlock()
		return err
	}
	run.Pid, run.Log = p.Pid(), p.Log
	d.proc = p
	d.runs = append(d.runs, run)
	d.mu.Unlock()
	return waitFor(ctx, 20*time.Millisecond, 30*time.Second, p, func(context.Context) bool {
		_, err := os.Stat(d.Socket)
		return err == nil
	})
}

// Restart kills the driver and starts it again. csi-mock keeps its volumes
// in memory, so they are lost; volumes created again get new ids.
func (d *Driver) Restart(ctx context.Context) error {
	d.Kill()
	return d.Start(ctx)
}

// Kill sends SIGKILL to the driver and waits for its end.
func (d *Driver) Kill() { d.end(EndedKilled, func(p *Process) { p.Kill() }) }

// Stop sends SIGTERM to the driver and waits for its end.
func (d *Driver) Stop() {
	d.end(EndedTerminated, func(p *Process) { _ = p.Stop(10 * time.Second) })
}

func (d *Driver) end(how string, stop func(*Process)) {
	d.mu.Lock()
	p, i := d.proc, len(d.runs)-1
	d.proc = nil
	d.mu.Unlock()
	if p == nil {
		return
	}
	stop(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.runs[i].End, d.runs[i].Ended = time.Now(), how
}

// Lifetimes returns every run of the driver so far.
func (d *Driver) Lifetimes() []Lifetime {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.runs)
}

// Log is the file the driver's output goes to.
func (d *Driver) Log() string { return filepath.Join(d.dir, filepath.Base(d.bin)+".log") }
