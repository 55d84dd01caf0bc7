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

package decide

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

// maxExtra bounds how much more than asked for the modelled driver
// allocates.
const maxExtra = 1 << 40

// checkSuccess plays a successful expansion of s to target in which the
// driver allocates extra bytes more than asked for and asks for the node
// step or not, recorded with the status builders the controller uses, and
// then kubelet's part. It checks that allocatedResources records the
// driver's capacity and never less than the target, that the claim is not
// expanded again while its request stays within that capacity, and that a
// request above it is expanded to as usual.
func checkSuccess(t *testing.T, s ResizeState, target resource.Quantity, extra int64, nodeStep bool) {
	t.Helper()
	size := target.DeepCopy()
	size.Add(*resource.NewQuantity(abs(extra%maxExtra), resource.BinarySI))
	above := size.DeepCopy()
	above.Add(*resource.NewQuantity(1, resource.BinarySI))
	if CheckSize(above) != nil {
		return // beyond what any decision compares
	}
	at := metav1.NewTime(t0)
	pvc := claimstatus.ResizeIntent(claimOf(s), target, at)
	pvSize := s.PVSize
	if size.Cmp(pvSize) > 0 {
		pvSize = size
	}
	if nodeStep {
		pvc = claimstatus.NodePending(pvc, at)
	} else {
		pvc = claimstatus.ResizeFinished(pvc, size, at)
	}
	after := stateOfClaim(pvc, pvSize, s.Recovery)
	// The resizer remembers a driver that grew the volume beyond the
	// target; a volume that was that large already is no such answer.
	grew := size.Cmp(target) > 0 && s.PVSize.Cmp(size) < 0
	if grew {
		after.Rounded = &Rounding{Target: target, Size: size}
	}
	what := describe(s) + " expanded to " + target.String() + ", driver answered " + size.String()
	if nodeStep {
		// kubelet expands the file system to allocatedResources, and a
		// second final node failure is infeasible unless it is the request.
		if after.Allocated == nil || after.Allocated.Cmp(target) != 0 {
			t.Fatalf("%s: allocated = %v while kubelet works, want the target", what, after.Allocated)
		}
		expectNothing(t, what+", node step pending", after)
		after = finishOnNode(after)
		if after.Request.Cmp(after.Capacity) > 0 {
			expectExpandBeyond(t, what+", kubelet finished below the request", after)
			return
		}
		if !grew {
			// Nothing tells the volume's size from a size kubelet did
			// not grow the file system to: kubelet's size stands.
			expectNothing(t, what+", kubelet finished at "+after.Capacity.String(), after)
			return
		}
		after = settleAfterKubelet(t, what, after)
	}
	if after.Allocated == nil || after.Allocated.Cmp(size) != 0 || after.Allocated.Cmp(target) < 0 {
		t.Fatalf("%s: allocated = %v, want the driver's capacity, never below the target", what, after.Allocated)
	}
	expectAfter(t, what, after)
	for _, r := range []resource.Quantity{size, between(s.Request, size), above} {
		raised := after
		raised.Request = r
		expectAfter(t, what+", request then "+r.String(), raised)
	}
}

// expectAfter checks the decision on a claim whose expansion finished: a
// request within the capacity is left alone, a larger one expanded to.
func expectAfter(t *testing.T, what string, s ResizeState) {
	t.Helper()
	if s.Request.Cmp(s.Capacity) <= 0 {
		expectNothing(t, what, s)
		return
	}
	d := DecideResize(s, t0, retry)
	if d.Action != Expand || d.Target.Cmp(s.Request) != 0 || !d.RecordIntent {
		t.Errorf("%s: %s to %s (intent %v, %s), want an expansion to the request %s", what, d.Action, d.Target.String(), d.RecordIntent, d.Reason, s.Request.String())
	}
}

func expectNothing(t *testing.T, what string, s ResizeState) {
	t.Helper()
	if d := DecideResize(s, t0, retry); d.Action != ResizeNone {
		t.Errorf("%s: %s to %s (%s), want nothing", what, d.Action, d.Target.String(), d.Reason)
	}
}

// expectExpandBeyond checks that a claim whose request went beyond the size
// kubelet finished at is grown again to the request: by kubelet alone when
// the volume holds it already, else by an expansion. Settling at the
// volume's size would record a file system kubelet never grew to the
// request.
func expectExpandBeyond(t *testing.T, what string, s ResizeState) {
	t.Helper()
	want := Expand
	if s.PVSize.Cmp(s.Request) >= 0 {
		want = NodeRetry
	}
	if d := DecideResize(s, t0, retry); d.Action != want || d.Target.Cmp(s.Request) != 0 {
		t.Errorf("%s: %s to %s (%s), want %s to the request %s", what, d.Action, d.Target.String(), d.Reason, want, s.Request.String())
	}
}

// settleAfterKubelet checks that a claim kubelet finished below its volume's
// size is settled at that size, and returns it settled.
func settleAfterKubelet(t *testing.T, what string, s ResizeState) ResizeState {
	t.Helper()
	if s.PVSize.Cmp(s.Capacity) <= 0 {
		return s
	}
	d := DecideResize(s, t0, retry)
	if d.Action != RecordVolumeSize || d.Target.Cmp(s.PVSize) != 0 {
		t.Errorf("%s, kubelet finished at %s: %s to %s (%s), want to settle at the volume's %s", what, s.Capacity.String(), d.Action, d.Target.String(), d.Reason, s.PVSize.String())
		return s
	}
	return stateOfClaim(claimstatus.VolumeSizeRecorded(claimOf(s), d.Target), s.PVSize, s.Recovery)
}

// finishOnNode is kubelet's part: the claim's capacity becomes the
// allocated size, and the resize status goes.
func finishOnNode(s ResizeState) ResizeState {
	s.Capacity = *s.Allocated
	s.Status = ""
	return s
}

// claimOf is a claim recorded as s says.
func claimOf(s ResizeState) *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{
		Spec: v1.PersistentVolumeClaimSpec{Resources: v1.VolumeResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceStorage: s.Request}}},
		Status: v1.PersistentVolumeClaimStatus{Capacity: v1.ResourceList{v1.ResourceStorage: s.Capacity}},
	}
	if s.Allocated != nil {
		pvc.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: *s.Allocated}
	}
	if s.Status != "" {
		pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: s.Status}
	}
	if s.ErrorRecorded {
		pvc.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimControllerResizeError, Status: v1.ConditionTrue}}
	}
	return pvc
}

// stateOfClaim reads a claim as the controller does after a success, which
// clears the remembered failure.
func stateOfClaim(pvc *v1.PersistentVolumeClaim, pvSize resource.Quantity, recovery bool) ResizeState {
	s := ResizeState{
		Request:       pvc.Spec.Resources.Requests[v1.ResourceStorage],
		Capacity:      pvc.Status.Capacity[v1.ResourceStorage],
		PVSize:        pvSize,
		Status:        pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage],
		ErrorRecorded: claimstatus.ErrorRecorded(pvc),
		Recovery:      recovery,
	}
	if a, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]; ok {
		s.Allocated = &a
	}
	return s
}

// between is a size between a and b, or b when they are not apart.
func between(a, b resource.Quantity) resource.Quantity {
	if a.Cmp(b) >= 0 {
		return b
	}
	mid := *resource.NewQuantity(int64((a.AsApproximateFloat64()+b.AsApproximateFloat64())/2), resource.BinarySI)
	if mid.Cmp(a) <= 0 || mid.Cmp(b) >= 0 {
		return b
	}
	return mid
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
