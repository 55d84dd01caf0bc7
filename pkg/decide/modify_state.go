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
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

// ClassDriver returns the driver of the VolumeAttributesClass called name;
// ok is false when no such class exists.
type ClassDriver func(name string) (driver string, ok bool)

// ModifyStateOf reads the State the resizer of driver decides on for pvc and its
// volume pv. classes looks up the classes the claim names; last is what the
// resizer remembers of the claim's last failed modification (nil after a
// restart, or for a reader that is not the resizer).
func ModifyStateOf(driver string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, classes ClassDriver, last *ModifyFailure) ModifyState {
	s := ModifyState{
		Driver:      driver,
		Spec:        ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""),
		Current:     ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, ""),
		Modifying:   claimstatus.Modifying(pvc),
		LastFailure: last,
		Classes:     map[string]string{},
	}
	if r := pvc.Status.ModifyVolumeStatus; r != nil {
		s.Recorded = &Recorded{Target: r.TargetVolumeAttributesClassName, Status: r.Status}
	}
	if reason, at, ok := claimstatus.RecordedModifyError(pvc); ok {
		s.ErrorCode, s.ErrorAt = reason, at
		if reason == "" {
			s.ErrorCode = ReasonUncertain
		}
	}
	for _, name := range []string{s.Spec, ptr.Deref(pvc.Status.ModifyVolumeStatus, v1.ModifyVolumeStatus{}).TargetVolumeAttributesClassName} {
		if d, ok := classes(name); name != "" && ok {
			s.Classes[name] = d
		}
	}
	if pv.Spec.CSI == nil {
		s.NotCSI = fmt.Sprintf("volume %q is an in-tree volume migrated to CSI: Kubernetes allows a VolumeAttributesClass on CSI volumes only", pv.Name)
	}
	return s
}
