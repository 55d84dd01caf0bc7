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
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const modifyError = v1.PersistentVolumeClaimVolumeModifyVolumeError

func withCurrentClass(class string) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) { pvc.Status.CurrentVolumeAttributesClassName = &class }
}

func withModifyError(reason, message string) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: modifyError, Status: v1.ConditionTrue, Reason: reason, Message: message, LastProbeTime: then, LastTransitionTime: then})
	}
}

const (
	modPending    = v1.PersistentVolumeClaimModifyVolumePending
	modProgress   = v1.PersistentVolumeClaimModifyVolumeInProgress
	modInfeasible = v1.PersistentVolumeClaimModifyVolumeInfeasible
)

func TestModifyBuilders(t *testing.T) {
	failure := func(reason, message string) testobj.ClaimOpt {
		return func(pvc *v1.PersistentVolumeClaim) {
			pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
				Type: modifyError, Status: v1.ConditionTrue, Reason: reason, Message: message, LastProbeTime: now, LastTransitionTime: then})
		}
	}
	tests := []struct {
		name  string
		in    *v1.PersistentVolumeClaim
		build func(*v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim
		want  *v1.PersistentVolumeClaim
	}{
		{
			name:  "intent keeps resize conditions",
			in:    claim(testobj.Condition(resizing, then.Time, "")),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim { return ModifyIntent(p, "gold", now) },
			want:  claim(testobj.Condition(resizing, then.Time, ""), testobj.ModifyStatus("gold", modProgress), testobj.Condition(modifyingVol, now.Time, `Modifying volume to "gold" is in progress.`)),
		},
		{
			name:  "a retry clears the error and keeps when the resizer began modifying to the class",
			in:    claim(testobj.ModifyStatus("gold", modProgress), testobj.Condition(modifyingVol, then.Time, `Modifying volume to "gold" failed. Waiting for retry.`), withModifyError("Internal", "boom")),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim { return ModifyIntent(p, "gold", now) },
			want:  claim(testobj.ModifyStatus("gold", modProgress), testobj.Condition(modifyingVol, then.Time, `Modifying volume to "gold" is in progress.`)),
		},
		{
			name:  "another class clears the error and starts a new time",
			in:    claim(testobj.ModifyStatus("gold", modInfeasible), testobj.Condition(modifyingVol, then.Time, `Modifying volume to "gold" is infeasible. Waiting for the class to change.`), withModifyError("InvalidArgument", "no")),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim { return ModifyIntent(p, "silver", now) },
			want:  claim(testobj.ModifyStatus("silver", modProgress), testobj.Condition(modifyingVol, now.Time, `Modifying volume to "silver" is in progress.`)),
		},
		{
			name: "a failure at another class than the recorded one starts a new time",
			in:   claim(testobj.ModifyStatus("gold", modInfeasible), testobj.Condition(modifyingVol, then.Time, `Modifying volume to "gold" is infeasible. Waiting for the class to change.`), withModifyError("InvalidArgument", "no")),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
				return ModifyFailed(p, ModifyFailure{Target: "silver", Infeasible: true, Reason: "InvalidArgument", Message: "other driver"}, now)
			},
			want: claim(testobj.ModifyStatus("silver", modInfeasible), testobj.Condition(modifyingVol, now.Time, `Modifying volume to "silver" is infeasible. Waiting for the class to change.`),
				func(pvc *v1.PersistentVolumeClaim) {
					pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
						Type: modifyError, Status: v1.ConditionTrue, Reason: "InvalidArgument", Message: "other driver", LastProbeTime: now, LastTransitionTime: now})
				}),
		},
		{
			name: "uncertain failure stays in progress",
			in:   ModifyIntent(claim(), "gold", then),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
				return ModifyFailed(p, ModifyFailure{Target: "gold", Uncertain: true, Reason: "DeadlineExceeded", Message: "timeout"}, now)
			},
			want: claim(testobj.ModifyStatus("gold", modProgress), testobj.Condition(modifyingVol, then.Time, `Modifying volume to "gold" is still in progress.`), failure("DeadlineExceeded", "timeout")),
		},
		{
			name: "final failure stays in progress, waiting for retry",
			in:   ModifyIntent(claim(), "gold", then),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
				return ModifyFailed(p, ModifyFailure{Target: "gold", Reason: "Internal", Message: "boom"}, now)
			},
			want: claim(testobj.ModifyStatus("gold", modProgress), testobj.Condition(modifyingVol, then.Time, `Modifying volume to "gold" failed. Waiting for retry.`), failure("Internal", "boom")),
		},
		{
			name: "infeasible failure",
			in:   ModifyIntent(claim(), "gold", then),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
				return ModifyFailed(p, ModifyFailure{Target: "gold", Infeasible: true, Reason: "InvalidArgument", Message: "no"}, now)
			},
			want: claim(testobj.ModifyStatus("gold", modInfeasible), testobj.Condition(modifyingVol, then.Time, `Modifying volume to "gold" is infeasible. Waiting for the class to change.`), failure("InvalidArgument", "no")),
		},
		{
			name:  "pending keeps the conditions, as upstream",
			in:    claim(testobj.ModifyStatus("gold", modProgress), testobj.Condition(modifyingVol, then.Time, "x"), withModifyError("Internal", "boom"), testobj.Condition(nodeError, then.Time, "kubelet")),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim { return ModifyPending(p, "bronze") },
			want:  claim(testobj.ModifyStatus("bronze", modPending), testobj.Condition(modifyingVol, then.Time, "x"), withModifyError("Internal", "boom"), testobj.Condition(nodeError, then.Time, "kubelet")),
		},
		{
			name:  "modified: current class set, status and conditions gone, resize conditions kept",
			in:    claim(withCurrentClass("silver"), testobj.ModifyStatus("gold", modProgress), testobj.Condition(modifyingVol, then.Time, "x"), testobj.Condition(fsPending, then.Time, fsPendingMessage)),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim { return Modified(p, "gold", now) },
			want:  claim(withCurrentClass("gold"), testobj.Condition(fsPending, then.Time, fsPendingMessage)),
		},
		{
			name:  "cleared",
			in:    claim(withCurrentClass("silver"), testobj.ModifyStatus("gold", modInfeasible), testobj.Condition(modifyingVol, then.Time, "x"), withModifyError("InvalidArgument", "no")),
			build: func(p *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim { return ModifyCleared(p, now) },
			want:  claim(withCurrentClass("silver")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.DeepCopy()
			got := tc.build(tc.in)
			if !apiequality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("built claim (-got +want):\n%s", diff.Diff(got, tc.want))
			}
			if !apiequality.Semantic.DeepEqual(tc.in, before) {
				t.Error("the builder changed its input")
			}
		})
	}
}

func TestRecordedModifyError(t *testing.T) {
	reason, at, ok := RecordedModifyError(claim(withModifyError("InvalidArgument", "no")))
	if !ok || reason != "InvalidArgument" || !at.Equal(then.Time) {
		t.Errorf("RecordedModifyError = %q, %v, %v; want InvalidArgument at %v", reason, at, ok, then)
	}
	noProbe := claim(withModifyError("Internal", "x"))
	noProbe.Status.Conditions[0].LastProbeTime = metav1.Time{}
	if _, at, _ := RecordedModifyError(noProbe); !at.Equal(then.Time) {
		t.Errorf("without a probe time, at = %v, want the transition time %v", at, then)
	}
	if _, _, ok := RecordedModifyError(claim()); ok {
		t.Error("a claim without the condition has a recorded error")
	}
	if Modifying(claim()) || !Modifying(ModifyIntent(claim(), "gold", now)) {
		t.Error("Modifying does not follow the ModifyingVolume condition")
	}
}

func TestPatchModify(t *testing.T) {
	base := claim(withCurrentClass("silver"))
	tests := []struct {
		name    string
		old     *v1.PersistentVolumeClaim
		updated *v1.PersistentVolumeClaim
	}{
		{name: "intent", old: base, updated: ModifyIntent(base, "gold", now)},
		{name: "failed", old: ModifyIntent(base, "gold", then), updated: ModifyFailed(ModifyIntent(base, "gold", then), ModifyFailure{Target: "gold", Reason: "Internal", Message: "boom"}, now)},
		{name: "pending", old: base, updated: ModifyPending(base, "bronze")},
		{name: "modified", old: ModifyIntent(base, "gold", then), updated: Modified(ModifyIntent(base, "gold", then), "gold", now)},
		{name: "first class", old: ModifyIntent(claim(), "gold", then), updated: Modified(ModifyIntent(claim(), "gold", then), "gold", now)},
		{name: "cleared", old: ModifyPending(base, "bronze"), updated: ModifyCleared(ModifyPending(base, "bronze"), now)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.old)
			got, err := PatchClaim(context.Background(), kubetest.Wrap(client), tc.old, tc.updated)
			if err != nil {
				t.Fatalf("PatchClaim: %v", err)
			}
			onlyPatch(t, client, "persistentvolumeclaims", "status", "ns", "data")
			checkClaim(t, "returned", got, tc.updated)
		})
	}
}

func TestPatchVolumeClass(t *testing.T) {
	for _, old := range []*v1.PersistentVolume{volume(), VolumeWithClass(volume(), "silver")} {
		client := fake.NewClientset(old)
		got, err := PatchVolume(context.Background(), kubetest.Wrap(client), old, VolumeWithClass(old, "gold"))
		if err != nil {
			t.Fatalf("PatchVolume: %v", err)
		}
		onlyPatch(t, client, "persistentvolumes", "", "", "pv-1")
		if got.Spec.VolumeAttributesClassName == nil || *got.Spec.VolumeAttributesClassName != "gold" {
			t.Errorf("class after patch = %v, want gold", got.Spec.VolumeAttributesClassName)
		}
		if got.Spec.Capacity.Storage().Cmp(*old.Spec.Capacity.Storage()) != 0 {
			t.Errorf("capacity changed by a class patch: %v", got.Spec.Capacity)
		}
	}
	if p := volumePatch(VolumeWithClass(volume(), "gold"), VolumeWithClass(volume(), "gold")); len(p) != 0 {
		t.Errorf("same class gives patch %v", p)
	}
	if p := claimPatch(claim(withCurrentClass("gold")), claim()); p["status"].(patch)["currentVolumeAttributesClassName"] != nil {
		t.Errorf("removing the current class gives %v", p)
	}
}
