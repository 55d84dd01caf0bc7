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

package plugin

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-resizer/csi-resizer/pkg/events"
)

func TestExplainModify(t *testing.T) {
	t1 := now.Add(-time.Minute)
	const refused = `modify volume "pv-data" to class "gold": rpc error: code = InvalidArgument desc = iops 64000 is above the limit`
	tests := []struct {
		name string
		objs []runtime.Object
		want want
	}{{
		name: "no class",
		objs: []runtime.Object{claim("1Gi", "1Gi")},
		want: want{state: StateNone, by: ByNone, action: "none", says: []string{"No VolumeAttributesClass is asked for."}},
	}, {
		name: "at its class",
		objs: []runtime.Object{claim("1Gi", "1Gi", classes("gold", "gold")), vac("gold", driver)},
		want: want{state: StateNone, by: ByNone, action: "none", says: []string{`The volume is at the class the claim asks for, "gold".`}},
	}, {
		name: "a new class, nothing recorded yet",
		objs: []runtime.Object{claim("1Gi", "1Gi", classes("gold", "silver")), vac("gold", driver), vac("silver", driver)},
		want: want{state: StateNone, by: ByResizer, action: "modify", target: "gold", says: []string{"no modification is recorded yet"}},
	}, {
		name: "pending: the class does not exist",
		objs: []runtime.Object{claim("1Gi", "1Gi", classes("gold", "silver"), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumePending)), vac("silver", driver)},
		want: want{state: "pending", by: ByUser, action: "pend", target: "gold",
			says: []string{`asks for VolumeAttributesClass "gold", which does not exist`, "starts the modification when the class is created",
				`Create VolumeAttributesClass "gold" with driverName ebs.csi.example.com`, `set spec.volumeAttributesClassName back to "silver"`}},
	}, {
		name: "pending, the class created since",
		objs: []runtime.Object{claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumePending)), vac("gold", driver)},
		want: want{state: "pending", by: ByResizer, action: "modify", target: "gold", says: []string{"exists now", "starts the modification at once"}},
	}, {
		name: "in_progress, processed right now",
		objs: []runtime.Object{
			claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInProgress),
				condition(v1.PersistentVolumeClaimVolumeModifyingVolume, t1, `Modifying volume to "gold" is in progress.`)),
			vac("gold", driver), event(events.ReasonModify, "external resizer is modifying volume data with vac gold", t1),
		},
		want: want{state: "in_progress", by: ByDriver, action: "modify", target: "gold", since: t1,
			says: []string{`The driver is applying class "gold": the resizer called it 1m ago (event VolumeModify)`, `class "gold" must be finished first`}},
	}, {
		name: "in_progress after an uncertain failure, another class asked for since",
		objs: []runtime.Object{
			claim("1Gi", "1Gi", classes("silver", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInProgress),
				condition(v1.PersistentVolumeClaimVolumeModifyingVolume, t0, ""), modifyError("DeadlineExceeded", t1, "timed out")),
			vac("gold", driver), vac("silver", driver),
			event(events.ReasonModify, "external resizer is modifying volume data with vac gold", t0),
			event(events.ReasonModifyFailed, `modify volume "pv-data" to class "gold": rpc error: code = DeadlineExceeded desc = timed out`, t1),
		},
		want: want{state: "in_progress", by: ByResizer, action: "modify", target: "gold", since: t0,
			says: []string{"Its last call got no final answer", `calls the driver again for class "gold", which is finished before any other class`,
				`The class the claim asks for now, "silver", is applied once "gold" is done.`}},
	}, {
		name: "in_progress after a final failure",
		objs: []runtime.Object{
			claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInProgress),
				condition(v1.PersistentVolumeClaimVolumeModifyingVolume, t0, ""), modifyError("Internal", t1, "backend down")),
			vac("gold", driver),
		},
		want: want{state: "in_progress", by: ByResizer, action: "modify", target: "gold", since: t0,
			says: []string{`was a final failure (Internal): backend down`, "tries again with backoff"}},
	}, {
		name: "infeasible, waiting for the slow retry",
		objs: []runtime.Object{
			claim("1Gi", "1Gi", classes("gold", "silver"), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInfeasible),
				condition(v1.PersistentVolumeClaimVolumeModifyingVolume, t1, ""), modifyError("InvalidArgument", t1, refused)),
			vac("gold", driver), vac("silver", driver),
		},
		want: want{state: "infeasible", by: ByUser, action: "wait", target: "gold", since: t1,
			says: []string{`The driver refused class "gold" as infeasible: ` + refused, `retries class "gold" in about 4m`, `back to "silver"`}},
	}, {
		name: "infeasible, the slow retry due",
		objs: []runtime.Object{
			claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInfeasible),
				modifyError("InvalidArgument", t0, refused)),
			vac("gold", driver),
		},
		want: want{state: "infeasible", by: ByResizer, action: "modify", target: "gold", since: t0, says: []string{"Its slow retry is due"}},
	}, {
		name: "infeasible: a class of another driver",
		objs: []runtime.Object{
			claim("1Gi", "1Gi", classes("other", ""), modifyStatus("other", v1.PersistentVolumeClaimModifyVolumeInfeasible),
				modifyError("InvalidArgument", t1, "refused")),
			vac("other", "other.csi.example.com"),
		},
		want: want{state: "infeasible", by: ByUser, action: "refuse", target: "other", since: t1,
			says: []string{`VolumeAttributesClass "other" is for driver "other.csi.example.com"`, "Set spec.volumeAttributesClassName to a class of driver ebs.csi.example.com",
				"remove spec.volumeAttributesClassName"}},
	}, {
		name: "set back to the current class",
		objs: []runtime.Object{
			claim("1Gi", "1Gi", classes("silver", "silver"), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInfeasible), modifyError("InvalidArgument", t1, "no")),
			vac("gold", driver), vac("silver", driver),
		},
		want: want{state: "infeasible", by: ByResizer, action: "cancel", target: "gold", since: t1, says: []string{"drops the recorded modification without calling the driver"}},
	}, {
		name: "in_progress, its class deleted",
		objs: []runtime.Object{
			claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInProgress), condition(v1.PersistentVolumeClaimVolumeModifyingVolume, t1, "")),
		},
		want: want{state: "in_progress", by: ByUser, action: "blocked", target: "gold", since: t1,
			says: []string{"no longer exists", `Create VolumeAttributesClass "gold" again, with driverName ebs.csi.example.com`}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := tc.objs[0].(*v1.PersistentVolumeClaim)
			objs := append([]runtime.Object{volume(pvc, "1Gi"), freshLease()}, tc.objs...)
			checkOperation(t, operation(t, explainObjects(t, Request{}, objs...), "modify"), tc.want)
		})
	}
}
