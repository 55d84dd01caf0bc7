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

package csidriver

import (
	"maps"
	"os"
	"sync"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

func TestCallsRecordRequests(t *testing.T) {
	d, c := dial(t, Config{NodeExpansionRequired: true})
	secrets := map[string]string{"password": "s3cr3t=;\"'", "user": "admin"}
	capability := &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{FsType: "ext4", MountFlags: []string{"noatime"}}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
	}
	ctx := testContext(t)
	if _, err := c.controller.ControllerExpandVolume(ctx, &csi.ControllerExpandVolumeRequest{
		VolumeId:         "vol-1",
		CapacityRange:    &csi.CapacityRange{RequiredBytes: 10, LimitBytes: 20},
		Secrets:          secrets,
		VolumeCapability: capability,
	}); err != nil {
		t.Fatalf("ControllerExpandVolume: %v", err)
	}
	d.FailExpand(codes.Unavailable, 1)
	if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-2", 30)); err == nil {
		t.Fatal("ControllerExpandVolume with a fault armed succeeded")
	}

	calls := d.Calls()
	if len(calls) != 2 {
		t.Fatalf("got %d calls, want 2: %+v", len(calls), calls)
	}
	first, second := calls[0], calls[1]
	if first.VolumeID != "vol-1" || first.RequiredBytes != 10 || first.LimitBytes != 20 ||
		first.Code != codes.OK || first.CapacityBytes != 10 || !first.NodeExpansionRequired {
		t.Errorf("first call = %+v", first)
	}
	if !maps.Equal(first.Secrets, secrets) {
		t.Errorf("secrets = %v, want %v", first.Secrets, secrets)
	}
	if !proto.Equal(first.Capability, capability) {
		t.Errorf("capability = %v, want %v", first.Capability, capability)
	}
	if first.Start.IsZero() || first.End.Before(first.Start) || second.Start.Before(first.End) {
		t.Errorf("times out of order: first %v-%v, second %v-%v", first.Start, first.End, second.Start, second.End)
	}
	if second.VolumeID != "vol-2" || second.Code != codes.Unavailable || second.Capability != nil || second.Secrets != nil {
		t.Errorf("second call = %+v", second)
	}

	// The log hands out copies.
	first.Secrets["password"] = "changed"
	if got := d.Calls()[0].Secrets["password"]; got != secrets["password"] {
		t.Errorf("changing a returned call changed the log: %q", got)
	}
}

func TestMaxConcurrent(t *testing.T) {
	tests := []struct {
		name     string
		parallel map[string]int // volume ID -> calls held at the same time
		want     map[string]int
	}{
		{name: "one call", parallel: map[string]int{"vol-a": 1}, want: map[string]int{"vol-a": 1}},
		{name: "three on one volume", parallel: map[string]int{"vol-a": 3, "vol-b": 1}, want: map[string]int{"vol-a": 3, "vol-b": 1}},
		{name: "unknown volume", want: map[string]int{"vol-x": 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{})
			release := d.HoldExpand()
			ctx := testContext(t)
			var wg sync.WaitGroup
			for id, n := range tc.parallel {
				for range n {
					wg.Go(func() {
						if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest(id, 10)); err != nil {
							t.Errorf("ControllerExpandVolume(%s): %v", id, err)
						}
					})
				}
			}
			waitFor(t, "every call to be in flight", func() bool {
				for id, n := range tc.parallel {
					if d.InFlight(id) != n {
						return false
					}
				}
				return true
			})
			release()
			wg.Wait()
			// Sequential calls afterwards do not raise the maximum.
			for id := range tc.parallel {
				if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest(id, 20)); err != nil {
					t.Errorf("ControllerExpandVolume(%s): %v", id, err)
				}
			}
			for id, want := range tc.want {
				if got := d.MaxConcurrent(id); got != want {
					t.Errorf("MaxConcurrent(%s) = %d, want %d", id, got, want)
				}
				if got := d.InFlight(id); got != 0 {
					t.Errorf("InFlight(%s) = %d after all calls ended", id, got)
				}
			}
		})
	}
}

func TestNodeCallsRecordEveryNodeCall(t *testing.T) {
	var mu sync.Mutex
	var observed []Call
	d, c := dial(t, Config{NodeExpand: true, OnCall: func(call Call) {
		mu.Lock()
		defer mu.Unlock()
		observed = append(observed, call)
	}})
	d.AddVolume("vol-1", 100)
	p := newNodePaths(t)
	ctx := testContext(t)
	stageAndPublish(t, c, "vol-1", p)
	if _, err := c.node.NodeExpandVolume(ctx, nodeExpandRequest("vol-1", p.target, 100)); err != nil {
		t.Fatalf("NodeExpandVolume: %v", err)
	}
	if _, err := c.node.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "vol-1", TargetPath: p.target}); err != nil {
		t.Fatalf("NodeUnpublishVolume: %v", err)
	}
	if _, err := c.node.NodeUnstageVolume(ctx, &csi.NodeUnstageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: p.staging}); err != nil {
		t.Fatalf("NodeUnstageVolume: %v", err)
	}
	// Neither recorded: not a call that changes the volume on the node.
	if _, err := c.node.NodeGetInfo(ctx, &csi.NodeGetInfoRequest{}); err != nil {
		t.Fatalf("NodeGetInfo: %v", err)
	}
	// A failed call is recorded with its code.
	_, _ = c.node.NodeExpandVolume(ctx, nodeExpandRequest("vol-1", p.target, 100))

	want := []Call{
		{Method: MethodNodeStage, Path: p.staging},
		{Method: MethodNodePublish, Path: p.target},
		{Method: MethodNodeExpand, Path: p.target, RequiredBytes: 100, CapacityBytes: 100},
		{Method: MethodNodeUnpublish, Path: p.target},
		{Method: MethodNodeUnstage, Path: p.staging},
		{Method: MethodNodeExpand, Path: p.target, RequiredBytes: 100, Code: codes.NotFound},
	}
	calls := d.NodeCalls()
	if len(calls) != len(want) {
		t.Fatalf("got %d node calls, want %d: %+v", len(calls), len(want), calls)
	}
	for i, w := range want {
		got := calls[i]
		if got.Method != w.Method || got.VolumeID != "vol-1" || got.Path != w.Path || got.RequiredBytes != w.RequiredBytes ||
			got.CapacityBytes != w.CapacityBytes || got.Code != w.Code || got.Seq != i+1 || got.Pid != os.Getpid() ||
			!got.Ended() || got.End.Before(got.Start) {
			t.Errorf("node call %d = %+v, want %+v", i, got, w)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(observed) != 2*len(want) {
		t.Fatalf("OnCall saw %d calls, want an arrival and an end of each of %d", len(observed), len(want))
	}
	for i, call := range observed {
		if ended := i%2 == 1; call.Ended() != ended || call.Seq != i/2+1 {
			t.Errorf("OnCall %d = %+v, want call %d ended %v", i, call, i/2+1, ended)
		}
	}
}

func TestFailCallOnNodeMethodsIsRecorded(t *testing.T) {
	tests := []struct {
		name   string
		method string
		code   codes.Code
		times  int
		want   []codes.Code
	}{
		{name: "short name, twice", method: MethodNodeExpand, code: codes.Internal, times: 2, want: []codes.Code{codes.Internal, codes.Internal, codes.OK}},
		{name: "full name, once", method: csi.Node_NodeExpandVolume_FullMethodName, code: codes.ResourceExhausted, times: 1, want: []codes.Code{codes.ResourceExhausted, codes.OK}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{ControllerExpand: true, NodeExpand: true})
			d.AddVolume("vol-1", 200)
			p := newNodePaths(t)
			stageAndPublish(t, c, "vol-1", p)
			d.FailCall(tc.method, tc.code, tc.times)
			// Retried as kubelet retries, until the call succeeds.
			for i := range tc.want {
				_, err := c.node.NodeExpandVolume(testContext(t), nodeExpandRequest("vol-1", p.target, 200))
				if (err == nil) != (i == len(tc.want)-1) {
					t.Fatalf("NodeExpandVolume %d = %v", i, err)
				}
			}
			calls := d.NodeCalls()[2:] // after stage and publish
			if len(calls) != len(tc.want) {
				t.Fatalf("got %d expand calls, want %d: %+v", len(calls), len(tc.want), calls)
			}
			for i, want := range tc.want {
				if calls[i].Method != MethodNodeExpand || calls[i].Code != want {
					t.Errorf("expand call %d = %+v, want code %v", i, calls[i], want)
				}
			}
			if last := calls[len(calls)-1]; last.CapacityBytes != 200 {
				t.Errorf("the successful call answered %d bytes, want 200", last.CapacityBytes)
			}
		})
	}
}
