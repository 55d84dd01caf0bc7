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

package controller

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	clienttesting "k8s.io/client-go/testing"
)

// The driver allocates 2560Mi when asked for 2Gi, as drivers that round up
// to their own granularity do.
const driverCapacity = "2560Mi"

// TestAllocatedChargesDriverCapacity: without a node step, the status write
// that finishes the claim records the driver's capacity as
// allocatedResources (ResourceQuota charges max(request, allocated))
// without a write more; a request within that capacity changes nothing,
// and a larger one is expanded to.
func TestAllocatedChargesDriverCapacity(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, &fakeResizer{script: []result{{size: driverCapacity}}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
	if body := lastPatch(e); !strings.Contains(body, `"allocatedResources":{"storage":"2560Mi"}`) {
		t.Errorf("last claim patch %s does not charge the driver's capacity", body)
	}
	equal(t, "claim", summary(e.claim("a")), "capacity=2560Mi allocated=2560Mi status=- conditions=[]")
	equal(t, "PV size", pvSize(e.volume("pv-a")), driverCapacity)
	equal(t, "events", e.events(), []string{evResizing, evSucceeded})
	expectSettled(t, e)
}

// TestNodeStepKeepsTargetUntilKubeletFinishes: with a node step, the claim
// is handed to kubelet with allocatedResources at the size asked for, the
// request (kubelet expands to it, and marks the claim NodeResizeInfeasible
// on a second final node failure when it differs from the request). Once
// kubelet has finished at that size, one write records the driver's
// capacity, with no driver call and no event.
func TestNodeStepKeepsTargetUntilKubeletFinishes(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{{size: driverCapacity, nodeStep: true}}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
	equal(t, "claim", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=NodeResizePending conditions=[FileSystemResizePending]")
	equal(t, "PV size", pvSize(e.volume("pv-a")), driverCapacity)
	equal(t, "events", e.events(), []string{evResizing, evNodeStep})
	expectIdle(t, e, "while kubelet works")

	e.finishOnNode("a")
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes after kubelet", e.writes(), []string{claimWrite})
	equal(t, "claim after kubelet", summary(e.claim("a")), "capacity=2560Mi allocated=2560Mi status=- conditions=[]")
	equal(t, "events after kubelet", e.events(), []string(nil))
	equal(t, "driver calls after kubelet", e.resizer.targets(), []string{"2Gi"})
	expectSettled(t, e)
}

// TestRoundingForgottenAcrossARestart: a resizer restarted while kubelet
// works does not know that the driver gave more than asked for (the volume
// could as well be larger because of a target kubelet refused), so what
// kubelet finished at stands, as with upstream, which never records it.
func TestRoundingForgottenAcrossARestart(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{{size: driverCapacity, nodeStep: true}}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	e.finishOnNode("a")

	restarted := newEnvWithClient(t, e.client, &fakeResizer{nodeStep: true})
	restarted.clearActions()
	restarted.mustSync("a")
	equal(t, "writes after kubelet", restarted.writes(), []string(nil))
	equal(t, "claim after kubelet", summary(restarted.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
	equal(t, "driver calls", restarted.resizer.targets(), []string(nil))
}

// TestNodeInfeasibleAtTarget: kubelet found the size asked for infeasible;
// it is not asked for again, and a larger request is expanded to.
func TestNodeInfeasibleAtTarget(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{{size: driverCapacity, nodeStep: true}}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	e.nodeInfeasible("a")
	_ = e.events()
	expectIdle(t, e, "kubelet found it infeasible")
	e.setRequest("a", "3Gi")
	e.mustSync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"2Gi", "3Gi"})
}

var errOverQuota = apierrors.NewForbidden(v1.Resource("persistentvolumeclaims"), "a",
	errors.New("exceeded quota: storage, requested: requests.storage=512Mi, used: requests.storage=2Gi, limited: requests.storage=2Gi"))

// TestRefusedClaimWriteIsRetried: a refused write of the claim after the
// driver's success, whoever refuses it (RBAC, a quota), is a failed write,
// retried with backoff, and named in a warning.
func TestRefusedClaimWriteIsRetried(t *testing.T) {
	rbac := apierrors.NewForbidden(v1.Resource("persistentvolumeclaims"), "a", errors.New(`User "csi-resizer" cannot patch resource "persistentvolumeclaims/status"`))
	unknown := apierrors.NewForbidden(v1.Resource("persistentvolumeclaims"), "a", errors.New(`status unknown for quota: storage, resources: requests.storage`))
	const failedWrite = warnFailed + `expand volume "pv-a" to 2Gi: record the new size 2560Mi in the claim: patch status of claim default/a: persistentvolumeclaims "a" is forbidden: `
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "RBAC refuses", err: rbac, want: failedWrite + `User "csi-resizer" cannot patch resource "persistentvolumeclaims/status"; retried with backoff, the writes only: the driver has expanded the volume to 2560Mi`},
		{name: "quota not computed yet", err: unknown, want: failedWrite + `status unknown for quota: storage, resources: requests.storage; retried with backoff, the writes only: the driver has expanded the volume to 2560Mi`},
		{name: "quota exceeded", err: errOverQuota,
			want: failedWrite + `exceeded quota: storage, requested: requests.storage=512Mi, used: requests.storage=2Gi, limited: requests.storage=2Gi; retried with backoff, the writes only: the driver has expanded the volume to 2560Mi`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi")
			e := newEnv(t, &fakeResizer{script: []result{{size: driverCapacity}}}, objects(pvc, volume(pvc, "1Gi")))
			e.failRequest("patch", "persistentvolumeclaims", 2, tc.err)
			if _, err := e.sync("a"); !apierrors.IsForbidden(err) {
				t.Fatalf("sync error = %v, want the refusal", err)
			}
			equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
			equal(t, "events", e.events(), []string{evResizing, tc.want})
		})
	}
}

// TestRefusedSettleIsRetried: a refused write of the driver's capacity
// after kubelet is retried with backoff and named in a warning.
func TestRefusedSettleIsRetried(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{{size: driverCapacity, nodeStep: true}}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	e.finishOnNode("a")
	_ = e.events()
	e.failRequest("patch", "persistentvolumeclaims", 1, errOverQuota)
	if _, err := e.sync("a"); !apierrors.IsForbidden(err) {
		t.Fatalf("sync error = %v, want the refusal", err)
	}
	equal(t, "events", e.events(), []string{warnFailed + `expand volume "pv-a" to 2560Mi: record the volume's size 2560Mi in the claim after kubelet finished: ` +
		`patch status of claim default/a: persistentvolumeclaims "a" is forbidden: exceeded quota: storage, requested: requests.storage=512Mi, used: requests.storage=2Gi, limited: requests.storage=2Gi; retried with backoff`})
	e.mustSync("a")
	equal(t, "claim", summary(e.claim("a")), "capacity=2560Mi allocated=2560Mi status=- conditions=[]")
}

// expectSettled checks a claim complete at the driver's capacity: idle, also
// with a request raised within that capacity, and expanded to a request
// above it.
func expectSettled(t *testing.T, e *env) {
	t.Helper()
	expectIdle(t, e, "once complete")
	for _, within := range []string{"2300Mi", driverCapacity} {
		e.setRequest("a", within)
		expectIdle(t, e, "request raised to "+within)
	}
	e.setRequest("a", "3Gi")
	e.mustSync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"2Gi", "3Gi"})
}

// expectIdle syncs the claim and fails t if that called the driver or
// wrote anything.
func expectIdle(t *testing.T, e *env, when string) {
	t.Helper()
	calls := len(e.resizer.targets())
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes "+when, e.writes(), []string(nil))
	equal(t, "driver calls "+when, len(e.resizer.targets()), calls)
	equal(t, "events "+when, e.events(), []string(nil))
}

// lastPatch is the body of the last patch of a claim's status.
func lastPatch(e *env) string {
	body := ""
	for _, a := range e.client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetSubresource() == "status" {
			body = string(p.GetPatch())
		}
	}
	return body
}

// editClaimStatus changes the claim's status in the API server, as kubelet
// does.
func (e *env) editClaimStatus(name string, edit func(*v1.PersistentVolumeClaim)) {
	e.t.Helper()
	pvc := e.claim(name)
	edit(pvc)
	e.must(e.client.Tracker().Update(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), pvc, ns))
}

// nodeInfeasible plays kubelet's finding the node step infeasible.
func (e *env) nodeInfeasible(name string) {
	e.editClaimStatus(name, func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage] = v1.PersistentVolumeClaimNodeResizeInfeasible
		pvc.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimNodeResizeError, Status: v1.ConditionTrue}}
	})
}

// finishOnNode plays kubelet's finish of the node step: the capacity
// becomes the allocated size, the status and conditions go.
func (e *env) finishOnNode(name string) {
	e.editClaimStatus(name, func(pvc *v1.PersistentVolumeClaim) {
		allocated := pvc.Status.AllocatedResources[v1.ResourceStorage]
		pvc.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(allocated.String())}
		pvc.Status.AllocatedResourceStatuses = nil
		pvc.Status.Conditions = nil
	})
}

// TestNodeRecoveryAtLoweredRequest: kubelet found the size infeasible, and
// the user lowers the request to a size the volume holds: the claim is
// handed back to kubelet at the request, in one write, with no driver call.
// What kubelet grows the file system to is then the claim's size, though
// the volume is larger (it was grown for the size kubelet refused); a later
// raise within the volume goes to kubelet again, with no driver call (which
// would ask for less than the volume has).
func TestNodeRecoveryAtLoweredRequest(t *testing.T) {
	pvc := claim("a", "3Gi", "1Gi")
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{{size: "3Gi", nodeStep: true}}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	e.nodeInfeasible("a")
	_ = e.events()
	expectIdle(t, e, "kubelet found 3Gi infeasible")

	e.setRequest("a", "2Gi")
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes", e.writes(), []string{claimWrite})
	equal(t, "claim", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=NodeResizePending conditions=[FileSystemResizePending,NodeResizeError]")
	equal(t, "events", e.events(), []string{evNodeStep})
	equal(t, "driver calls", e.resizer.targets(), []string{"3Gi"})
	expectIdle(t, e, "while kubelet works")

	e.finishOnNode("a")
	e.clearActions()
	e.mustSync("a")
	equal(t, "claim after kubelet", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
	equal(t, "writes after kubelet", e.writes(), []string(nil))

	e.setRequest("a", "2560Mi")
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes for a raise within the volume", e.writes(), []string{claimWrite})
	equal(t, "claim raised", summary(e.claim("a")), "capacity=2Gi allocated=2560Mi status=NodeResizePending conditions=[FileSystemResizePending]")
	equal(t, "events", e.events(), []string{evNodeStep})
	equal(t, "driver calls", e.resizer.targets(), []string{"3Gi"})
	e.finishOnNode("a")
	e.mustSync("a")
	equal(t, "claim after kubelet again", summary(e.claim("a")), "capacity=2560Mi allocated=2560Mi status=- conditions=[]")
}

// TestHandBackAgainAfterAnotherNodesFailure: on an RWX volume, a node whose
// call for the refused 3Gi was still failing when 2Gi was handed back
// records NodeResizeInfeasible on the claim that now asks for 2Gi, which no
// node has tried. The resizer hands 2Gi back once more; a second refusal
// of it waits for the user.
func TestHandBackAgainAfterAnotherNodesFailure(t *testing.T) {
	pvc := claim("a", "3Gi", "1Gi")
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{{size: "3Gi", nodeStep: true}}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	e.nodeInfeasible("a")
	e.setRequest("a", "2Gi")
	e.mustSync("a")
	equal(t, "claim handed back", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=NodeResizePending conditions=[FileSystemResizePending,NodeResizeError]")

	e.nodeInfeasible("a") // the other node's failure of 3Gi
	_ = e.events()
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes after the other node's failure", e.writes(), []string{claimWrite})
	equal(t, "events after the other node's failure", e.events(), []string{evNodeStep})
	equal(t, "claim handed back again", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=NodeResizePending conditions=[FileSystemResizePending,NodeResizeError]")

	e.nodeInfeasible("a") // 2Gi itself refused
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes after 2Gi is refused", e.writes(), []string(nil))
	expectIdle(t, e, "kubelet refused the size handed back twice")
	equal(t, "driver calls", e.resizer.targets(), []string{"3Gi"})
}
