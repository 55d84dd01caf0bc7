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
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// testTimeout bounds every wait in these tests.
const testTimeout = 10 * time.Second

// clients are gRPC clients for one test driver.
type clients struct {
	identity   csi.IdentityClient
	controller csi.ControllerClient
	node       csi.NodeClient
}

// dial starts a driver with cfg and connects to it.
func dial(t *testing.T, cfg Config) (*Driver, clients) {
	t.Helper()
	d := StartForTest(t, cfg)
	conn, err := grpc.NewClient("unix://"+d.Endpoint(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial test driver: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return d, clients{
		identity:   csi.NewIdentityClient(conn),
		controller: csi.NewControllerClient(conn),
		node:       csi.NewNodeClient(conn),
	}
}

// testContext returns a context that ends with the test or after testTimeout.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds, failing t after testTimeout.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

func expandRequest(volumeID string, required int64) *csi.ControllerExpandVolumeRequest {
	return &csi.ControllerExpandVolumeRequest{
		VolumeId:      volumeID,
		CapacityRange: &csi.CapacityRange{RequiredBytes: required},
	}
}

func modifyRequest(volumeID string, params map[string]string) *csi.ControllerModifyVolumeRequest {
	return &csi.ControllerModifyVolumeRequest{VolumeId: volumeID, MutableParameters: params}
}

// mountCapability is the volume_capability of a mount volume.
var mountCapability = &csi.VolumeCapability{
	AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
	AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
}

func stageRequest(volumeID, staging string) *csi.NodeStageVolumeRequest {
	return &csi.NodeStageVolumeRequest{VolumeId: volumeID, StagingTargetPath: staging, VolumeCapability: mountCapability}
}

func publishRequest(volumeID, staging, target string) *csi.NodePublishVolumeRequest {
	return &csi.NodePublishVolumeRequest{VolumeId: volumeID, StagingTargetPath: staging, TargetPath: target, VolumeCapability: mountCapability}
}

func nodeExpandRequest(volumeID, volumePath string, required int64) *csi.NodeExpandVolumeRequest {
	return &csi.NodeExpandVolumeRequest{VolumeId: volumeID, VolumePath: volumePath, CapacityRange: &csi.CapacityRange{RequiredBytes: required}}
}

// nodePaths are a staging directory (created, as kubelet creates it) and a
// target path (not created, as the driver must create it) for one volume.
type nodePaths struct{ staging, target string }

func newNodePaths(t *testing.T) nodePaths {
	t.Helper()
	dir := t.TempDir()
	p := nodePaths{staging: filepath.Join(dir, "globalmount"), target: filepath.Join(dir, "pod", "mount")}
	if err := os.Mkdir(p.staging, 0o750); err != nil {
		t.Fatal(err)
	}
	return p
}

// stageAndPublish stages and publishes volumeID at p, failing t on an error.
func stageAndPublish(t *testing.T, c clients, volumeID string, p nodePaths) {
	t.Helper()
	if _, err := c.node.NodeStageVolume(testContext(t), stageRequest(volumeID, p.staging)); err != nil {
		t.Fatalf("NodeStageVolume: %v", err)
	}
	if _, err := c.node.NodePublishVolume(testContext(t), publishRequest(volumeID, p.staging, p.target)); err != nil {
		t.Fatalf("NodePublishVolume: %v", err)
	}
}

// controllerMethod drives one controller method in the tests of what
// ControllerExpandVolume and ControllerModifyVolume share.
type controllerMethod struct {
	name string
	// call calls the method on volumeID.
	call  func(ctx context.Context, c clients, volumeID string) error
	delay func(d *Driver, delay time.Duration)
	hold  func(d *Driver) (release func())
	// recorded returns the calls of the method the driver recorded.
	recorded func(d *Driver) []Call
	// changed reports whether a call changed volumeID in the driver.
	changed func(d *Driver, volumeID string) bool
}

// controllerMethods are ControllerExpandVolume and ControllerModifyVolume.
var controllerMethods = []controllerMethod{
	{
		name: "expand",
		call: func(ctx context.Context, c clients, volumeID string) error {
			_, err := c.controller.ControllerExpandVolume(ctx, expandRequest(volumeID, 10))
			return err
		},
		delay:    (*Driver).SetExpandDelay,
		hold:     (*Driver).HoldExpand,
		recorded: (*Driver).Calls,
		changed: func(d *Driver, volumeID string) bool {
			_, known := d.VolumeSize(volumeID)
			return known
		},
	},
	{
		name: "modify",
		call: func(ctx context.Context, c clients, volumeID string) error {
			_, err := c.controller.ControllerModifyVolume(ctx, modifyRequest(volumeID, nil))
			return err
		},
		delay:    (*Driver).SetModifyDelay,
		hold:     func(d *Driver) func() { return d.Hold(MethodModify) },
		recorded: (*Driver).ModifyCalls,
		changed: func(d *Driver, volumeID string) bool {
			_, known := d.VolumeParameters(volumeID)
			return known
		},
	},
}

// other is the controller method that is not m.
func (m controllerMethod) other() controllerMethod {
	if m.name == controllerMethods[0].name {
		return controllerMethods[1]
	}
	return controllerMethods[0]
}

// Script replaces the scripted answers not taken yet with answers, as a
// change of Config.FaultFile does. An answer with an unknown code or a bad
// delay is an error, and nothing is replaced.
func (d *Driver) Script(answers ...Answer) error {
	parsed, err := parseAnswers(answers)
	if err != nil {
		return err
	}
	d.locked(func() { d.script.answers = parsed })
	return nil
}

// VolumeSize returns the size of volumeID and whether the driver knows it.
func (d *Driver) VolumeSize(volumeID string) (size int64, ok bool) {
	d.locked(func() { size, ok = d.volumes[volumeID] })
	return size, ok
}

// NodeVolume returns a copy of what the node side knows of volumeID, and
// whether it was ever staged.
func (d *Driver) NodeVolume(volumeID string) (nv NodeVolume, ok bool) {
	d.locked(func() { nv, ok = d.node[volumeID] })
	nv.Staged, nv.Published = slices.Clone(nv.Staged), slices.Clone(nv.Published)
	return nv, ok
}

// FileSystemSize returns the size of the file system on volumeID, and
// whether the volume was ever staged (and so has one).
func (d *Driver) FileSystemSize(volumeID string) (int64, bool) {
	nv, ok := d.NodeVolume(volumeID)
	return nv.FileSystemBytes, ok
}

// MaxConcurrent returns the highest number of ControllerExpandVolume and
// ControllerModifyVolume calls for volumeID that ran at the same time, from
// their records: above 1 means two calls for one volume overlapped.
func (d *Driver) MaxConcurrent(volumeID string) int {
	var calls []Call
	for _, c := range append(d.Calls(), d.ModifyCalls()...) {
		if c.VolumeID == volumeID {
			calls = append(calls, c)
		}
	}
	most := 0
	for _, c := range calls {
		n := 0 // calls running when c arrived, c included
		for _, o := range calls {
			if o.Seq <= c.Seq && (!o.Ended() || o.End.After(c.Start)) {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}
