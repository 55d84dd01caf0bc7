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

package claimstatus

import (
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// Times are whole seconds: that is what survives a JSON round trip.
var (
	earlier = metav1.NewTime(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	then    = metav1.NewTime(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	now     = metav1.NewTime(time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC))
	later   = metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
)

const (
	inProgress = v1.PersistentVolumeClaimControllerResizeInProgress
	infeasible = v1.PersistentVolumeClaimControllerResizeInfeasible
	nodePend   = v1.PersistentVolumeClaimNodeResizePending

	resizing     = v1.PersistentVolumeClaimResizing
	fsPending    = v1.PersistentVolumeClaimFileSystemResizePending
	ctrlError    = v1.PersistentVolumeClaimControllerResizeError
	nodeError    = v1.PersistentVolumeClaimNodeResizeError
	modifyingVol = v1.PersistentVolumeClaimVolumeModifyingVolume

	// fsPendingMessage is the upstream string, spelled out so that a change
	// of the constant shows up here.
	fsPendingMessage = "Waiting for user to (re-)start a pod to finish file system resize of volume on node."
	otherResource    = v1.ResourceName("example.com/iops")
)

func q(s string) resource.Quantity { return resource.MustParse(s) }

// claim is testobj's bound 1Gi claim ns/data asking for 2Gi, of the
// volume pv-1 at resourceVersion 42 that the assertions read, changed by opts.
func claim(opts ...testobj.ClaimOpt) *v1.PersistentVolumeClaim {
	at42 := func(pvc *v1.PersistentVolumeClaim) { pvc.Spec.VolumeName, pvc.ResourceVersion = "pv-1", "42" }
	return testobj.Claim("ns", "data", "2Gi", "1Gi", append([]testobj.ClaimOpt{at42}, opts...)...)
}

func withCapacity(size string) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) { pvc.Status.Capacity[v1.ResourceStorage] = q(size) }
}

func withoutCapacity() testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) { pvc.Status.Capacity = nil }
}

func withAllocated(size string) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		if pvc.Status.AllocatedResources == nil {
			pvc.Status.AllocatedResources = v1.ResourceList{}
		}
		pvc.Status.AllocatedResources[v1.ResourceStorage] = q(size)
	}
}

func withResourceStatus(name v1.ResourceName, s v1.ClaimResourceStatus) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		if pvc.Status.AllocatedResourceStatuses == nil {
			pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{}
		}
		pvc.Status.AllocatedResourceStatuses[name] = s
	}
}

func withResizeStatus(s v1.ClaimResourceStatus) testobj.ClaimOpt {
	return withResourceStatus(v1.ResourceStorage, s)
}

func withCondition(t v1.PersistentVolumeClaimConditionType, status v1.ConditionStatus, message string, at metav1.Time) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: t, Status: status, Message: message, LastTransitionTime: at,
		})
	}
}

// withReason sets the reason of the condition of type t added before.
func withReason(t v1.PersistentVolumeClaimConditionType, reason string) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		for i := range pvc.Status.Conditions {
			if pvc.Status.Conditions[i].Type == t {
				pvc.Status.Conditions[i].Reason = reason
			}
		}
	}
}

// checkBuilder runs build on in and checks that it returns want, leaves in
// as it was, and returns the same object again when the step is repeated
// later: a repeated step must not produce a write.
func checkBuilder(t *testing.T, in, want *v1.PersistentVolumeClaim, build func(*v1.PersistentVolumeClaim, metav1.Time) *v1.PersistentVolumeClaim) {
	t.Helper()
	before := in.DeepCopy()
	got := build(in, now)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wrong claim (-got +want):\n%s", diff.Diff(got, want))
	}
	if !reflect.DeepEqual(in, before) {
		t.Errorf("input changed (-now +before):\n%s", diff.Diff(in, before))
	}
	if again := build(got, later); !reflect.DeepEqual(again, got) {
		t.Errorf("repeated step changed the claim (-again +first):\n%s", diff.Diff(again, got))
	}
}

func TestResizeIntent(t *testing.T) {
	tests := []struct {
		name   string
		in     *v1.PersistentVolumeClaim
		target string
		want   *v1.PersistentVolumeClaim
	}{
		{
			name:   "nothing recorded",
			in:     claim(),
			target: "2Gi",
			want:   claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, now.Time, "")),
		},
		{
			name:   "drops node-expansion-not-required, keeps other annotations",
			in:     claim(testobj.Annotated(AnnNodeExpansionNotRequired, "true"), testobj.Annotated("team", "db")),
			target: "2Gi",
			want: claim(testobj.Annotated("team", "db"),
				withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, now.Time, "")),
		},
		{
			name:   "a new target replaces an infeasible one and its error",
			in:     claim(withAllocated("100Ti"), withResizeStatus(infeasible), testobj.Condition(ctrlError, then.Time, "too big")),
			target: "2Gi",
			want:   claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, now.Time, "")),
		},
		{
			name: "keeps kubelet's NodeResizeError, unrelated conditions and other resources",
			in: claim(withCapacity("2Gi"), withAllocated("2Gi"), withResizeStatus(nodePend),
				withResourceStatus(otherResource, inProgress),
				testobj.Condition(nodeError, then.Time, "resize2fs failed"), testobj.Condition(fsPending, then.Time, fsPendingMessage),
				testobj.Condition(modifyingVol, then.Time, "")),
			target: "3Gi",
			want: claim(withCapacity("2Gi"), withAllocated("3Gi"), withResizeStatus(inProgress),
				withResourceStatus(otherResource, inProgress),
				testobj.Condition(nodeError, then.Time, "resize2fs failed"), testobj.Condition(modifyingVol, then.Time, ""),
				testobj.Condition(resizing, now.Time, "")),
		},
		{
			name:   "same intent recorded earlier: keeps its transition time",
			in:     claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
			target: "2Gi",
			want:   claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
		},
		{
			name:   "a retry of a failed size keeps when the resizer began expanding to it",
			in:     claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(ctrlError, then.Time, "internal")),
			target: "2Gi",
			want:   claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
		},
		{
			name:   "a retry of an infeasible size keeps it too",
			in:     claim(withAllocated("100Ti"), withResizeStatus(infeasible), testobj.Condition(ctrlError, then.Time, "too big")),
			target: "100Ti",
			want:   claim(withAllocated("100Ti"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
		},
		{
			name:   "Resizing=False earlier: a new transition",
			in:     claim(withCondition(resizing, v1.ConditionFalse, "", then)),
			target: "2Gi",
			want:   claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, now.Time, "")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkBuilder(t, tc.in, tc.want, func(pvc *v1.PersistentVolumeClaim, at metav1.Time) *v1.PersistentVolumeClaim {
				return ResizeIntent(pvc, q(tc.target), at)
			})
		})
	}
}

func TestNodePending(t *testing.T) {
	tests := []struct {
		name string
		in   *v1.PersistentVolumeClaim
		want *v1.PersistentVolumeClaim
	}{
		{
			name: "after the controller step",
			in:   claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
			want: claim(withAllocated("2Gi"), withResizeStatus(nodePend), testobj.Condition(fsPending, now.Time, fsPendingMessage)),
		},
		{
			name: "no status map yet",
			in:   claim(withAllocated("2Gi")),
			want: claim(withAllocated("2Gi"), withResizeStatus(nodePend), testobj.Condition(fsPending, now.Time, fsPendingMessage)),
		},
		{
			name: "keeps NodeResizeError and other resources",
			in: claim(withAllocated("2Gi"), withResizeStatus(inProgress), withResourceStatus(otherResource, infeasible),
				testobj.Condition(nodeError, then.Time, "no space"), testobj.Condition(resizing, then.Time, "")),
			want: claim(withAllocated("2Gi"), withResizeStatus(nodePend), withResourceStatus(otherResource, infeasible),
				testobj.Condition(nodeError, then.Time, "no space"), testobj.Condition(fsPending, now.Time, fsPendingMessage)),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkBuilder(t, tc.in, tc.want, NodePending)
		})
	}
}

// TestNodeRetry: the claim goes back to kubelet at the lowered request;
// kubelet's NodeResizeError stays until kubelet clears it.
func TestNodeRetry(t *testing.T) {
	in := claim(withAllocated("3Gi"), withResizeStatus(v1.PersistentVolumeClaimNodeResizeInfeasible), testobj.Condition(nodeError, then.Time, "too big"))
	want := claim(withAllocated("2Gi"), withResizeStatus(nodePend), testobj.Condition(nodeError, then.Time, "too big"), testobj.Condition(fsPending, now.Time, fsPendingMessage))
	checkBuilder(t, in, want, func(pvc *v1.PersistentVolumeClaim, at metav1.Time) *v1.PersistentVolumeClaim {
		return NodeRetry(pvc, q("2Gi"), at)
	})
}

// TestVolumeSizeRecorded: after kubelet finished at the recorded size, the volume's
// larger size becomes the claim's capacity and allocated size; nothing else
// changes.
func TestVolumeSizeRecorded(t *testing.T) {
	tests := []struct {
		name string
		in   *v1.PersistentVolumeClaim
		want *v1.PersistentVolumeClaim
	}{
		{
			name: "capacity and allocated raised",
			in:   claim(withCapacity("1500Mi"), withAllocated("1500Mi"), testobj.Annotated("team", "db"), testobj.Condition(nodeError, then.Time, "old")),
			want: claim(withCapacity("2Gi"), withAllocated("2Gi"), testobj.Annotated("team", "db"), testobj.Condition(nodeError, then.Time, "old")),
		},
		{
			name: "no capacity recorded",
			in:   claim(withoutCapacity(), withAllocated("1500Mi")),
			want: claim(withCapacity("2Gi"), withAllocated("2Gi")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkBuilder(t, tc.in, tc.want, func(pvc *v1.PersistentVolumeClaim, _ metav1.Time) *v1.PersistentVolumeClaim {
				return VolumeSizeRecorded(pvc, q("2Gi"))
			})
		})
	}
}

func TestResizeFinished(t *testing.T) {
	tests := []struct {
		name string
		in   *v1.PersistentVolumeClaim
		size string
		want *v1.PersistentVolumeClaim
	}{
		{
			name: "controller-only resize",
			in:   claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
			size: "2Gi",
			want: claim(withCapacity("2Gi"), withAllocated("2Gi"), testobj.Annotated(AnnNodeExpansionNotRequired, "true")),
		},
		{
			name: "no capacity recorded yet",
			in:   claim(withoutCapacity(), withAllocated("2Gi"), withResizeStatus(inProgress)),
			size: "2Gi",
			want: claim(withAllocated("2Gi"), withCapacity("2Gi"), testobj.Annotated(AnnNodeExpansionNotRequired, "true")),
		},
		{
			name: "keeps other resources, annotations and non-resize conditions",
			in: claim(testobj.Annotated("team", "db"), withAllocated("2Gi"), withResizeStatus(inProgress),
				withResourceStatus(otherResource, inProgress),
				testobj.Condition(resizing, then.Time, ""), testobj.Condition(ctrlError, then.Time, "old"), testobj.Condition(fsPending, then.Time, fsPendingMessage),
				testobj.Condition(nodeError, then.Time, "kubelet")),
			size: "2Gi",
			want: claim(testobj.Annotated("team", "db"), testobj.Annotated(AnnNodeExpansionNotRequired, "true"),
				withCapacity("2Gi"), withAllocated("2Gi"), withResourceStatus(otherResource, inProgress),
				testobj.Condition(nodeError, then.Time, "kubelet")),
		},
		{
			name: "the driver allocated more: capacity and allocated are its capacity",
			in:   claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
			size: "2560Mi",
			want: claim(withCapacity("2560Mi"), withAllocated("2560Mi"), testobj.Annotated(AnnNodeExpansionNotRequired, "true")),
		},
		{
			name: "nothing allocated recorded: allocated is the size",
			in:   claim(withResizeStatus(inProgress)),
			size: "2Gi",
			want: claim(withCapacity("2Gi"), withAllocated("2Gi"), testobj.Annotated(AnnNodeExpansionNotRequired, "true")),
		},
		{
			name: "a smaller size never lowers allocated",
			in:   claim(withAllocated("2Gi"), withResizeStatus(inProgress)),
			size: "1536Mi",
			want: claim(withCapacity("1536Mi"), withAllocated("2Gi"), testobj.Annotated(AnnNodeExpansionNotRequired, "true")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkBuilder(t, tc.in, tc.want, func(pvc *v1.PersistentVolumeClaim, at metav1.Time) *v1.PersistentVolumeClaim {
				return ResizeFinished(pvc, q(tc.size), at)
			})
		})
	}
}

// TestFinishedEmptyStatusMap checks what DeepEqual in TestResizeFinished cannot
// tell apart from a bug in the builders: the map is nil, not empty, so
// the JSON has no allocatedResourceStatuses at all.
func TestFinishedEmptyStatusMap(t *testing.T) {
	got := ResizeFinished(claim(withResizeStatus(inProgress)), q("2Gi"), now)
	if got.Status.AllocatedResourceStatuses != nil {
		t.Errorf("allocatedResourceStatuses = %#v, want nil", got.Status.AllocatedResourceStatuses)
	}
	if got.Status.Conditions != nil {
		t.Errorf("conditions = %#v, want nil", got.Status.Conditions)
	}
}

func TestResizeFailed(t *testing.T) {
	tests := []struct {
		name       string
		in         *v1.PersistentVolumeClaim
		infeasible bool
		code       string
		message    string
		want       *v1.PersistentVolumeClaim
	}{
		{
			name:       "infeasible",
			in:         claim(withAllocated("100Ti"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
			infeasible: true,
			code:       "OutOfRange",
			message:    "out of range",
			want:       claim(withAllocated("100Ti"), withResizeStatus(infeasible), testobj.Condition(ctrlError, then.Time, "out of range"), withReason(ctrlError, "OutOfRange")),
		},
		{
			name:    "final: the status stays in progress",
			in:      claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, "")),
			code:    "Internal",
			message: "internal",
			want:    claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(ctrlError, then.Time, "internal"), withReason(ctrlError, "Internal")),
		},
		{
			name:    "the error takes Resizing's time: when the resizer began expanding to the size",
			in:      claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, earlier.Time, "")),
			code:    "Internal",
			message: "internal",
			want:    claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(ctrlError, earlier.Time, "internal"), withReason(ctrlError, "Internal")),
		},
		{
			name:    "final with nothing recorded: no status map",
			in:      claim(),
			code:    "Internal",
			message: "internal",
			want:    claim(testobj.Condition(ctrlError, now.Time, "internal"), withReason(ctrlError, "Internal")),
		},
		{
			name:       "error recorded earlier: keeps its time, takes the new message",
			in:         claim(withResizeStatus(infeasible), testobj.Condition(nodeError, then.Time, "kubelet"), testobj.Condition(ctrlError, then.Time, "old")),
			infeasible: true,
			code:       "NotFound",
			message:    "new",
			want:       claim(withResizeStatus(infeasible), testobj.Condition(nodeError, then.Time, "kubelet"), testobj.Condition(ctrlError, then.Time, "new"), withReason(ctrlError, "NotFound")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkBuilder(t, tc.in, tc.want, func(pvc *v1.PersistentVolumeClaim, at metav1.Time) *v1.PersistentVolumeClaim {
				return ResizeFailed(pvc, tc.infeasible, tc.code, tc.message, at)
			})
		})
	}
}

func TestErrorRecorded(t *testing.T) {
	tests := []struct {
		name string
		in   *v1.PersistentVolumeClaim
		want bool
	}{
		{name: "no conditions", in: claim(), want: false},
		{name: "ControllerResizeError=True", in: claim(testobj.Condition(resizing, then.Time, ""), testobj.Condition(ctrlError, then.Time, "x")), want: true},
		{name: "ControllerResizeError=False", in: claim(withCondition(ctrlError, v1.ConditionFalse, "", then)), want: false},
		{name: "only kubelet's NodeResizeError", in: claim(testobj.Condition(nodeError, then.Time, "x")), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ErrorRecorded(tc.in); got != tc.want {
				t.Errorf("ErrorRecorded() = %v, want %v", got, tc.want)
			}
		})
	}
}

// volume is testobj's 1Gi PV of claim(), pv-1 of handle vol-1, UID uid-pv
// at resourceVersion 7, changed by opts.
func volume(opts ...testobj.VolumeOpt) *v1.PersistentVolume {
	at7 := func(pv *v1.PersistentVolume) { pv.UID, pv.ResourceVersion = "uid-pv", "7" }
	return testobj.Volume(claim(), "csi.example.com", "1Gi", append([]testobj.VolumeOpt{testobj.Handle("vol-1"), at7}, opts...)...)
}

func withSize(size string) testobj.VolumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.Capacity[v1.ResourceStorage] = q(size) }
}

func withoutSize() testobj.VolumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.Capacity = nil }
}

func withVolumeAnnotation(key, value string) testobj.VolumeOpt {
	return func(pv *v1.PersistentVolume) {
		if pv.Annotations == nil {
			pv.Annotations = map[string]string{}
		}
		pv.Annotations[key] = value
	}
}

func TestVolumeWithCapacity(t *testing.T) {
	oneGi := q("1Gi")
	tests := []struct {
		name      string
		in        *v1.PersistentVolume
		size      string
		preResize *resource.Quantity
		want      *v1.PersistentVolume
	}{
		{name: "raised", in: volume(), size: "2Gi", want: volume(withSize("2Gi"))},
		{name: "never lowered", in: volume(withSize("3Gi")), size: "2Gi", want: volume(withSize("3Gi"))},
		{name: "same size", in: volume(), size: "1Gi", want: volume()},
		{name: "no capacity at all", in: volume(withoutSize()), size: "2Gi", want: volume(withSize("2Gi"))},
		{
			name: "pre-resize capacity when given", in: volume(), size: "2Gi", preResize: &oneGi,
			want: volume(withSize("2Gi"), withVolumeAnnotation(AnnPreResizeCapacity, "1Gi")),
		},
		{
			name: "pre-resize capacity beside other annotations",
			in:   volume(withVolumeAnnotation("pv.kubernetes.io/provisioned-by", "csi.example.com")),
			size: "2Gi", preResize: &oneGi,
			want: volume(withSize("2Gi"), withVolumeAnnotation("pv.kubernetes.io/provisioned-by", "csi.example.com"),
				withVolumeAnnotation(AnnPreResizeCapacity, "1Gi")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.DeepCopy()
			got := VolumeWithCapacity(tc.in, q(tc.size), tc.preResize)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("wrong volume (-got +want):\n%s", diff.Diff(got, tc.want))
			}
			if !reflect.DeepEqual(tc.in, before) {
				t.Errorf("input changed (-now +before):\n%s", diff.Diff(tc.in, before))
			}
			if again := VolumeWithCapacity(got, q(tc.size), tc.preResize); !reflect.DeepEqual(again, got) {
				t.Errorf("repeated step changed the volume (-again +first):\n%s", diff.Diff(again, got))
			}
		})
	}
}
