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
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// DriverOptions are the csi-mock switches (its Config in Kubernetes' e2e).
type DriverOptions struct {
	Name string
	// NodeExpansionRequired: the driver answers node_expansion_required.
	NodeExpansionRequired bool
	// NodeOnly: no controller EXPAND_VOLUME.
	NodeOnly bool
	// OfflineOnly: OFFLINE expansion only.
	OfflineOnly bool
	// Modify: the driver advertises the controller capability MODIFY_VOLUME
	// (--modify); its ControllerModifyVolume succeeds unless scripted.
	// Without it the driver cannot modify volumes.
	Modify bool
	// AllocationUnit, when positive, makes the driver answer
	// ControllerExpandVolume with the size rounded up to a multiple of it.
	AllocationUnit int64
}

// Driver is a csi-mock process on a unix socket.
type Driver struct {
	DriverOptions
	Proc      *Process
	Socket    string
	faultFile string
	callLog   string
	// receivedLog has the calls as they arrive (see Received).
	receivedLog string
	tools       Tools
}

// Answer scripts one ControllerExpandVolume, or one call of Method: wait
// Delay, then fail with Code (a gRPC code name such as "Internal"), or answer
// normally.
type Answer struct {
	// Method is csidriver.MethodModify for a ControllerModifyVolume answer,
	// MethodNodeExpand for NodeExpandVolume; empty (or
	// csidriver.MethodExpand) is ControllerExpandVolume.
	Method string `json:"method,omitempty"`
	// VolumeID, when set, keeps the answer for a call on that volume.
	VolumeID string `json:"volumeID,omitempty"`
	// Size, when set ("3Gi"), keeps the answer for an expand call that asks
	// for that size.
	Size    string `json:"size,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Delay   string `json:"delay,omitempty"`
	// Capacity, when set, is the capacity a ControllerExpandVolume that
	// the answer lets through answers: less than asked for (a short
	// answer) or more (a rounding driver).
	Capacity string `json:"capacity,omitempty"`
}

// The node methods the mock scripts and logs, besides csidriver.MethodExpand
// and csidriver.MethodModify.
const (
	MethodNodeExpand = "NodeExpandVolume"
	MethodStage      = "NodeStageVolume"
	MethodUnstage    = "NodeUnstageVolume"
	MethodPublish    = "NodePublishVolume"
	MethodUnpublish  = "NodeUnpublishVolume"
)

// Call is one call the driver received of a method it logs.
type Call struct {
	// Method is csidriver.MethodExpand, csidriver.MethodModify or one of
	// the node methods.
	Method string `json:"method"`
	// VolumeID is the call's volume_id.
	VolumeID string `json:"volumeID"`
	// Path is a node call's target, staging or volume path.
	Path string `json:"path"`
	// RequiredBytes is the size an expand call asked for.
	RequiredBytes int64 `json:"requiredBytes"`
	// Parameters are the mutable parameters a modify call sent.
	Parameters    map[string]string `json:"parameters"`
	Secrets       map[string]string `json:"secrets"`
	Start         time.Time         `json:"start"`
	End           time.Time         `json:"end"`
	Code          string            `json:"code"`
	CapacityBytes int64             `json:"capacityBytes"`
	NodeStep      bool              `json:"nodeExpansionRequired"`
	// Delay is, in a received call, the scripted delay it is held for.
	Delay string `json:"delay"`
}

// StartDriver starts csi-mock in dir and waits for its socket.
func StartDriver(ctx context.Context, tools Tools, dir string, o DriverOptions) (*Driver, error) {
	d := &Driver{DriverOptions: o, tools: tools,
		Socket:    filepath.Join(dir, "csi.sock"),
		faultFile: filepath.Join(dir, "faults.json"),
		callLog:   filepath.Join(dir, "calls.jsonl"),

		receivedLog: filepath.Join(dir, "received.jsonl"),
	}
	return d, d.start(ctx)
}

func (d *Driver) start(ctx context.Context) error {
	args := []string{"--endpoint=" + d.Socket, "--driver-name=" + d.Name,
		"--fault-file=" + d.faultFile, "--call-log=" + d.callLog,
		"--received-log=" + d.receivedLog, "--v=5"}
	if d.NodeExpansionRequired {
		args = append(args, "--node-expansion-required")
	}
	if d.NodeOnly {
		args = append(args, "--disable-controller-expansion")
	}
	if d.OfflineOnly {
		args = append(args, "--disable-online-expansion")
	}
	if d.Modify {
		args = append(args, "--modify")
	}
	if d.AllocationUnit > 0 {
		args = append(args, fmt.Sprintf("--allocation-unit=%d", d.AllocationUnit))
	}
	_ = os.Remove(d.Socket)
	p, err := StartProcess("csi-mock", filepath.Join(filepath.Dir(d.Socket), "csi-mock.log"), d.tools.CSIMock, args...)
	if err != nil {
		return err
	}
	d.Proc = p
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		if p.Exited() {
			return false, fmt.Errorf("csi-mock exited; see %s", p.Log)
		}
		_, err := os.Stat(d.Socket)
		return err == nil, nil
	})
}

// Restart kills the driver and starts it again. The mock keeps its volumes
// in memory, so they are lost; volumes created again get new ids.
func (d *Driver) Restart(ctx context.Context) error {
	d.Proc.Kill()
	return d.start(ctx)
}

// CreateVolume creates a volume of size bytes in the mock and returns its
// id, to put into a PV's volumeHandle.
func (d *Driver) CreateVolume(ctx context.Context, name string, size int64) (string, error) {
	conn, err := grpc.NewClient("unix://"+d.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", err
	}
	defer conn.Close()
	resp, err := csi.NewControllerClient(conn).CreateVolume(ctx, &csi.CreateVolumeRequest{
		Name:          name,
		CapacityRange: &csi.CapacityRange{RequiredBytes: size},
		VolumeCapabilities: []*csi.VolumeCapability{{
			AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
		}},
	})
	if err != nil {
		return "", fmt.Errorf("create volume %s in %s: %w", name, d.Name, err)
	}
	return resp.GetVolume().GetVolumeId(), nil
}

// Script sets the answers of the next scripted calls: each call takes the
// first answer left for its method and its volume (an answer without
// VolumeID is for any volume, so the first claim to call takes it). It
// rewrites the mock's fault file, whose format the package documentation of
// test/tools/cmd/csi-mock gives; the same answers scripted twice in a row
// arm nothing the second time.
func (d *Driver) Script(answers ...Answer) error {
	data, err := json.Marshal(answers)
	if err != nil {
		return err
	}
	tmp := d.faultFile + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, d.faultFile)
}

// Calls returns the ControllerExpandVolume calls received so far.
func (d *Driver) Calls() ([]Call, error) {
	return d.callsOf(csidriver.MethodExpand)
}

// ModifyCalls returns the ControllerModifyVolume calls received so far.
func (d *Driver) ModifyCalls() ([]Call, error) {
	return d.callsOf(csidriver.MethodModify)
}

// NodeCalls returns the calls of the node method received so far.
func (d *Driver) NodeCalls(method string) ([]Call, error) {
	return d.callsOf(method)
}

// Received returns the calls of method (any with "") that have reached the
// driver so far, logged as they arrive, before their scripted delay: a
// call received and not yet in Calls, ModifyCalls or NodeCalls is still
// being answered, or held by a scripted delay (Call.Delay). A received call
// has no End, Code, capacity nor secrets.
func (d *Driver) Received(method string) ([]Call, error) {
	return readCalls(d.receivedLog, method)
}

// AllCalls returns the ControllerExpandVolume and ControllerModifyVolume
// calls received so far, in the order they ended.
func (d *Driver) AllCalls() ([]Call, error) {
	calls, err := d.callsOf("")
	return slices.DeleteFunc(calls, func(c Call) bool {
		return c.Method != csidriver.MethodExpand && c.Method != csidriver.MethodModify
	}), err
}

// callsOf reads the calls of method from the call log; "" reads all.
func (d *Driver) callsOf(method string) ([]Call, error) {
	return readCalls(d.callLog, method)
}

// readCalls reads the calls of method from a log of the mock; "" reads all.
func readCalls(log, method string) ([]Call, error) {
	f, err := os.Open(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls []Call
	s := bufio.NewScanner(f)
	for s.Scan() {
		var c Call
		if err := json.Unmarshal(s.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("call log %s: %w", log, err)
		}
		if c.Method == "" {
			c.Method = csidriver.MethodExpand // a log of a csi-mock older than --modify
		}
		if method == "" || c.Method == method {
			calls = append(calls, c)
		}
	}
	return calls, s.Err()
}
