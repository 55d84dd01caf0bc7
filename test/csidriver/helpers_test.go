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
	recorded func(d *Driver) []ControllerCall
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
		recorded: func(d *Driver) []ControllerCall { return sharedOf(d.Calls()) },
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
		hold:     (*Driver).HoldModify,
		recorded: func(d *Driver) []ControllerCall { return sharedOf(d.ModifyCalls()) },
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

// sharedOf returns what calls of any controller method record.
func sharedOf[C any, P interface {
	*C
	shared() *ControllerCall
}](calls []C) []ControllerCall {
	out := make([]ControllerCall, len(calls))
	for i := range calls {
		out[i] = *P(&calls[i]).shared()
	}
	return out
}
