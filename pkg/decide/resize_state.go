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
	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

// ResizeStateOf reads the State of pvc and its volume pv. last is what the
// resizer remembers of the claim's last failed attempt (nil after a
// restart, or for a reader that is not the resizer); recovery is the
// RecoverVolumeExpansionFailure gate.
func ResizeStateOf(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, recovery bool, last *ResizeFailure) ResizeState {
	s := ResizeState{
		Request:       pvc.Spec.Resources.Requests[v1.ResourceStorage],
		Capacity:      pvc.Status.Capacity[v1.ResourceStorage],
		PVSize:        pv.Spec.Capacity[v1.ResourceStorage],
		Status:        pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage],
		ErrorRecorded: claimstatus.ErrorRecorded(pvc),
		LastFailure:   last,
		Recovery:      recovery,
	}
	if a, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]; ok {
		s.Allocated = &a
	}
	return s
}
