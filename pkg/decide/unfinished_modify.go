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

	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// Conditions of a modification, shorter.
const (
	modifying   = v1.PersistentVolumeClaimVolumeModifyingVolume
	modifyError = v1.PersistentVolumeClaimVolumeModifyVolumeError
)

// UnfinishedModify returns the state of c's modification; ok is false when none is
// unfinished. The state is status.modifyVolumeStatus.status: Pending is
// pending, InProgress in_progress (also after a failure that is retried),
// Infeasible infeasible. A claim whose spec names a class that no attempt
// has recorded yet is in no state.
//
// Since is the transition time of the first of these conditions the claim
// carries as True:
//
//	pending      ModifyingVolume; the resizer clears the modify conditions
//	             while the class is missing, so it is unknown for the
//	             claims it records
//	in_progress  ModifyingVolume: when the resizer began modifying to the
//	             class; retries keep it
//	infeasible   ModifyVolumeError, else ModifyingVolume: the same time
//	             (the resizer carries it while the class stays), so the
//	             slow retries of an infeasible class keep it
func UnfinishedModify(c *slim.Claim) (e Entry, ok bool) {
	if c.Classes == nil || c.Classes.Modify == nil {
		return Entry{}, false
	}
	switch c.Classes.Modify.Status {
	case v1.PersistentVolumeClaimModifyVolumePending:
		return since(c, Key{OpModify, ModifyPending}, modifying), true
	case v1.PersistentVolumeClaimModifyVolumeInProgress:
		return since(c, Key{OpModify, ModifyInProgress}, modifying, modifyError), true
	case v1.PersistentVolumeClaimModifyVolumeInfeasible:
		return since(c, Key{OpModify, ModifyInfeasible}, modifyError, modifying), true
	}
	return Entry{}, false
}
