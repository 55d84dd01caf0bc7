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
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

func TestModifyOf(t *testing.T) {
	const (
		pending    = v1.PersistentVolumeClaimModifyVolumePending
		inProgress = v1.PersistentVolumeClaimModifyVolumeInProgress
		infeasible = v1.PersistentVolumeClaimModifyVolumeInfeasible
	)
	var none Entry
	tests := []struct {
		name  string
		claim *slim.Claim
		want  Entry
	}{
		{name: "pending as the resizer records it: since unknown",
			claim: claim(modifyStatus(pending)),
			want:  entry(OpModify, ModifyPending, time.Time{}, "")},
		{name: "pending with a ModifyingVolume of another writer",
			claim: claim(modifyStatus(pending), condition(modifying, t1)),
			want:  entry(OpModify, ModifyPending, t1, modifying)},
		{name: "in progress since ModifyingVolume",
			claim: claim(modifyStatus(inProgress), condition(modifying, t1)),
			want:  entry(OpModify, ModifyInProgress, t1, modifying)},
		{name: "in progress after a failure: still since the attempt",
			claim: claim(modifyStatus(inProgress), condition(modifying, t1), condition(modifyError, t2)),
			want:  entry(OpModify, ModifyInProgress, t1, modifying)},
		{name: "in progress with only ModifyVolumeError",
			claim: claim(modifyStatus(inProgress), condition(modifyError, t2)),
			want:  entry(OpModify, ModifyInProgress, t2, modifyError)},
		{name: "in progress without conditions: since unknown",
			claim: claim(modifyStatus(inProgress)),
			want:  entry(OpModify, ModifyInProgress, time.Time{}, "")},
		{name: "infeasible since ModifyVolumeError",
			claim: claim(modifyStatus(infeasible), condition(modifying, t1), condition(modifyError, t2)),
			want:  entry(OpModify, ModifyInfeasible, t2, modifyError)},
		{name: "infeasible without ModifyVolumeError: since ModifyingVolume",
			claim: claim(modifyStatus(infeasible), condition(modifying, t1)),
			want:  entry(OpModify, ModifyInfeasible, t1, modifying)},
		{name: "infeasible with a ModifyVolumeError that is not True",
			claim: claim(modifyStatus(infeasible), conditionWith(modifyError, v1.ConditionFalse, t2)),
			want:  entry(OpModify, ModifyInfeasible, time.Time{}, "")},

		{name: "no class fields", claim: claim(), want: none},
		{name: "a class at its target", claim: claim(withClasses("gold", "gold")), want: none},
		{name: "a new class no attempt has recorded yet", claim: claim(withClasses("gold", "silver")), want: none},
		{name: "modify conditions without a status", claim: claim(withClasses("gold", "silver"), condition(modifying, t1)), want: none},
		{name: "a status this package does not know", claim: claim(modifyStatus("SomethingNew"), condition(modifying, t1)), want: none},
		{name: "an empty status", claim: claim(modifyStatus("")), want: none},
		{name: "only resize conditions", claim: claim(condition(resizing, t1)), want: none},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := UnfinishedModify(tc.claim)
			if ok != (tc.want != none) || got != tc.want {
				t.Errorf("ModifyOf = %+v, %v; want %+v, %v", got, ok, tc.want, tc.want != none)
			}
		})
	}
}
