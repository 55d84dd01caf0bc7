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
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
