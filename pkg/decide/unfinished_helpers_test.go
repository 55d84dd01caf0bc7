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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// Times the conditions of the test claims carry.
var (
	t1 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	t2 = t1.Add(time.Hour)
)

// option changes a test claim.
type option func(*slim.Claim)

// claim is a bound claim "ns/data" of 1Gi that requests 1Gi, changed by
// opts.
func claim(opts ...option) *slim.Claim {
	c := &slim.Claim{
		Meta:       slim.Meta{Name: "data", Namespace: "ns"},
		VolumeName: "pv-1",
		Phase:      v1.ClaimBound,
		Request:    quantity("1Gi"),
		Capacity:   quantity("1Gi"),
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

func quantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

// request sets the requested size.
func request(s string) option { return func(c *slim.Claim) { c.Request = quantity(s) } }

// allocated sets status.allocatedResources[storage].
func allocated(s string) option { return func(c *slim.Claim) { c.Allocated = quantity(s) } }

// withStatus sets status.allocatedResourceStatuses[storage].
func withStatus(s v1.ClaimResourceStatus) option {
	return func(c *slim.Claim) { c.ResizeStatus = &s }
}

// condition adds a True condition of type t that became so at.
func condition(t v1.PersistentVolumeClaimConditionType, at time.Time) option {
	return conditionWith(t, v1.ConditionTrue, at)
}

// conditionWith adds a condition of type t and status s that became so at.
func conditionWith(t v1.PersistentVolumeClaimConditionType, s v1.ConditionStatus, at time.Time) option {
	return func(c *slim.Claim) {
		c.Conditions = append(c.Conditions, v1.PersistentVolumeClaimCondition{
			Type: t, Status: s, LastTransitionTime: metav1.NewTime(at),
		})
	}
}

// modifyStatus sets status.modifyVolumeStatus to class gold in s.
func modifyStatus(s v1.PersistentVolumeClaimModifyVolumeStatus) option {
	return func(c *slim.Claim) {
		gold := "gold"
		c.Classes = &slim.ClaimClasses{Spec: &gold, Modify: &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: gold, Status: s}}
	}
}

// withClasses sets the class fields without a modifyVolumeStatus.
func withClasses(spec, current string) option {
	return func(c *slim.Claim) { c.Classes = &slim.ClaimClasses{Spec: &spec, Current: &current} }
}

// always says that every claim is held back by pods.
func always(*slim.Claim) bool { return true }

// never says that no claim is held back.
func never(*slim.Claim) bool { return false }

// entry is the expected entry of op and state since at, read from from.
func entry(op Operation, state Stage, at time.Time, from v1.PersistentVolumeClaimConditionType) Entry {
	return Entry{Key: Key{op, state}, Since: at, SinceFrom: from}
}
