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

// Conditions of a resize, shorter.
const (
	resizing           = v1.PersistentVolumeClaimResizing
	controllerError    = v1.PersistentVolumeClaimControllerResizeError
	fileSystemResizing = v1.PersistentVolumeClaimFileSystemResizePending
	nodeError          = v1.PersistentVolumeClaimNodeResizeError
)

// UnfinishedResize returns the state of c's expansion; ok is false when none is
// unfinished.
//
// The state is status.allocatedResourceStatuses[storage]:
//
//	ControllerResizeInProgress  controller_in_progress, or controller_error
//	                            with the condition ControllerResizeError
//	ControllerResizeInfeasible  controller_infeasible
//	NodeResizePending           node_pending
//	NodeResizeInProgress        node_in_progress
//	NodeResizeInfeasible        node_infeasible
//
// An API server that does not serve allocatedResourceStatuses (the gate
// RecoverVolumeExpansionFailure off) drops it; then the conditions decide:
// ControllerResizeError is controller_error, Resizing
// controller_in_progress, FileSystemResizePending node_pending.
//
// waiting_in_use replaces these when heldBack says that the resizer would
// call the driver now (resize.Decide says so: the caller asks it, as only
// the caller knows the claim's PV and what the resizer remembers) but pods
// using the claim hold the call back. An infeasible size the user has not
// changed stays infeasible: the pod is not what stops it.
//
// Since is the transition time of the first of these conditions the claim
// carries as True:
//
//	controller_in_progress  Resizing: when the resizer began expanding
//	                        to this size; retries keep it
//	controller_error        ControllerResizeError: the same time (the
//	                        resizer carries it from condition to
//	                        condition while the size stays), so a claim
//	                        that keeps failing shows how long it has
//	                        been stuck
//	controller_infeasible   ControllerResizeError, else Resizing; the
//	                        slow retries of the same size keep it
//	node_pending            FileSystemResizePending: when the volume was
//	                        handed to kubelet
//	node_in_progress        FileSystemResizePending (kubelet records no
//	                        time when it starts)
//	node_infeasible         NodeResizeError (kubelet's), else
//	                        FileSystemResizePending
//	waiting_in_use          Resizing, else ControllerResizeError: when the
//	                        resizer began expanding to the recorded size;
//	                        unknown for a request held back before any
//	                        attempt, which records nothing
func UnfinishedResize(c *slim.Claim, heldBack HeldBack) (e Entry, ok bool) {
	state, recorded := recordedResize(c)
	if heldBack != nil && heldBack(c) {
		return since(c, Key{OpResize, WaitingInUse}, resizing, controllerError), true
	}
	if !recorded {
		return Entry{}, false
	}
	return since(c, Key{OpResize, state}, resizeSince(state)...), true
}

// recordedResize returns the state c's status records; false when none.
func recordedResize(c *slim.Claim) (Stage, bool) {
	if c.ResizeStatus == nil || *c.ResizeStatus == "" {
		return fromConditions(c)
	}
	switch *c.ResizeStatus {
	case v1.PersistentVolumeClaimControllerResizeInProgress:
		if hasCondition(c, controllerError) {
			return ControllerError, true
		}
		return ControllerInProgress, true
	case v1.PersistentVolumeClaimControllerResizeInfeasible:
		return ControllerInfeasible, true
	case v1.PersistentVolumeClaimNodeResizePending:
		return NodePending, true
	case v1.PersistentVolumeClaimNodeResizeInProgress:
		return NodeInProgress, true
	case v1.PersistentVolumeClaimNodeResizeInfeasible:
		return NodeInfeasible, true
	}
	return "", false
}

// fromConditions reads the state from the conditions alone, for API servers
// that drop allocatedResourceStatuses.
func fromConditions(c *slim.Claim) (Stage, bool) {
	switch {
	case hasCondition(c, controllerError):
		return ControllerError, true
	case hasCondition(c, resizing):
		return ControllerInProgress, true
	case hasCondition(c, fileSystemResizing):
		return NodePending, true
	}
	return "", false
}

// Where Since comes from, per state of Resize.
var (
	sinceResizing        = []v1.PersistentVolumeClaimConditionType{resizing}
	sinceControllerError = []v1.PersistentVolumeClaimConditionType{controllerError}
	sinceInfeasible      = []v1.PersistentVolumeClaimConditionType{controllerError, resizing}
	sinceNodePending     = []v1.PersistentVolumeClaimConditionType{fileSystemResizing}
	sinceNodeInfeasible  = []v1.PersistentVolumeClaimConditionType{nodeError, fileSystemResizing}
)

func resizeSince(s Stage) []v1.PersistentVolumeClaimConditionType {
	switch s {
	case ControllerInProgress:
		return sinceResizing
	case ControllerError:
		return sinceControllerError
	case ControllerInfeasible:
		return sinceInfeasible
	case NodePending, NodeInProgress:
		return sinceNodePending
	case NodeInfeasible:
		return sinceNodeInfeasible
	}
	return nil
}
