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
	"os"
	"sync"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

func TestNodeCallsRecordEveryNodeCall(t *testing.T) {
	var mu sync.Mutex
	var observed []NodeCall
	d, c := dial(t, Config{NodeExpand: true, OnNodeCall: func(call NodeCall) {
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

	want := []NodeCall{
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
		t.Fatalf("OnNodeCall saw %d calls, want an arrival and an end of each of %d", len(observed), len(want))
	}
	for i, call := range observed {
		if ended := i%2 == 1; call.Ended() != ended || call.Seq != i/2+1 {
			t.Errorf("OnNodeCall %d = %+v, want call %d ended %v", i, call, i/2+1, ended)
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
