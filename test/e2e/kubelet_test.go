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

package e2e

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestKubeletExpandsMountedVolume grows a claim a running pod mounts: the
// resizer expands the volume and hands it to kubelet, and the real kubelet
// calls NodeExpandVolume and finishes the claim.
func TestKubeletExpandsMountedVolume(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{NodeExpansionRequired: true})
	node := e.startNode()
	v := e.volume("data", "1Gi")
	e.runPod(node, "app", "data")
	e.grow("data", "2Gi")

	e.waitClaim("data", "kubelet to finish the resize", finished("2Gi"))
	calls := e.nodeCalls(framework.MethodNodeExpand, v.Handle)
	if len(calls) != 1 || calls[0].RequiredBytes != bytes("2Gi") || calls[0].Code != "OK" {
		t.Errorf("NodeExpandVolume calls = %+v, want one of 2Gi", calls)
	}
	e.waitEvent("data", "FileSystemResizeSuccessful")
}

// TestKubeletFinishesRoundedSizeAfterNodeFailures: a driver that allocates
// whole GiB answers 2Gi for a request of 1500Mi, and its NodeExpandVolume
// fails twice with a final error. kubelet marks a claim NodeResizeInfeasible
// on such a second failure when its request differs from
// allocatedResources, so what the resizer records must keep them equal
// while kubelet works; the claim then ends at the driver's 2Gi by itself,
// and kubelet stops reading it.
func TestKubeletFinishesRoundedSizeAfterNodeFailures(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{NodeExpansionRequired: true, AllocationUnit: bytes("1Gi")})
	node := e.startNode()
	v := e.volume("data", "1Gi")
	e.runPod(node, "app", "data")
	busy := framework.Answer{Method: framework.MethodNodeExpand, VolumeID: v.Handle, Code: "Internal", Message: "device is busy"}
	must(t, e.driver.Script(busy, busy))
	statuses := e.watchStatuses("data")
	e.grow("data", "1500Mi")

	pvc := e.waitClaim("data", "the claim to end at the driver's size", finished("2Gi"))
	if got := pvc.Status.AllocatedResources[v1.ResourceStorage]; got.Cmp(quantity("2Gi")) != 0 {
		t.Errorf("allocatedResources = %s, want 2Gi", got.String())
	}
	if got := e.pvSize(v); got != "2Gi" {
		t.Errorf("PV size = %s, want 2Gi", got)
	}
	if slices.Contains(statuses(), v1.PersistentVolumeClaimNodeResizeInfeasible) {
		t.Errorf("the claim went through NodeResizeInfeasible: %v", statuses())
	}
	var codes []string
	for _, c := range e.nodeCalls(framework.MethodNodeExpand, v.Handle) {
		codes = append(codes, c.Code)
	}
	if !slices.Equal(codes, []string{"Internal", "Internal", "OK"}) {
		t.Errorf("NodeExpandVolume codes = %v, want two failures then success", codes)
	}
	e.checkKubeletQuiet("data")
}
