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
	"path/filepath"
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestNodeGetCapabilities(t *testing.T) {
	stage, expand := csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME, csi.NodeServiceCapability_RPC_EXPAND_VOLUME
	tests := []struct {
		name     string
		cfg      Config
		wantCode codes.Code
		want     []csi.NodeServiceCapability_RPC_Type
	}{
		{name: "node expand", cfg: Config{NodeExpand: true}, want: []csi.NodeServiceCapability_RPC_Type{stage, expand}},
		{name: "no node expand", cfg: Config{}, want: []csi.NodeServiceCapability_RPC_Type{stage}},
		{name: "no node service", cfg: Config{NodeExpand: true, NoNodeService: true}, wantCode: codes.Unimplemented},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := dial(t, tc.cfg)
			resp, err := c.node.NodeGetCapabilities(testContext(t), &csi.NodeGetCapabilitiesRequest{})
			if status.Code(err) != tc.wantCode {
				t.Fatalf("NodeGetCapabilities error = %v, want code %v", err, tc.wantCode)
			}
			var got []csi.NodeServiceCapability_RPC_Type
			for _, c := range resp.GetCapabilities() {
				got = append(got, c.GetRpc().GetType())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("node capabilities = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNodeGetInfo(t *testing.T) {
	tests := []struct {
		name   string
		nodeID string
		want   string
	}{
		{name: "configured", nodeID: "node-7", want: "node-7"},
		{name: "default", want: DefaultNodeID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := dial(t, Config{NodeID: tc.nodeID})
			resp, err := c.node.NodeGetInfo(testContext(t), &csi.NodeGetInfoRequest{})
			if err != nil {
				t.Fatalf("NodeGetInfo: %v", err)
			}
			if resp.GetNodeId() != tc.want || resp.GetMaxVolumesPerNode() != 0 || resp.GetAccessibleTopology() != nil {
				t.Errorf("NodeGetInfo = %v, want node %q alone", resp, tc.want)
			}
		})
	}
}

func TestNodeStageVolume(t *testing.T) {
	p := newNodePaths(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		cfg        Config
		req        *csi.NodeStageVolumeRequest
		wantCode   codes.Code
		wantFS     int64
		wantStaged bool
	}{
		{name: "known volume", req: stageRequest("vol-1", p.staging), wantFS: 100, wantStaged: true},
		{name: "unknown volume made at first use", req: stageRequest("vol-new", p.staging), wantStaged: true},
		{name: "unknown volume, strict", cfg: Config{StrictVolumes: true}, req: stageRequest("vol-new", p.staging), wantCode: codes.NotFound},
		{name: "no volume id", req: stageRequest("", p.staging), wantCode: codes.InvalidArgument},
		{name: "no staging path", req: stageRequest("vol-1", ""), wantCode: codes.InvalidArgument},
		{name: "no capability", req: &csi.NodeStageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: p.staging}, wantCode: codes.InvalidArgument},
		{name: "missing staging directory", req: stageRequest("vol-1", filepath.Join(p.staging, "missing")), wantCode: codes.FailedPrecondition},
		{name: "staging path is a file", req: stageRequest("vol-1", file), wantCode: codes.FailedPrecondition},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, tc.cfg)
			d.AddVolume("vol-1", 100)
			_, err := c.node.NodeStageVolume(testContext(t), tc.req)
			if status.Code(err) != tc.wantCode {
				t.Fatalf("NodeStageVolume = %v, want code %v", err, tc.wantCode)
			}
			nv, ok := d.NodeVolume(tc.req.GetVolumeId())
			if staged := slices.Contains(nv.Staged, tc.req.GetStagingTargetPath()); staged != tc.wantStaged || ok != tc.wantStaged {
				t.Fatalf("after NodeStageVolume %+v (known %v), want staged %v", nv, ok, tc.wantStaged)
			}
			if nv.FileSystemBytes != tc.wantFS {
				t.Errorf("file system = %d bytes, want %d", nv.FileSystemBytes, tc.wantFS)
			}
		})
	}
}

func TestNodeStageIsIdempotentAndKeepsTheFileSystem(t *testing.T) {
	d, c := dial(t, Config{})
	d.AddVolume("vol-1", 100)
	p := newNodePaths(t)
	ctx := testContext(t)
	for range 2 {
		if _, err := c.node.NodeStageVolume(ctx, stageRequest("vol-1", p.staging)); err != nil {
			t.Fatalf("NodeStageVolume: %v", err)
		}
	}
	if nv, _ := d.NodeVolume("vol-1"); !slices.Equal(nv.Staged, []string{p.staging}) {
		t.Fatalf("staged at %v after two stagings, want %s once", nv.Staged, p.staging)
	}
	// The volume grows while unstaged: the file system made at the first
	// staging stays as it was until NodeExpandVolume grows it.
	for range 2 {
		if _, err := c.node.NodeUnstageVolume(ctx, &csi.NodeUnstageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: p.staging}); err != nil {
			t.Fatalf("NodeUnstageVolume: %v", err)
		}
	}
	d.AddVolume("vol-1", 200)
	if _, err := c.node.NodeStageVolume(ctx, stageRequest("vol-1", p.staging)); err != nil {
		t.Fatalf("NodeStageVolume again: %v", err)
	}
	if fs, ok := d.FileSystemSize("vol-1"); !ok || fs != 100 {
		t.Errorf("file system after restaging = %d, %v; want 100 as first made", fs, ok)
	}
	if _, err := os.Stat(p.staging); err != nil {
		t.Errorf("NodeUnstageVolume removed the CO's staging directory: %v", err)
	}
}

func TestNodeUnstageVolume(t *testing.T) {
	p := newNodePaths(t)
	tests := []struct {
		name     string
		cfg      Config
		req      *csi.NodeUnstageVolumeRequest
		wantCode codes.Code
	}{
		{name: "staged", req: &csi.NodeUnstageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: p.staging}},
		{name: "not staged there", req: &csi.NodeUnstageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: "/elsewhere"}},
		{name: "unknown volume", req: &csi.NodeUnstageVolumeRequest{VolumeId: "vol-new", StagingTargetPath: p.staging}},
		{name: "unknown volume, strict", cfg: Config{StrictVolumes: true}, req: &csi.NodeUnstageVolumeRequest{VolumeId: "vol-new", StagingTargetPath: p.staging}, wantCode: codes.NotFound},
		{name: "no volume id", req: &csi.NodeUnstageVolumeRequest{StagingTargetPath: p.staging}, wantCode: codes.InvalidArgument},
		{name: "no staging path", req: &csi.NodeUnstageVolumeRequest{VolumeId: "vol-1"}, wantCode: codes.InvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, tc.cfg)
			d.AddVolume("vol-1", 100)
			if _, err := c.node.NodeStageVolume(testContext(t), stageRequest("vol-1", p.staging)); err != nil {
				t.Fatalf("NodeStageVolume: %v", err)
			}
			_, err := c.node.NodeUnstageVolume(testContext(t), tc.req)
			if status.Code(err) != tc.wantCode {
				t.Fatalf("NodeUnstageVolume = %v, want code %v", err, tc.wantCode)
			}
			nv, _ := d.NodeVolume("vol-1")
			wantStaged := tc.req.GetVolumeId() != "vol-1" || tc.wantCode != codes.OK || tc.req.GetStagingTargetPath() != p.staging
			if staged := slices.Contains(nv.Staged, p.staging); staged != wantStaged {
				t.Errorf("vol-1 staged = %v, want %v", staged, wantStaged)
			}
			if _, known := d.VolumeSize("vol-new"); known {
				t.Error("NodeUnstageVolume made an unknown volume")
			}
		})
	}
}

func TestNodeStateSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	cfg := Config{ControllerExpand: true, NodeExpand: true, StateFile: path}
	d, c := dial(t, cfg)
	d.AddVolume("vol-1", 200)
	p := newNodePaths(t)
	stageAndPublish(t, c, "vol-1", p)
	d.Stop()

	// A restarted driver still finds the volume where kubelet left it.
	restarted, rc := dial(t, cfg)
	resp, err := rc.node.NodeExpandVolume(testContext(t), nodeExpandRequest("vol-1", p.target, 200))
	if err != nil || resp.GetCapacityBytes() != 200 {
		t.Fatalf("NodeExpandVolume after a restart = %v, %v; want 200 bytes", resp, err)
	}
	restarted.Stop()

	saved, err := ReadNodeVolumes(path)
	if err != nil {
		t.Fatal(err)
	}
	nv := saved["vol-1"]
	if nv.FileSystemBytes != 200 || !slices.Equal(nv.Staged, []string{p.staging}) || !slices.Equal(nv.Published, []string{p.target}) {
		t.Errorf("saved node state = %+v, want a 200-byte file system staged at %s and published at %s", nv, p.staging, p.target)
	}
}

func TestNodeVolumeIsACopy(t *testing.T) {
	d, c := dial(t, Config{})
	p := newNodePaths(t)
	stageAndPublish(t, c, "vol-1", p)
	nv, _ := d.NodeVolume("vol-1")
	nv.Staged[0] = "changed"
	if again, _ := d.NodeVolume("vol-1"); again.Staged[0] != p.staging {
		t.Errorf("changing a returned NodeVolume changed the driver's: %+v", again)
	}
}

func TestNodeStageFailsWhenStateCannotBeSaved(t *testing.T) {
	d, c := dial(t, Config{StateFile: filepath.Join(t.TempDir(), "gone", "state.json")})
	p := newNodePaths(t)
	_, err := c.node.NodeStageVolume(testContext(t), stageRequest("vol-1", p.staging))
	if status.Code(err) != codes.Internal {
		t.Fatalf("NodeStageVolume with an unwritable state = %v, want Internal", err)
	}
	if nv, ok := d.NodeVolume("vol-1"); ok {
		t.Errorf("the volume kept node state %+v that was never saved", nv)
	}
}
