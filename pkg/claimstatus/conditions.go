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
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// conditionSet is a set of condition types one operation owns. Merging the
// conditions of one operation keeps every other condition as it is: the
// other operation's, and kubelet's NodeResizeError.
type conditionSet map[v1.PersistentVolumeClaimConditionType]bool

// resizeConditions are the conditions the resize steps own.
var resizeConditions = conditionSet{
	v1.PersistentVolumeClaimResizing:                true,
	v1.PersistentVolumeClaimFileSystemResizePending: true,
	v1.PersistentVolumeClaimControllerResizeError:   true,
}

// modifyConditions are the conditions the modify steps own.
var modifyConditions = conditionSet{
	v1.PersistentVolumeClaimVolumeModifyingVolume:   true,
	v1.PersistentVolumeClaimVolumeModifyVolumeError: true,
}

func condition(t v1.PersistentVolumeClaimConditionType, message string) v1.PersistentVolumeClaimCondition {
	return v1.PersistentVolumeClaimCondition{Type: t, Status: v1.ConditionTrue, Message: message}
}

// merge replaces the conditions of owned in existing with set. A condition
// that was already true keeps its place and transition time, and its probe
// time unless set gives one, so that repeating a step writes nothing new. A
// new condition's transition time is now, unless set gives one (a step that
// carries when its attempt began).
func (owned conditionSet) merge(existing []v1.PersistentVolumeClaimCondition, now metav1.Time, set ...v1.PersistentVolumeClaimCondition) []v1.PersistentVolumeClaimCondition {
	wanted := make(map[v1.PersistentVolumeClaimConditionType]v1.PersistentVolumeClaimCondition, len(set))
	for _, c := range set {
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
		}
		wanted[c.Type] = c
	}
	var out []v1.PersistentVolumeClaimCondition
	for _, old := range existing {
		if !owned[old.Type] {
			out = append(out, old)
			continue
		}
		c, ok := wanted[old.Type]
		if !ok {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
			if c.LastProbeTime.IsZero() {
				c.LastProbeTime = old.LastProbeTime
			}
		}
		out = append(out, c)
		delete(wanted, old.Type)
	}
	for _, c := range set {
		if w, ok := wanted[c.Type]; ok {
			out = append(out, w)
		}
	}
	return out
}
