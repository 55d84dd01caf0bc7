//go:build e2e

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
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

func finished(size string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.Capacity(pvc) == size && framework.ResizeStatus(pvc) == "" && len(pvc.Status.Conditions) == 0
	}
}

func TestControllerOnlyExpansion(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{})
	v := e.volume("data", "1Gi")
	e.grow("data", "2Gi")

	pvc := e.waitClaim("data", "the resize to finish", finished("2Gi"))
	if pvc.Annotations["volume.kubernetes.io/node-expansion-not-required"] != "true" {
		t.Errorf("annotations = %v", pvc.Annotations)
	}
	if got := e.pvSize(v); got != "2Gi" {
		t.Errorf("PV size = %s, want 2Gi", got)
	}
	calls := e.calls()
	if len(calls) != 1 || calls[0].RequiredBytes != bytes("2Gi") || calls[0].VolumeID != v.Handle {
		t.Errorf("driver calls = %+v", calls)
	}
	e.waitFact("data", fact{reason: events.ReasonResizeSuccessful, words: []string{"Resize volume succeeded"}})
	e.waitFact("data", fact{reason: events.ReasonResizing, words: []string{"External resizer is resizing volume " + v.PVName()}})
}

// TestControllerAndNodeExpansion: the claim waits for kubelet with no pod
// mounting it, and a real kubelet finishes it when a pod starts.
func TestControllerAndNodeExpansion(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{NodeExpansionRequired: true})
	node := e.startNode("node")
	v := e.volume("data", "1Gi")
	e.grow("data", "2Gi")

	e.waitClaim("data", "the node step", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending &&
			framework.HasCondition(pvc, v1.PersistentVolumeClaimFileSystemResizePending)
	})
	if got := e.pvSize(v); got != "2Gi" {
		t.Errorf("PV size = %s, want 2Gi", got)
	}
	e.waitFact("data", fact{reason: events.ReasonFileSystemResizeRequired, words: []string{"Require file system resize of volume on node"}})

	// kubelet expands when a pod mounts the claim; then nothing else moves.
	e.runPod(node, "app", "data")
	e.waitClaim("data", "kubelet's finish", finished("2Gi"))
	e.grow("data", "2Gi") // a no-op update event
	other := e.volume("probe", "1Gi")
	e.grow("probe", "2Gi")
	e.waitClaim("probe", "a later resize of another claim", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending
	})
	_ = other
	pvc := e.waitClaim("data", "the finished claim", finished("2Gi"))
	if n := countCalls(e.calls(), v.Handle); n != 1 {
		t.Errorf("driver calls for %s = %d, want 1 (claim: %s)", v.Handle, n, framework.Describe(pvc))
	}
}

func TestNodeOnlyDriver(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{NodeOnly: true, NodeExpansionRequired: true})
	v := e.volume("data", "1Gi")
	e.grow("data", "2Gi")
	e.waitClaim("data", "the node step", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending
	})
	if got := e.pvSize(v); got != "2Gi" {
		t.Errorf("PV size = %s, want 2Gi", got)
	}
	if calls := e.calls(); len(calls) != 0 {
		t.Errorf("node-only driver got ControllerExpandVolume calls: %+v", calls)
	}
}

func TestOtherDriverAndUnboundClaimsUntouched(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{})
	foreign := e.volume("foreign", "1Gi", func(v *framework.Volume) { v.Driver = "someone-else.csi.example.com" })
	e.grow("foreign", "2Gi")
	// An unbound claim: never bound by anyone.
	_, err := cluster.Admin.CoreV1().PersistentVolumeClaims(e.ns).Create(e.ctx, &v1.PersistentVolumeClaim{
		ObjectMeta: metaName("pending"),
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: &e.class,
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: quantity("1Gi")}},
		},
	}, createOpts())
	must(t, err)
	// A claim of ours resized after them proves the resizer has seen them.
	e.volume("ours", "1Gi")
	e.grow("ours", "2Gi")
	e.waitClaim("ours", "our claim", finished("2Gi"))

	for _, claim := range []string{"foreign", "pending"} {
		pvc := e.waitClaim(claim, "the claim", func(*v1.PersistentVolumeClaim) bool { return true })
		if pvc.Status.AllocatedResources != nil || len(pvc.Status.Conditions) != 0 {
			t.Errorf("%s was touched: %s", claim, framework.Describe(pvc))
		}
		if ev := e.events(claim); ev != "" {
			t.Errorf("%s got events: %s", claim, ev)
		}
	}
	if got := e.pvSize(foreign); got != "1Gi" {
		t.Errorf("foreign PV size = %s", got)
	}
}

func TestControlPlaneFailureThenSuccess(t *testing.T) {
	// A slower first retry keeps the failure visible long enough to see.
	e := newEnv(t, framework.DriverOptions{}, "--retry-interval-start=2s")
	e.volume("data", "1Gi")
	down := framework.Answer{Code: "Internal", Message: "backend is down"}
	must(t, e.driver.Script(down, down))
	e.grow("data", "2Gi")
	e.waitClaim("data", "the failure to be recorded", func(pvc *v1.PersistentVolumeClaim) bool {
		return conditionReason(pvc, v1.PersistentVolumeClaimControllerResizeError) == "Internal" &&
			framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimControllerResizeInProgress
	})
	// The event carries the driver's code and its message.
	e.waitFact("data", fact{reason: events.ReasonResizeFailed, code: "Internal", words: []string{"backend is down"}})
	e.waitClaim("data", "the resize to finish after the failures", finished("2Gi"))
	if n := len(e.calls()); n != 3 {
		t.Errorf("driver calls = %d, want 3 (2 failures, 1 success)", n)
	}
}

func TestInfeasibleThenUserLowersRequest(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{})
	v := e.volume("data", "1Gi")
	must(t, e.driver.Script(framework.Answer{Code: "OutOfRange", Message: "10Gi is more than the pool has"}))
	e.grow("data", "10Gi")
	e.waitClaim("data", "the infeasible mark", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimControllerResizeInfeasible &&
			conditionReason(pvc, v1.PersistentVolumeClaimControllerResizeError) == "OutOfRange"
	})
	// The event, through the real CSI client, says what the user may do:
	// its words are the fact.
	e.waitFact("data", fact{reason: events.ReasonResizeFailed, code: "OutOfRange", words: []string{`expand volume "` + v.PVName() + `" to 10Gi: rpc error: code = OutOfRange desc = 10Gi is more than the pool has; ` +
		`10Gi is retried every 3s unless the request changes; to recover, lower the request to between 1Gi (exclusive, the current capacity) and 10Gi (exclusive)`}})
	e.grow("data", "3Gi")
	e.waitClaim("data", "the lower size to finish", finished("3Gi"))
}

func countCalls(calls []framework.Call, volumeID string) int {
	n := 0
	for _, c := range calls {
		if c.VolumeID == volumeID {
			n++
		}
	}
	return n
}
