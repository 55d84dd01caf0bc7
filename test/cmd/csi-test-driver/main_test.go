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

package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name         string
		args         []string
		wantModify   bool
		wantCapacity int64 // of an expansion to 1000 bytes
	}{
		{name: "expansion only", args: nil, wantCapacity: 1000},
		{name: "modify advertised", args: []string{"--modify"}, wantModify: true, wantCapacity: 1000},
		{name: "allocation unit", args: []string{"--allocation-unit=768"}, wantCapacity: 1536},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, nil, tc.args...)
			ctrl := csi.NewControllerClient(s.conn)
			got := controllerCapabilities(t, s)
			if modify := slices.Contains(got, csi.ControllerServiceCapability_RPC_MODIFY_VOLUME); modify != tc.wantModify {
				t.Errorf("capabilities %v, MODIFY_VOLUME advertised = %v, want %v", got, modify, tc.wantModify)
			}
			if _, err := ctrl.ControllerModifyVolume(s.ctx, &csi.ControllerModifyVolumeRequest{VolumeId: "vol-1", MutableParameters: map[string]string{"iops": "3000"}}); err != nil {
				t.Fatalf("ControllerModifyVolume: %v", err)
			}
			calls, err := csidriver.ReadCallLog(s.callLog)
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != 1 || calls[0].Method != csidriver.MethodModify || calls[0].Parameters["iops"] != "3000" || !calls[0].Ended() {
				t.Errorf("call log = %+v, want the modify call", calls)
			}
			expanded, err := ctrl.ControllerExpandVolume(s.ctx, &csi.ControllerExpandVolumeRequest{VolumeId: "vol-2", CapacityRange: &csi.CapacityRange{RequiredBytes: 1000}})
			if err != nil || expanded.GetCapacityBytes() != tc.wantCapacity {
				t.Errorf("ControllerExpandVolume = %v, %v; want capacity %d", expanded, err, tc.wantCapacity)
			}
		})
	}
}

func TestRunNeedsEndpoint(t *testing.T) {
	if err := run(t.Context(), &options{}); err == nil {
		t.Error("run without --endpoint succeeded")
	}
}

// served is a running command and a connection to it.
type served struct {
	ctx                           context.Context
	dir, callLog, state, faultsAt string
	conn                          *grpc.ClientConn
}

// serve runs the command with args (and --endpoint, --call-log,
// --state-file, --fault-file) and the backend's volumes (ID -> bytes) until
// the test ends, and connects to it.
func serve(t *testing.T, volumes map[string]int64, args ...string) *served {
	t.Helper()
	// t.TempDir may be too long a path for a unix socket.
	dir, err := os.MkdirTemp("", "ctd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &served{dir: dir, callLog: filepath.Join(dir, "calls.jsonl"), state: filepath.Join(dir, "state.json"), faultsAt: filepath.Join(dir, "faults.json")}
	socket := filepath.Join(dir, "csi.sock")
	if err := csidriver.WriteState(s.state, volumes); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("csi-test-driver", flag.ContinueOnError)
	o := bindFlags(fs)
	if err := fs.Parse(append([]string{"--endpoint=" + socket, "--call-log=" + s.callLog, "--state-file=" + s.state, "--fault-file=" + s.faultsAt}, args...)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	s.ctx = ctx
	serveCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(serveCtx, o) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	s.conn, err = grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.conn.Close() })
	return s
}

// controllerCapabilities returns the controller capabilities, waiting for
// the socket to appear once run serves.
func controllerCapabilities(t *testing.T, s *served) []csi.ControllerServiceCapability_RPC_Type {
	t.Helper()
	resp, err := csi.NewControllerClient(s.conn).ControllerGetCapabilities(s.ctx, &csi.ControllerGetCapabilitiesRequest{}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatalf("ControllerGetCapabilities: %v", err)
	}
	var got []csi.ControllerServiceCapability_RPC_Type
	for _, c := range resp.GetCapabilities() {
		got = append(got, c.GetRpc().GetType())
	}
	return got
}

func TestRunServesANodePlugin(t *testing.T) {
	tests := []struct {
		name                 string
		args                 []string
		wantControllerExpand bool
		wantVolume           int64 // after a node expansion to 300 bytes, from 100
		wantCode             codes.Code
	}{
		{name: "controller and node", args: []string{"--node-id=node-1", "--node-expand"}, wantControllerExpand: true, wantVolume: 100, wantCode: codes.OutOfRange},
		{name: "node-only", args: []string{"--node-id=node-1", "--node-expand", "--controller-expand=false"}, wantVolume: 300},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, map[string]int64{"vol-1": 100}, tc.args...)
			got := controllerCapabilities(t, s)
			if expand := slices.Contains(got, csi.ControllerServiceCapability_RPC_EXPAND_VOLUME); expand != tc.wantControllerExpand {
				t.Errorf("controller capabilities %v, EXPAND_VOLUME = %v, want %v", got, expand, tc.wantControllerExpand)
			}
			node := csi.NewNodeClient(s.conn)
			info, err := node.NodeGetInfo(s.ctx, &csi.NodeGetInfoRequest{})
			if err != nil || info.GetNodeId() != "node-1" {
				t.Errorf("NodeGetInfo = %v, %v; want node-1", info, err)
			}
			caps, err := node.NodeGetCapabilities(s.ctx, &csi.NodeGetCapabilitiesRequest{})
			if err != nil || len(caps.GetCapabilities()) != 2 {
				t.Errorf("NodeGetCapabilities = %v, %v; want STAGE_UNSTAGE_VOLUME and EXPAND_VOLUME", caps, err)
			}
			target := publish(t, s, "vol-1")
			_, err = node.NodeExpandVolume(s.ctx, &csi.NodeExpandVolumeRequest{VolumeId: "vol-1", VolumePath: target, CapacityRange: &csi.CapacityRange{RequiredBytes: 300}})
			if status.Code(err) != tc.wantCode {
				t.Errorf("NodeExpandVolume to 300 bytes = %v, want %v", err, tc.wantCode)
			}
			volumes, err := csidriver.ReadState(s.state)
			if err != nil || volumes["vol-1"] != tc.wantVolume {
				t.Errorf("volumes = %v, %v; want vol-1 of %d bytes", volumes, err, tc.wantVolume)
			}
		})
	}
}

// publish stages and publishes volumeID as kubelet does, and returns its
// target path.
func publish(t *testing.T, s *served, volumeID string) string {
	t.Helper()
	node := csi.NewNodeClient(s.conn)
	capability := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}}}
	staging, target := filepath.Join(s.dir, volumeID, "globalmount"), filepath.Join(s.dir, volumeID, "pod", "mount")
	if err := os.MkdirAll(staging, 0o750); err != nil {
		t.Fatal(err)
	}
	if _, err := node.NodeStageVolume(s.ctx, &csi.NodeStageVolumeRequest{VolumeId: volumeID, StagingTargetPath: staging, VolumeCapability: capability}); err != nil {
		t.Fatalf("NodeStageVolume: %v", err)
	}
	if _, err := node.NodePublishVolume(s.ctx, &csi.NodePublishVolumeRequest{VolumeId: volumeID, StagingTargetPath: staging, TargetPath: target, VolumeCapability: capability}); err != nil {
		t.Fatalf("NodePublishVolume: %v", err)
	}
	return target
}

func TestRunFaultFile(t *testing.T) {
	s := serve(t, map[string]int64{"vol-1": 100, "vol-2": 100}, "--node-expand")
	ctrl, node := csi.NewControllerClient(s.conn), csi.NewNodeClient(s.conn)
	controllerCapabilities(t, s) // waits for the socket
	targets := map[string]string{"vol-1": publish(t, s, "vol-1"), "vol-2": publish(t, s, "vol-2")}
	nodeExpand := func(volumeID string) error {
		_, err := node.NodeExpandVolume(s.ctx, &csi.NodeExpandVolumeRequest{VolumeId: volumeID, VolumePath: targets[volumeID], CapacityRange: &csi.CapacityRange{RequiredBytes: 100}})
		return err
	}
	controllerExpand := func(volumeID string) error {
		_, err := ctrl.ControllerExpandVolume(s.ctx, &csi.ControllerExpandVolumeRequest{VolumeId: volumeID, CapacityRange: &csi.CapacityRange{RequiredBytes: 100}})
		return err
	}
	// As a test writes it: a temporary file renamed into place.
	script := `[{"method": "NodeExpandVolume", "code": "Internal", "message": "disk on fire", "volumeID": "vol-2"},
		{"method": "ControllerExpandVolume", "code": "Unavailable"},
		{"method": "NodeExpandVolume", "code": "ResourceExhausted", "message": "no room"}]`
	if err := os.WriteFile(s.faultsAt+".tmp", []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(s.faultsAt+".tmp", s.faultsAt); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		call    func(string) error
		volume  string
		code    codes.Code
		message string
	}{
		{nodeExpand, "vol-1", codes.ResourceExhausted, "no room"},
		{nodeExpand, "vol-1", codes.OK, ""},
		{controllerExpand, "vol-1", codes.Unavailable, "scripted Unavailable"},
		{nodeExpand, "vol-2", codes.Internal, "disk on fire"},
		{nodeExpand, "vol-2", codes.OK, ""},
		{controllerExpand, "vol-2", codes.OK, ""},
	}
	for i, step := range steps {
		err := step.call(step.volume)
		if got := status.Convert(err); got.Code() != step.code || step.code != codes.OK && got.Message() != step.message {
			t.Errorf("step %d on %s = %v, want %v %q", i, step.volume, err, step.code, step.message)
		}
	}

	calls, err := csidriver.ReadCallLog(s.callLog)
	if err != nil {
		t.Fatal(err)
	}
	var nodeExpands []string
	for _, c := range calls {
		if c.Method == csidriver.MethodNodeExpand {
			nodeExpands = append(nodeExpands, c.VolumeID+" "+c.Code)
		}
	}
	want := []string{"vol-1 ResourceExhausted", "vol-1 OK", "vol-2 Internal", "vol-2 OK"}
	if !slices.Equal(nodeExpands, want) {
		t.Errorf("NodeExpandVolume calls logged = %v, want %v", nodeExpands, want)
	}
}

func TestBindFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want csidriver.Config
	}{
		{name: "defaults", want: csidriver.Config{DriverName: "csi-test.example.com", ControllerExpand: true}},
		{
			name: "node plugin",
			args: []string{"--node-id=node-1", "--node-expand", "--fault-file=/tmp/faults.json"},
			want: csidriver.Config{DriverName: "csi-test.example.com", ControllerExpand: true, NodeExpand: true, NodeID: "node-1", FaultFile: "/tmp/faults.json"},
		},
		{
			name: "node-only",
			args: []string{"--node-expand", "--controller-expand=false"},
			want: csidriver.Config{DriverName: "csi-test.example.com", NodeExpand: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("csi-test-driver", flag.ContinueOnError)
			o := bindFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got := o.config
			if got.DriverName != tc.want.DriverName || got.ControllerExpand != tc.want.ControllerExpand || got.NodeExpand != tc.want.NodeExpand ||
				got.NodeID != tc.want.NodeID || got.FaultFile != tc.want.FaultFile {
				t.Errorf("config = %+v, want %+v", got, tc.want)
			}
		})
	}
}
