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
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ModifyIntent returns a copy of pvc that records target as being applied
// by the driver: modifyVolumeStatus InProgress, ModifyingVolume=True, and no
// ModifyVolumeError. The conditions of one class share one transition time,
// when the resizer began modifying to it: ModifyingVolume keeps its time
// while the target stays, and ModifyFailed gives ModifyVolumeError the same,
// so a claim that keeps failing shows how long it has been stuck.
func ModifyIntent(pvc *v1.PersistentVolumeClaim, target string, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	setModifyStatus(out, target, v1.PersistentVolumeClaimModifyVolumeInProgress)
	out.Status.Conditions = modifyConditions.merge(conditionsTowards(pvc, target, now), now,
		condition(v1.PersistentVolumeClaimVolumeModifyingVolume, fmt.Sprintf("Modifying volume to %q is in progress.", target)))
	return out
}

// conditionsTowards returns a copy of pvc's conditions for a step towards
// target: without the modify conditions, and so their times, when pvc
// records another target.
func conditionsTowards(pvc *v1.PersistentVolumeClaim, target string, now metav1.Time) []v1.PersistentVolumeClaimCondition {
	if r := pvc.Status.ModifyVolumeStatus; r != nil && r.TargetVolumeAttributesClassName == target {
		return pvc.DeepCopy().Status.Conditions
	}
	return modifyConditions.merge(pvc.Status.Conditions, now)
}

// ModifyFailure is a failed modification as the claim records it.
type ModifyFailure struct {
	Target string
	// Infeasible marks the target Infeasible; otherwise it stays InProgress.
	Infeasible bool
	// Uncertain is true when the call may still complete in the backend.
	Uncertain bool
	// Reason is the gRPC code's name (see decide.ReasonOf).
	Reason  string
	Message string
}

// ModifyFailed returns a copy of pvc recording a failed modification: the
// status, ModifyingVolume saying what happens next, and ModifyVolumeError
// with the code as reason and now as probe time, which the slow retry of
// an infeasible class reads after a restart.
func ModifyFailed(pvc *v1.PersistentVolumeClaim, f ModifyFailure, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	status, progress := v1.PersistentVolumeClaimModifyVolumeInProgress, "failed. Waiting for retry."
	switch {
	case f.Infeasible:
		status, progress = v1.PersistentVolumeClaimModifyVolumeInfeasible, "is infeasible. Waiting for the class to change."
	case f.Uncertain:
		progress = "is still in progress."
	}
	setModifyStatus(out, f.Target, status)
	conditions := conditionsTowards(pvc, f.Target, now)
	failure := condition(v1.PersistentVolumeClaimVolumeModifyVolumeError, f.Message)
	failure.Reason, failure.LastProbeTime = f.Reason, now
	if modifying := Find(conditions, v1.PersistentVolumeClaimVolumeModifyingVolume); modifying != nil {
		failure.LastTransitionTime = modifying.LastTransitionTime
	}
	out.Status.Conditions = modifyConditions.merge(conditions, now,
		condition(v1.PersistentVolumeClaimVolumeModifyingVolume, fmt.Sprintf("Modifying volume to %q %s", f.Target, progress)),
		failure)
	return out
}

// ModifyPending returns a copy of pvc waiting for target's class to be
// created: modifyVolumeStatus Pending. The conditions stay, as upstream
// keeps them: what was last done to the volume stays visible.
func ModifyPending(pvc *v1.PersistentVolumeClaim, target string) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	setModifyStatus(out, target, v1.PersistentVolumeClaimModifyVolumePending)
	return out
}

// Modified returns a copy of pvc whose volume is now of class target:
// currentVolumeAttributesClassName, no modifyVolumeStatus, no modify
// conditions.
func Modified(pvc *v1.PersistentVolumeClaim, target string, now metav1.Time) *v1.PersistentVolumeClaim {
	out := ModifyCleared(pvc, now)
	out.Status.CurrentVolumeAttributesClassName = &target
	return out
}

// ModifyCleared returns a copy of pvc without any record of a modification:
// no modifyVolumeStatus, no modify conditions.
func ModifyCleared(pvc *v1.PersistentVolumeClaim, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	out.Status.ModifyVolumeStatus = nil
	out.Status.Conditions = modifyConditions.merge(out.Status.Conditions, now)
	return out
}

// VolumeWithClass returns a copy of pv of spec.volumeAttributesClassName class.
func VolumeWithClass(pv *v1.PersistentVolume, class string) *v1.PersistentVolume {
	out := pv.DeepCopy()
	out.Spec.VolumeAttributesClassName = &class
	return out
}

// RecordedModifyError is the claim's ModifyVolumeError condition: its
// reason (a gRPC code's name) and when it was recorded; ok is false when
// there is none.
func RecordedModifyError(pvc *v1.PersistentVolumeClaim) (reason string, at time.Time, ok bool) {
	c := Find(pvc.Status.Conditions, v1.PersistentVolumeClaimVolumeModifyVolumeError)
	if c == nil {
		return "", time.Time{}, false
	}
	at = c.LastProbeTime.Time
	if at.IsZero() {
		at = c.LastTransitionTime.Time
	}
	return c.Reason, at, true
}

// Modifying reports whether pvc carries the ModifyingVolume condition.
func Modifying(pvc *v1.PersistentVolumeClaim) bool {
	return Find(pvc.Status.Conditions, v1.PersistentVolumeClaimVolumeModifyingVolume) != nil
}

// Find returns condition t of conditions when it is True; nil otherwise.
func Find(conditions []v1.PersistentVolumeClaimCondition, t v1.PersistentVolumeClaimConditionType) *v1.PersistentVolumeClaimCondition {
	for i, c := range conditions {
		if c.Type == t && c.Status == v1.ConditionTrue {
			return &conditions[i]
		}
	}
	return nil
}

func setModifyStatus(pvc *v1.PersistentVolumeClaim, target string, s v1.PersistentVolumeClaimModifyVolumeStatus) {
	pvc.Status.ModifyVolumeStatus = &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: target, Status: s}
}
