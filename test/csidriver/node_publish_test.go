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
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestNodePublishVolume(t *testing.T) {
	block := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}}}
	tests := []struct {
		name     string
		cfg      Config
		req      func(p nodePaths) *csi.NodePublishVolumeRequest
		wantCode codes.Code
		wantMode fs.FileMode // of the target path made
	}{
		{name: "staged volume", req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			return publishRequest("vol-1", p.staging, p.target)
		}, wantMode: fs.ModeDir},
		{name: "block volume gets a file", req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			r := publishRequest("vol-1", p.staging, p.target)
			r.VolumeCapability = block
			return r
		}},
		{name: "not staged there", req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			return publishRequest("vol-1", p.target+"-staging", p.target)
		}, wantCode: codes.FailedPrecondition},
		{name: "unknown volume", req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			return publishRequest("vol-new", p.staging, p.target)
		}, wantCode: codes.FailedPrecondition},
		{name: "unknown volume, strict", cfg: Config{StrictVolumes: true}, req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			return publishRequest("vol-new", p.staging, p.target)
		}, wantCode: codes.NotFound},
		{name: "no staging path", req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			return publishRequest("vol-1", "", p.target)
		}, wantCode: codes.FailedPrecondition},
		{name: "no volume id", req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			return publishRequest("", p.staging, p.target)
		}, wantCode: codes.InvalidArgument},
		{name: "no target path", req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			return publishRequest("vol-1", p.staging, "")
		}, wantCode: codes.InvalidArgument},
		{name: "no capability", req: func(p nodePaths) *csi.NodePublishVolumeRequest {
			r := publishRequest("vol-1", p.staging, p.target)
			r.VolumeCapability = nil
			return r
		}, wantCode: codes.InvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, tc.cfg)
			d.AddVolume("vol-1", 100)
			p := newNodePaths(t)
			if _, err := c.node.NodeStageVolume(testContext(t), stageRequest("vol-1", p.staging)); err != nil {
				t.Fatalf("NodeStageVolume: %v", err)
			}
			if err := os.MkdirAll(filepath.Dir(p.target), 0o750); err != nil {
				t.Fatal(err) // the CO makes the parent of a block volume's target
			}
			req := tc.req(p)
			// Twice: publishing is idempotent.
			for range 2 {
				if _, err := c.node.NodePublishVolume(testContext(t), req); status.Code(err) != tc.wantCode {
					t.Fatalf("NodePublishVolume = %v, want code %v", err, tc.wantCode)
				}
			}
			nv, _ := d.NodeVolume(req.GetVolumeId())
			fi, err := os.Stat(p.target)
			if tc.wantCode != codes.OK {
				if len(nv.Published) != 0 || err == nil {
					t.Errorf("a failed NodePublishVolume published at %v (target made: %v)", nv.Published, err == nil)
				}
				return
			}
			if !slices.Equal(nv.Published, []string{p.target}) {
				t.Errorf("published at %v, want %s once", nv.Published, p.target)
			}
			if err != nil || fi.Mode().Type() != tc.wantMode {
				t.Errorf("target path: %v, %v; want type %v", fi, err, tc.wantMode)
			}
		})
	}
}

func TestNodeUnpublishVolume(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		volume   string
		target   func(p nodePaths) string
		wantCode codes.Code
	}{
		{name: "published", volume: "vol-1", target: func(p nodePaths) string { return p.target }},
		{name: "not published there", volume: "vol-1", target: func(p nodePaths) string { return p.target + "-other" }},
		{name: "unknown volume", volume: "vol-new", target: func(p nodePaths) string { return p.target }},
		{name: "unknown volume, strict", cfg: Config{StrictVolumes: true}, volume: "vol-new", target: func(p nodePaths) string { return p.target }, wantCode: codes.NotFound},
		{name: "no volume id", target: func(p nodePaths) string { return p.target }, wantCode: codes.InvalidArgument},
		{name: "no target path", volume: "vol-1", target: func(nodePaths) string { return "" }, wantCode: codes.InvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, tc.cfg)
			d.AddVolume("vol-1", 100)
			p := newNodePaths(t)
			stageAndPublish(t, c, "vol-1", p)
			req := &csi.NodeUnpublishVolumeRequest{VolumeId: tc.volume, TargetPath: tc.target(p)}
			// Twice: unpublishing is idempotent, and a missing target is fine.
			for range 2 {
				if _, err := c.node.NodeUnpublishVolume(testContext(t), req); status.Code(err) != tc.wantCode {
					t.Fatalf("NodeUnpublishVolume = %v, want code %v", err, tc.wantCode)
				}
			}
			// The target path goes whatever the volume: the driver trusts the CO.
			wantRemoved := tc.wantCode == codes.OK && req.GetTargetPath() == p.target
			wantPublished := !wantRemoved || tc.volume != "vol-1"
			nv, _ := d.NodeVolume("vol-1")
			if published := slices.Contains(nv.Published, p.target); published != wantPublished {
				t.Errorf("vol-1 published = %v, want %v", published, wantPublished)
			}
			_, statErr := os.Stat(p.target)
			if removed := errors.Is(statErr, fs.ErrNotExist); removed != wantRemoved {
				t.Errorf("target path removed = %v (%v), want %v", removed, statErr, wantRemoved)
			}
		})
	}
}

func TestNodeUnpublishKeepsANonEmptyTarget(t *testing.T) {
	d, c := dial(t, Config{})
	d.AddVolume("vol-1", 100)
	p := newNodePaths(t)
	stageAndPublish(t, c, "vol-1", p)
	if err := os.WriteFile(filepath.Join(p.target, "data"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := c.node.NodeUnpublishVolume(testContext(t), &csi.NodeUnpublishVolumeRequest{VolumeId: "vol-1", TargetPath: p.target})
	if status.Code(err) != codes.Internal {
		t.Fatalf("NodeUnpublishVolume of a target holding files = %v, want Internal", err)
	}
	if nv, _ := d.NodeVolume("vol-1"); !slices.Contains(nv.Published, p.target) {
		t.Errorf("a failed NodeUnpublishVolume unpublished the volume: %+v", nv)
	}
}
