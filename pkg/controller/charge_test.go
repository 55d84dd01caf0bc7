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

// TestAllocatedChargesDriverCapacity: the status write that finishes the
// claim, or hands it to kubelet, records the driver's capacity as
// allocatedResources (ResourceQuota charges max(request, allocated)),
// without a write more; the claim is then settled, a request within that
// capacity changes nothing, and a larger one is expanded to.
func TestAllocatedChargesDriverCapacity(t *testing.T) {
	tests := []struct {
		name      string
		nodeStep  bool
		wantClaim string
		wantEvent string
	}{
		{name: "controller only", wantClaim: "capacity=2560Mi allocated=2560Mi status=- conditions=[]", wantEvent: evSucceeded},
		{name: "node expansion pending", nodeStep: true, wantEvent: evNodeStep,
			wantClaim: "capacity=1Gi allocated=2560Mi status=NodeResizePending conditions=[FileSystemResizePending]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi")
			rz := &fakeResizer{script: []result{{size: driverCapacity, nodeStep: tc.nodeStep}}, nodeStep: tc.nodeStep}
			e := newEnv(t, rz, objects(pvc, volume(pvc, "1Gi")))
			e.mustSync("a")
			equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
			if body := lastPatch(e); !strings.Contains(body, `"allocatedResources":{"storage":"2560Mi"}`) {
				t.Errorf("last claim patch %s does not charge the driver's capacity", body)
			}
			equal(t, "claim", summary(e.claim("a")), tc.wantClaim)
			equal(t, "PV size", pvSize(e.volume("pv-a")), driverCapacity)
			equal(t, "events", e.events(), []string{evResizing, tc.wantEvent})

			expectIdle(t, e, "right after")
			if tc.nodeStep {
				e.finishOnNode("a")
				equal(t, "claim after kubelet", summary(e.claim("a")), "capacity=2560Mi allocated=2560Mi status=- conditions=[]")
				expectIdle(t, e, "after kubelet")
			}
			for _, within := range []string{"2300Mi", driverCapacity} {
				e.setRequest("a", within)
				expectIdle(t, e, "request raised to "+within)
			}
			e.setRequest("a", "3Gi")
			e.mustSync("a")
			equal(t, "driver calls", e.resizer.targets(), []string{"2Gi", "3Gi"})
		})
	}
}

// TestNodeInfeasibleAtDriverCapacity: kubelet finds the driver's larger
// capacity infeasible; the request, below it, is not taken for a lowered
// one, and the driver is not asked for that size again.
func TestNodeInfeasibleAtDriverCapacity(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{{size: driverCapacity, nodeStep: true}}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	e.editClaimStatus("a", func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage] = v1.PersistentVolumeClaimNodeResizeInfeasible
		pvc.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimNodeResizeError, Status: v1.ConditionTrue}}
	})
	_ = e.events()
	expectIdle(t, e, "kubelet found it infeasible")
	e.setRequest("a", "3Gi")
	e.mustSync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"2Gi", "3Gi"})
}

var errOverQuota = apierrors.NewForbidden(v1.Resource("persistentvolumeclaims"), "a",
	errors.New("exceeded quota: storage, requested: requests.storage=512Mi, used: requests.storage=2Gi, limited: requests.storage=2Gi"))

// TestQuotaRefusesDriverCapacity: ResourceQuota admits status writes that
// raise allocatedResources, and refuses one over the quota's hard limit.
// The claim is then written again with allocatedResources at the target,
// which the quota already charges, and a warning says so.
func TestQuotaRefusesDriverCapacity(t *testing.T) {
	const quotaWarning = `Warning VolumeResizeQuotaExceeded volume "pv-a" is expanded to 2560Mi, more than the 2Gi asked for, ` +
		`but ResourceQuota refused to charge the claim for 2560Mi: allocatedResources stays at 2Gi, and the quota counts 2Gi for this claim: ` +
		`patch status of claim default/a: persistentvolumeclaims "a" is forbidden: exceeded quota: storage, requested: requests.storage=512Mi, used: requests.storage=2Gi, limited: requests.storage=2Gi`
	tests := []struct {
		name      string
		nodeStep  bool
		wantClaim string
		wantEvent string
	}{
		{name: "controller only", wantClaim: "capacity=2560Mi allocated=2Gi status=- conditions=[]", wantEvent: evSucceeded},
		{name: "node expansion pending", nodeStep: true, wantEvent: evNodeStep,
			wantClaim: "capacity=1Gi allocated=2Gi status=NodeResizePending conditions=[FileSystemResizePending]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi")
			e := newEnv(t, &fakeResizer{nodeStep: tc.nodeStep, script: []result{{size: driverCapacity, nodeStep: tc.nodeStep}}}, objects(pvc, volume(pvc, "1Gi")))
			e.failRequest("patch", "persistentvolumeclaims", 2, errOverQuota)
			e.mustSync("a")
			equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite, claimWrite})
			equal(t, "claim", summary(e.claim("a")), tc.wantClaim)
			equal(t, "PV size", pvSize(e.volume("pv-a")), driverCapacity)
			equal(t, "events", e.events(), []string{evResizing, quotaWarning, tc.wantEvent})
			expectIdle(t, e, "after the quota refused")
		})
	}
}

// TestForbiddenWithoutRetryAtTarget: a refusal that is not for exceeding
// the quota, or a quota refusal of a write that charges nothing new, is a
// failed write, retried with backoff.
func TestForbiddenWithoutRetryAtTarget(t *testing.T) {
	rbac := apierrors.NewForbidden(v1.Resource("persistentvolumeclaims"), "a", errors.New(`User "csi-resizer" cannot patch resource "persistentvolumeclaims/status"`))
	unknown := apierrors.NewForbidden(v1.Resource("persistentvolumeclaims"), "a", errors.New(`status unknown for quota: storage, resources: requests.storage`))
	tests := []struct {
		name   string
		answer string
		err    error
		want   string
	}{
		{name: "RBAC refuses", answer: driverCapacity, err: rbac,
			want: warnFailed + `expand volume "pv-a" to 2Gi: record the new size 2560Mi in the claim: patch status of claim default/a: ` +
				`persistentvolumeclaims "a" is forbidden: User "csi-resizer" cannot patch resource "persistentvolumeclaims/status"; retried with backoff`},
		{name: "quota not computed yet: retried, not charged at the target for good", answer: driverCapacity, err: unknown,
			want: warnFailed + `expand volume "pv-a" to 2Gi: record the new size 2560Mi in the claim: patch status of claim default/a: ` +
				`persistentvolumeclaims "a" is forbidden: status unknown for quota: storage, resources: requests.storage; retried with backoff`},
		{name: "quota refuses, nothing charged beyond the target", answer: "2Gi", err: errOverQuota,
			want: warnFailed + `expand volume "pv-a" to 2Gi: record the new size 2Gi in the claim: patch status of claim default/a: ` +
				`persistentvolumeclaims "a" is forbidden: exceeded quota: storage, requested: requests.storage=512Mi, used: requests.storage=2Gi, limited: requests.storage=2Gi; retried with backoff`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi")
			e := newEnv(t, &fakeResizer{script: []result{{size: tc.answer}}}, objects(pvc, volume(pvc, "1Gi")))
			e.failRequest("patch", "persistentvolumeclaims", 2, tc.err)
			if _, err := e.sync("a"); !apierrors.IsForbidden(err) {
				t.Fatalf("sync error = %v, want the refusal", err)
			}
			equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
			equal(t, "events", e.events(), []string{evResizing, tc.want})
		})
	}
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
