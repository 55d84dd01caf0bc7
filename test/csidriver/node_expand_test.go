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
	"context"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestNodeExpandVolume(t *testing.T) {
	controllerAndNode := Config{ControllerExpand: true, NodeExpand: true}
	nodeOnly := Config{NodeExpand: true}
	tests := []struct {
		name        string
		cfg         Config
		req         func(p nodePaths) *csi.NodeExpandVolumeRequest
		wantCode    codes.Code
		wantMessage string
		wantFS      int64 // after the call; the answer's capacity when it succeeds
		wantVolume  int64
	}{
		{name: "to the volume's size", cfg: controllerAndNode, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("vol-1", p.target, 200)
		}, wantFS: 200, wantVolume: 200},
		{name: "zero means the volume's size", cfg: controllerAndNode, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			return &csi.NodeExpandVolumeRequest{VolumeId: "vol-1", VolumePath: p.target}
		}, wantFS: 200, wantVolume: 200},
		{name: "never shrinks", cfg: controllerAndNode, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("vol-1", p.target, 50)
		}, wantFS: 100, wantVolume: 200},
		{name: "beyond the volume", cfg: controllerAndNode, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("vol-1", p.target, 300)
		}, wantCode: codes.OutOfRange, wantMessage: "cannot grow the file system to 300 bytes beyond the volume's 200 bytes", wantFS: 100, wantVolume: 200},
		{name: "node-only grows the volume", cfg: nodeOnly, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("vol-1", p.target, 300)
		}, wantFS: 300, wantVolume: 300},
		{name: "staged only", cfg: controllerAndNode, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			r := nodeExpandRequest("vol-1", "/not/published", 200)
			r.StagingTargetPath = p.staging
			return r
		}, wantFS: 200, wantVolume: 200},
		{name: "not published there", cfg: controllerAndNode, req: func(nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("vol-1", "/not/published", 200)
		}, wantCode: codes.NotFound, wantMessage: `"/not/published"`, wantFS: 100, wantVolume: 200},
		{name: "neither published nor staged there", cfg: controllerAndNode, req: func(nodePaths) *csi.NodeExpandVolumeRequest {
			r := nodeExpandRequest("vol-1", "/not/published", 200)
			r.StagingTargetPath = "/not/staged"
			return r
		}, wantCode: codes.NotFound, wantMessage: `"/not/staged"`, wantFS: 100, wantVolume: 200},
		{name: "unknown volume", cfg: controllerAndNode, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("vol-new", p.target, 200)
		}, wantCode: codes.NotFound, wantFS: 100, wantVolume: 200},
		{name: "no volume id", cfg: controllerAndNode, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("", p.target, 200)
		}, wantCode: codes.InvalidArgument, wantFS: 100, wantVolume: 200},
		{name: "no volume path", cfg: controllerAndNode, req: func(nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("vol-1", "", 200)
		}, wantCode: codes.InvalidArgument, wantFS: 100, wantVolume: 200},
		{name: "limit below required", cfg: controllerAndNode, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			r := nodeExpandRequest("vol-1", p.target, 200)
			r.CapacityRange.LimitBytes = 150
			return r
		}, wantCode: codes.OutOfRange, wantFS: 100, wantVolume: 200},
		{name: "node does not expand", cfg: Config{ControllerExpand: true}, req: func(p nodePaths) *csi.NodeExpandVolumeRequest {
			return nodeExpandRequest("vol-1", p.target, 200)
		}, wantCode: codes.Unimplemented, wantFS: 100, wantVolume: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, tc.cfg)
			d.AddVolume("vol-1", 100)
			p := newNodePaths(t)
			stageAndPublish(t, c, "vol-1", p)
			if tc.cfg.ControllerExpand && !tc.cfg.NoControllerService {
				// The controller step of an expansion to 200 bytes.
				if _, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 200)); err != nil {
					t.Fatalf("ControllerExpandVolume: %v", err)
				}
			} else {
				d.AddVolume("vol-1", 200)
			}
			resp, err := c.node.NodeExpandVolume(testContext(t), tc.req(p))
			if status.Code(err) != tc.wantCode || !strings.Contains(status.Convert(err).Message(), tc.wantMessage) {
				t.Fatalf("NodeExpandVolume = %v, want code %v with %q", err, tc.wantCode, tc.wantMessage)
			}
			if err == nil && resp.GetCapacityBytes() != tc.wantFS {
				t.Errorf("capacity_bytes = %d, want %d", resp.GetCapacityBytes(), tc.wantFS)
			}
			if fs, _ := d.FileSystemSize("vol-1"); fs != tc.wantFS {
				t.Errorf("file system = %d bytes, want %d", fs, tc.wantFS)
			}
			if size, _ := d.VolumeSize("vol-1"); size != tc.wantVolume {
				t.Errorf("volume = %d bytes, want %d", size, tc.wantVolume)
			}
		})
	}
}

func TestHoldNodeExpand(t *testing.T) {
	d, c := dial(t, Config{NodeExpand: true})
	d.AddVolume("vol-1", 100)
	p := newNodePaths(t)
	stageAndPublish(t, c, "vol-1", p)
	release := d.Hold(MethodNodeExpand)
	defer release()
	done := make(chan error, 1)
	go func() {
		_, err := c.node.NodeExpandVolume(testContext(t), nodeExpandRequest("vol-1", p.target, 200))
		done <- err
	}()
	waitFor(t, "the held call", func() bool {
		calls := d.NodeCalls()
		return len(calls) == 3 && calls[2].Method == MethodNodeExpand
	})
	if fs, _ := d.FileSystemSize("vol-1"); fs != 100 {
		t.Errorf("a held call grew the file system to %d", fs)
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("released NodeExpandVolume: %v", err)
	}
	if fs, _ := d.FileSystemSize("vol-1"); fs != 200 {
		t.Errorf("file system = %d after the release, want 200", fs)
	}
}

func TestSetNodeExpandDelay(t *testing.T) {
	d, c := dial(t, Config{NodeExpand: true})
	d.AddVolume("vol-1", 100)
	p := newNodePaths(t)
	stageAndPublish(t, c, "vol-1", p)
	d.SetDelay(MethodNodeExpand, time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err := c.node.NodeExpandVolume(ctx, nodeExpandRequest("vol-1", p.target, 200))
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("delayed NodeExpandVolume = %v, want DeadlineExceeded", err)
	}
	d.SetDelay(MethodNodeExpand, 0)
	if _, err := c.node.NodeExpandVolume(testContext(t), nodeExpandRequest("vol-1", p.target, 200)); err != nil {
		t.Fatalf("NodeExpandVolume without a delay: %v", err)
	}
}
