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
	"google.golang.org/grpc/credentials/insecure"

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
			// t.TempDir may be too long a path for a unix socket.
			dir, err := os.MkdirTemp("", "ctd")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			socket, callLog := filepath.Join(dir, "csi.sock"), filepath.Join(dir, "calls.jsonl")
			fs := flag.NewFlagSet("csi-test-driver", flag.ContinueOnError)
			o := bindFlags(fs)
			if err := fs.Parse(append([]string{"--endpoint=" + socket, "--call-log=" + callLog}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			serveCtx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- run(serveCtx, o) }()
			defer func() {
				stop()
				if err := <-done; err != nil {
					t.Errorf("run: %v", err)
				}
			}()

			conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctrl := csi.NewControllerClient(conn)
			// The socket appears once run serves; gRPC waits for it.
			resp, err := ctrl.ControllerGetCapabilities(ctx, &csi.ControllerGetCapabilitiesRequest{}, grpc.WaitForReady(true))
			if err != nil {
				t.Fatalf("ControllerGetCapabilities: %v", err)
			}
			var got []csi.ControllerServiceCapability_RPC_Type
			for _, c := range resp.GetCapabilities() {
				got = append(got, c.GetRpc().GetType())
			}
			if modify := slices.Contains(got, csi.ControllerServiceCapability_RPC_MODIFY_VOLUME); modify != tc.wantModify {
				t.Errorf("capabilities %v, MODIFY_VOLUME advertised = %v, want %v", got, modify, tc.wantModify)
			}
			if _, err := ctrl.ControllerModifyVolume(ctx, &csi.ControllerModifyVolumeRequest{VolumeId: "vol-1", MutableParameters: map[string]string{"iops": "3000"}}); err != nil {
				t.Fatalf("ControllerModifyVolume: %v", err)
			}
			calls, err := csidriver.ReadCallLog(callLog)
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != 1 || calls[0].Method != csidriver.MethodModify || calls[0].Parameters["iops"] != "3000" || !calls[0].Ended() {
				t.Errorf("call log = %+v, want the modify call", calls)
			}
			expanded, err := ctrl.ControllerExpandVolume(ctx, &csi.ControllerExpandVolumeRequest{VolumeId: "vol-2", CapacityRange: &csi.CapacityRange{RequiredBytes: 1000}})
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
