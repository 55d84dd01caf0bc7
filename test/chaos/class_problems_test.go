//go:build chaos

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

package chaos

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// modifyConditions are the claim conditions of volume modification.
var modifyConditions = []v1.PersistentVolumeClaimConditionType{
	v1.PersistentVolumeClaimVolumeModifyingVolume, v1.PersistentVolumeClaimVolumeModifyVolumeError,
}

// isModify reports whether c is a condition of volume modification.
func isModify(c v1.PersistentVolumeClaimCondition) bool {
	return slices.Contains(modifyConditions, c.Type)
}

// notModify reports whether c is not a condition of volume modification:
// one of expansion, or of kubelet.
func notModify(c v1.PersistentVolumeClaimCondition) bool { return !isModify(c) }

// classProblems lists the claims of l that are not at the class they last
// asked for: spec, status.currentVolumeAttributesClassName and the PV's
// spec.volumeAttributesClassName all at it (all unset for a claim that
// never asked for one), and no modifyVolumeStatus or modify condition left.
func (cs *claims) classProblems(l *listing) []string {
	want := make(map[claim]string, len(cs.list))
	cs.mu.Lock()
	for _, cl := range cs.list {
		want[cl] = cs.class[cl]
	}
	cs.mu.Unlock()
	var problems []string
	seen := 0
	for i := range l.pvcs {
		pvc := &l.pvcs[i]
		cl := claim{ns: pvc.Namespace, name: pvc.Name}
		class, ours := want[cl]
		if !ours {
			continue
		}
		seen++
		spec := ptr.Deref(pvc.Spec.VolumeAttributesClassName, "")
		current := ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, "")
		var pvClass string
		if pv := l.pvs[cl.pv()]; pv != nil {
			pvClass = ptr.Deref(pv.Spec.VolumeAttributesClassName, "")
		}
		switch {
		case spec != class:
			problems = append(problems, fmt.Sprintf("%s: spec class %q, want %q", pvc.Name, spec, class))
		case current != class || pvc.Status.ModifyVolumeStatus != nil || slices.ContainsFunc(pvc.Status.Conditions, isModify):
			problems = append(problems, fmt.Sprintf("%s: %s, want class %q", pvc.Name, describeClass(pvc), class))
		case pvClass != class:
			problems = append(problems, fmt.Sprintf("%s: PV class %q, want %q", pvc.Name, pvClass, class))
		}
	}
	if seen != len(want) {
		problems = append(problems, fmt.Sprintf("%d of %d claims listed", seen, len(want)))
	}
	return problems
}

// describeClass is a one-line summary of a claim's class state.
func describeClass(pvc *v1.PersistentVolumeClaim) string {
	status := "none"
	if s := pvc.Status.ModifyVolumeStatus; s != nil {
		status = fmt.Sprintf("%s to %q", s.Status, s.TargetVolumeAttributesClassName)
	}
	var conds []string
	for _, c := range pvc.Status.Conditions {
		conds = append(conds, string(c.Type))
	}
	return fmt.Sprintf("spec class %q, current %q, modifyVolumeStatus %s, conditions %v",
		ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""), ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, ""), status, conds)
}
