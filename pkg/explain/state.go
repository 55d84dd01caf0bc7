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

package explain

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/statuspatch"
	"github.com/csi-resizer/csi-resizer/pkg/modify"
	"github.com/csi-resizer/csi-resizer/pkg/resize"
)

// ResizeState is the resize.State the resizer decides on for pvc and its
// volume pv, built as pkg/controller builds it, without what only the
// resizer's memory holds: LastFailure is nil, as in a resizer that has
// just started. recovery is the RecoverVolumeExpansionFailure gate.
func ResizeState(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, recovery bool) resize.State {
	s := resize.State{
		Request:       pvc.Spec.Resources.Requests[v1.ResourceStorage],
		Capacity:      pvc.Status.Capacity[v1.ResourceStorage],
		PVSize:        pv.Spec.Capacity[v1.ResourceStorage],
		Status:        pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage],
		ErrorRecorded: statuspatch.ErrorRecorded(pvc),
		Recovery:      recovery,
	}
	if a, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]; ok {
		s.Allocated = &a
	}
	return s
}

// ModifyState is the modify.State the resizer of driver decides on for pvc
// and its volume pv, built as pkg/controller builds it, without the
// in-memory LastFailure. classes maps the names of the
// VolumeAttributesClasses that exist to their driver.
func ModifyState(driver string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, classes map[string]string) modify.State {
	s := modify.State{
		Driver:    driver,
		Spec:      ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""),
		Current:   ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, ""),
		Modifying: statuspatch.Modifying(pvc),
		Classes:   map[string]string{},
	}
	if r := pvc.Status.ModifyVolumeStatus; r != nil {
		s.Recorded = &modify.Recorded{Target: r.TargetVolumeAttributesClassName, Status: r.Status}
	}
	if reason, at, ok := statuspatch.RecordedModifyError(pvc); ok {
		s.ErrorCode, s.ErrorAt = reason, at
		if reason == "" {
			s.ErrorCode = modify.ReasonUncertain
		}
	}
	for _, name := range []string{s.Spec, ptr.Deref(pvc.Status.ModifyVolumeStatus, v1.ModifyVolumeStatus{}).TargetVolumeAttributesClassName} {
		if d, ok := classes[name]; name != "" && ok {
			s.Classes[name] = d
		}
	}
	if pv.Spec.CSI == nil {
		s.NotCSI = fmt.Sprintf("volume %q is an in-tree volume migrated to CSI: Kubernetes allows a VolumeAttributesClass on CSI volumes only", pv.Name)
	}
	return s
}
