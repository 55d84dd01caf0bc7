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

	"google.golang.org/grpc/codes"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// TestDriverBinary is the csi-test-driver binary (test/cmd/csi-test-driver),
// named by E2E_TEST_DRIVER; `make test-chaos` builds it.
func TestDriverBinary() (string, error) {
	bin := os.Getenv("E2E_TEST_DRIVER")
	if bin == "" {
		return "", errors.New("E2E_TEST_DRIVER must name the csi-test-driver binary; run `make test-chaos`")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("missing binary: %w", err)
	}
	return bin, nil
}

// TestDriverOptions are the csi-test-driver switches.
type TestDriverOptions struct {
	Name string
	// NodeExpansionRequired: the driver answers node_expansion_required.
	NodeExpansionRequired bool
	// Modify: the driver advertises the controller capability MODIFY_VOLUME
	// (it serves ControllerModifyVolume either way).
	Modify bool
	// FailRate and HangRate are the shares of ControllerExpandVolume and
	// ControllerModifyVolume calls that fail at once or hang for HangFor;
	// Seed seeds them (each start of the driver adds its number, so a
	// restart does not replay the same faults); no fault is injected after
	// FaultsUntil, when set.
	FailRate, HangRate float64
	HangFor            time.Duration
	Seed               uint64
	FaultsUntil        time.Time
	// Latency delays every call; it honours the caller's deadline.
	Latency time.Duration
	// AllocationUnit, when positive, makes the driver allocate whole units
	// of that many bytes, and answer that larger capacity.
	AllocationUnit int64
	// NodeID is what the driver's NodeGetInfo answers kubelet; empty means
	// csidriver.DefaultNodeID.
	NodeID string
	// NodeExpand: the driver advertises the node capability EXPAND_VOLUME
	// and grows file systems in NodeExpandVolume.
	NodeExpand bool
	// NodeOnly: the driver does not advertise the controller capability
	// EXPAND_VOLUME; its NodeExpandVolume grows the volume itself.
	NodeOnly bool
}

// TestAnswer is a scripted answer of the driver (see TestDriver.Script).
type TestAnswer struct {
	// Method is the CSI method's name, such as csidriver.MethodNodeExpand;
	// empty means csidriver.MethodExpand.
	Method string
	// Code is the answer's gRPC code; codes.OK lets the call be served, and
	// only uses up the answer.
	Code codes.Code
	// Message is the error's message; empty means "scripted <code>".
	Message string
	// VolumeID, when set, keeps the answer for a call on that volume.
	VolumeID string
	// Delay is how long the call waits before it answers; the wait ends
	// early when the caller gives up.
	Delay time.Duration
}

// TestDriver is a csi-test-driver process on a unix socket whose volumes
// survive restarts, with a call log of every ControllerExpandVolume,
// ControllerModifyVolume and node call, and answers a test scripts.
type TestDriver struct {
	TestDriverOptions
	Socket, StateFile, CallLog, FaultFile string
	bin, dir                              string

	mu      sync.Mutex
	proc    *Process
	runs    []Lifetime
	scripts int64 // Script calls so far
}

// StartTestDriver writes the backend's initial volumes (ID -> bytes) and
// starts csi-test-driver in dir.
func StartTestDriver(ctx context.Context, bin, dir string, o TestDriverOptions, volumes map[string]int64) (*TestDriver, error) {
	d := &TestDriver{TestDriverOptions: o, bin: bin, dir: dir,
		Socket:    filepath.Join(dir, "csi.sock"),
		StateFile: filepath.Join(dir, "driver-state.json"),
		CallLog:   filepath.Join(dir, "driver-calls.jsonl"),
		FaultFile: filepath.Join(dir, "driver-faults.json"),
	}
	if err := csidriver.WriteState(d.StateFile, volumes); err != nil {
		return nil, err
	}
	return d, d.Start(ctx)
}

// Start starts the driver (again) and waits for its socket.
func (d *TestDriver) Start(ctx context.Context) error {
	d.mu.Lock()
	n := len(d.runs) + 1
	args := []string{"--endpoint=" + d.Socket, "--driver-name=" + d.Name,
		"--state-file=" + d.StateFile, "--call-log=" + d.CallLog, "--fault-file=" + d.FaultFile,
		"--fail-rate=" + strconv.FormatFloat(d.FailRate, 'f', -1, 64),
		"--hang-rate=" + strconv.FormatFloat(d.HangRate, 'f', -1, 64),
		"--hang-for=" + d.HangFor.String(), "--latency=" + d.Latency.String(),
		"--seed=" + strconv.FormatUint(d.Seed+uint64(n), 10), "--v=2"}
	if !d.FaultsUntil.IsZero() {
		args = append(args, "--faults-until="+d.FaultsUntil.Format(time.RFC3339Nano))
	}
	if d.NodeExpansionRequired {
		args = append(args, "--node-expansion-required")
	}
	if d.Modify {
		args = append(args, "--modify")
	}
	if d.AllocationUnit > 0 {
		args = append(args, "--allocation-unit="+strconv.FormatInt(d.AllocationUnit, 10))
	}
	if d.NodeID != "" {
		args = append(args, "--node-id="+d.NodeID)
	}
	if d.NodeExpand {
		args = append(args, "--node-expand")
	}
	if d.NodeOnly {
		args = append(args, "--controller-expand=false")
	}
	// A killed driver leaves its socket behind: remove it, so that the
	// socket's appearance means the new process listens.
	_ = os.Remove(d.Socket)
	run := Lifetime{Name: fmt.Sprintf("csi-test-driver-%d", n), Start: time.Now()}
	p, err := StartProcess(run.Name, filepath.Join(d.dir, "csi-test-driver.log"), d.bin, args...)
	if err != nil {
		d.mu.Unlock()
		return err
	}
	run.Pid, run.Log = p.Pid(), p.Log
	d.proc = p
	d.runs = append(d.runs, run)
	d.mu.Unlock()
	return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		if p.Exited() {
			return false, fmt.Errorf("csi-test-driver exited; see %s", p.Log)
		}
		_, err := os.Stat(d.Socket)
		return err == nil, nil
	})
}

// Kill sends SIGKILL to the driver and waits for its end.
func (d *TestDriver) Kill() { d.end(EndedKilled, func(p *Process) { p.Kill() }) }

// Stop sends SIGTERM to the driver and waits for its end.
func (d *TestDriver) Stop() {
	d.end(EndedTerminated, func(p *Process) { _ = p.Stop(10 * time.Second) })
}

func (d *TestDriver) end(how string, stop func(*Process)) {
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
func (d *TestDriver) Lifetimes() []Lifetime {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.runs)
}

// Calls returns the ControllerExpandVolume and ControllerModifyVolume calls
// of every run so far.
func (d *TestDriver) Calls() ([]csidriver.LoggedCall, error) {
	return d.loggedCalls(false)
}

// NodeCalls returns the NodeStageVolume, NodeUnstageVolume,
// NodePublishVolume, NodeUnpublishVolume and NodeExpandVolume calls of every
// run so far, failed ones included; LoggedCall.Path is the call's staging,
// target or volume path.
func (d *TestDriver) NodeCalls() ([]csidriver.LoggedCall, error) {
	return d.loggedCalls(true)
}

// loggedCalls returns the logged node calls, or the other ones.
func (d *TestDriver) loggedCalls(node bool) ([]csidriver.LoggedCall, error) {
	calls, err := csidriver.ReadCallLog(d.CallLog)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(calls, func(c csidriver.LoggedCall) bool { return c.Node() != node }), nil
}

// Script replaces the driver's scripted answers with answers, even the same
// answers again: each call takes the first answer of its method (and
// volume) not taken yet, in order. The running driver reads them at its
// next call; a restarted driver reads the whole script again, answers taken
// before included. Script() with no answers clears the script.
func (d *TestDriver) Script(answers ...TestAnswer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.scripts++
	entries := make([]csidriver.Answer, 0, len(answers))
	for _, a := range answers {
		e := csidriver.Answer{Method: a.Method, Code: a.Code.String(), Message: a.Message, VolumeID: a.VolumeID, Generation: d.scripts}
		if a.Delay > 0 {
			e.Delay = a.Delay.String()
		}
		entries = append(entries, e)
	}
	return csidriver.WriteFaultFile(d.FaultFile, entries)
}

// NodeVolumes returns what the driver's node side knows of each volume
// (file-system size, staging and target paths).
func (d *TestDriver) NodeVolumes() (map[string]csidriver.NodeVolume, error) {
	return csidriver.ReadNodeVolumes(d.StateFile)
}

// Volumes returns the backend's volume sizes.
func (d *TestDriver) Volumes() (map[string]int64, error) {
	return csidriver.ReadState(d.StateFile)
}
