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

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"
)

func cond(t v1.PersistentVolumeClaimConditionType, status v1.ConditionStatus, message string, at metav1.Time) v1.PersistentVolumeClaimCondition {
	return v1.PersistentVolumeClaimCondition{Type: t, Status: status, Message: message, LastTransitionTime: at}
}

func conds(c ...v1.PersistentVolumeClaimCondition) []v1.PersistentVolumeClaimCondition { return c }

func TestMergeConditions(t *testing.T) {
	probed := cond(resizing, v1.ConditionTrue, "", then)
	probed.LastProbeTime = then
	tests := []struct {
		name     string
		existing []v1.PersistentVolumeClaimCondition
		set      []v1.PersistentVolumeClaimCondition
		want     []v1.PersistentVolumeClaimCondition
	}{
		{name: "nothing to nothing", want: nil},
		{
			name: "new condition gets now",
			set:  conds(cond(resizing, v1.ConditionTrue, "", metav1.Time{})),
			want: conds(cond(resizing, v1.ConditionTrue, "", now)),
		},
		{
			name:     "true stays true: keeps transition and probe time, takes the new message",
			existing: conds(probed),
			set:      conds(cond(resizing, v1.ConditionTrue, "again", metav1.Time{})),
			want: conds(v1.PersistentVolumeClaimCondition{
				Type: resizing, Status: v1.ConditionTrue, Message: "again", LastTransitionTime: then, LastProbeTime: then,
			}),
		},
		{
			name:     "false to true: a new transition",
			existing: conds(cond(ctrlError, v1.ConditionFalse, "", then)),
			set:      conds(cond(ctrlError, v1.ConditionTrue, "boom", metav1.Time{})),
			want:     conds(cond(ctrlError, v1.ConditionTrue, "boom", now)),
		},
		{
			name:     "the resizer's conditions not set are removed",
			existing: conds(cond(resizing, v1.ConditionTrue, "", then), cond(fsPending, v1.ConditionTrue, fsPendingMessage, then), cond(ctrlError, v1.ConditionTrue, "x", then)),
			want:     nil,
		},
		{
			name: "kubelet's NodeResizeError and unrelated conditions are kept in order",
			existing: conds(cond(nodeError, v1.ConditionTrue, "kubelet", then), cond(resizing, v1.ConditionTrue, "", then),
				cond(modifyingVol, v1.ConditionTrue, "", then)),
			set: conds(cond(ctrlError, v1.ConditionTrue, "boom", metav1.Time{})),
			want: conds(cond(nodeError, v1.ConditionTrue, "kubelet", then), cond(modifyingVol, v1.ConditionTrue, "", then),
				cond(ctrlError, v1.ConditionTrue, "boom", now)),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]v1.PersistentVolumeClaimCondition(nil), tc.existing...)
			got := resizeConditions.merge(tc.existing, now, tc.set...)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("wrong conditions (-got +want):\n%s", diff.Diff(got, tc.want))
			}
			if !reflect.DeepEqual(tc.existing, before) {
				t.Errorf("existing conditions changed (-now +before):\n%s", diff.Diff(tc.existing, before))
			}
		})
	}
}

// TestMergeConditionsKeepsPosition pins a known defect: mergeConditions
// moves the resizer's conditions behind all others, so a claim where kubelet
// (or anyone) appended a condition after Resizing is reordered by a step
// that changes nothing else, and PatchClaim then sends a patch carrying only
// $setElementOrder/conditions: a needless write that can also conflict.
func TestMergeConditionsKeepsPosition(t *testing.T) {
	existing := conds(cond(resizing, v1.ConditionTrue, "", then), cond(nodeError, v1.ConditionTrue, "kubelet", then))
	got := resizeConditions.merge(existing, now, cond(resizing, v1.ConditionTrue, "", metav1.Time{}))
	if !reflect.DeepEqual(got, existing) {
		t.Errorf("unchanged conditions were reordered (-got +want):\n%s", diff.Diff(got, existing))
	}
}
