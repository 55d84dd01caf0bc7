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

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/apimachinery/pkg/util/wait"

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

// Answer scripts one call of Method (empty: ControllerExpandVolume): wait
// Delay, then fail with Code (a gRPC code name such as "Internal"), or
// answer normally. It is an entry of the fault file both drivers read.
type Answer = csidriver.Answer

// Call is one call the driver logged (see csidriver.LoggedCall).
type Call = csidriver.LoggedCall

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
	p, err := StartProcess(run.Name, filepath.Join(d.dir, name+".log"), d.bin, d.args(n)...)
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
			return false, fmt.Errorf("%s exited; see %s", name, p.Log)
		}
		_, err := os.Stat(d.Socket)
		return err == nil, nil
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

// CreateVolume creates a volume of size bytes in csi-mock and returns its
// id, to put into a PV's volumeHandle.
func (d *Driver) CreateVolume(ctx context.Context, name string, size int64) (string, error) {
	ids, err := d.createVolumes(ctx, 1, 1, size, func(int) string { return name })
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// CreateVolumes creates n volumes of size bytes in csi-mock, named
// <prefix>-<i>, over one connection, and returns their ids in order: for
// benchmarks that need hundreds of volumes.
func (d *Driver) CreateVolumes(ctx context.Context, prefix string, n int, size int64, goroutines int) ([]string, error) {
	return d.createVolumes(ctx, n, goroutines, size, func(i int) string { return fmt.Sprintf("%s-%d", prefix, i) })
}

func (d *Driver) createVolumes(ctx context.Context, n, goroutines int, size int64, name func(int) string) ([]string, error) {
	if d.scripted {
		return nil, errors.New("the scripted driver creates no volumes: give them in DriverOptions.Volumes")
	}
	conn, err := grpc.NewClient("unix://"+d.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	client := csi.NewControllerClient(conn)
	ids := make([]string, n)
	err = Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		resp, err := client.CreateVolume(ctx, &csi.CreateVolumeRequest{
			Name:          name(i),
			CapacityRange: &csi.CapacityRange{RequiredBytes: size},
			VolumeCapabilities: []*csi.VolumeCapability{{
				AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
				AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
			}},
		})
		if err != nil {
			return fmt.Errorf("create volume %s in %s: %w", name(i), d.Name, err)
		}
		ids[i] = resp.GetVolume().GetVolumeId()
		return nil
	}, nil)
	return ids, err
}

// Script replaces the driver's scripted answers with answers, even the same
// answers again: each call takes the first answer of its method (and
// volume, and for csi-mock size) not taken yet, in order. The running
// driver reads them at its next call; a restarted scripted driver reads the
// whole script again, answers taken before included. Script() with no
// answers clears the script.
func (d *Driver) Script(answers ...Answer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.scripts++
	answers = slices.Clone(answers)
	for i := range answers {
		if d.scripted && (answers[i].Size != "" || answers[i].Capacity != "") {
			return fmt.Errorf("answer %d: the scripted driver answers no Size nor Capacity", i)
		}
		answers[i].Generation = d.scripts
	}
	return csidriver.WriteFaultFile(d.FaultFile, answers)
}

// Calls returns the calls of methods the driver answered (all methods with
// none), of every run so far, failed ones included, in order of arrival.
func (d *Driver) Calls(methods ...string) ([]Call, error) {
	return readCalls(d.CallLog, methods)
}

// ControllerCalls returns the ControllerExpandVolume and
// ControllerModifyVolume calls so far.
func (d *Driver) ControllerCalls() ([]Call, error) {
	return d.Calls(csidriver.MethodExpand, csidriver.MethodModify)
}

// NodeCalls returns the NodeStageVolume, NodeUnstageVolume,
// NodePublishVolume, NodeUnpublishVolume and NodeExpandVolume calls so far;
// Call.Path is the call's staging, target or volume path.
func (d *Driver) NodeCalls() ([]Call, error) {
	calls, err := d.Calls()
	return slices.DeleteFunc(calls, func(c Call) bool { return !c.Node() }), err
}

// Received returns the calls of method (any with "") that have reached
// csi-mock so far, logged as they arrive, before their scripted delay: a
// call received and not yet in Calls is still being answered, or held by a
// scripted delay (Call.Delay). A received call has no End, Code, capacity
// nor secrets.
func (d *Driver) Received(method string) ([]Call, error) {
	if method == "" {
		return readCalls(d.ReceivedLog, nil)
	}
	return readCalls(d.ReceivedLog, []string{method})
}

func readCalls(log string, methods []string) ([]Call, error) {
	calls, err := csidriver.ReadCallLog(log)
	if len(methods) > 0 {
		calls = slices.DeleteFunc(calls, func(c Call) bool { return !slices.Contains(methods, c.Method) })
	}
	return calls, err
}

// NodeVolumes returns what the scripted driver's node side knows of each
// volume (file-system size, staging and target paths).
func (d *Driver) NodeVolumes() (map[string]csidriver.NodeVolume, error) {
	return csidriver.ReadNodeVolumes(d.StateFile)
}

// Volumes returns the scripted driver's volume sizes.
func (d *Driver) Volumes() (map[string]int64, error) {
	return csidriver.ReadState(d.StateFile)
}
