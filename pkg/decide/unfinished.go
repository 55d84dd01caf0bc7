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

// Unfinished names the state a claim is in, for the people who run the
// resizer: which operation is unfinished, at which step, and since when. It
// reads only what the claim's status records (the slim projection the
// informer cache keeps), so it answers the same for the metrics at scrape
// time and for a command that explains one claim. Whether the claim belongs
// to this resizer is not its question: callers check ownership first.

package decide

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// Operation is the unfinished work a state belongs to.
type Operation string

// The operations, as the metrics' operation label names them.
const (
	// OpResize is volume expansion: spec.resources.requests.storage.
	OpResize Operation = "resize"
	// OpModify is volume modification: spec.volumeAttributesClassName.
	OpModify Operation = "modify"
)

// Stage is a step of an operation at which a claim is now, as the metrics'
// state label names it.
type Stage string

// The states of Resize, from status.allocatedResourceStatuses[storage].
const (
	// ControllerInProgress: the resizer has recorded the expansion
	// (ControllerResizeInProgress) and calls, or will call, the driver.
	ControllerInProgress Stage = "controller_in_progress"
	// ControllerError: ControllerResizeInProgress with the condition
	// ControllerResizeError; the resizer retries, the user may change the
	// request.
	ControllerError Stage = "controller_error"
	// ControllerInfeasible: the driver said the size cannot be had
	// (ControllerResizeInfeasible); the user must change the request.
	ControllerInfeasible Stage = "controller_infeasible"
	// NodePending: the volume has grown; kubelet must grow the file system
	// when a pod mounts it (NodeResizePending).
	NodePending Stage = "node_pending"
	// NodeInProgress: kubelet is growing the file system (NodeResizeInProgress).
	NodeInProgress Stage = "node_in_progress"
	// NodeInfeasible: kubelet said the size cannot be had on the node
	// (NodeResizeInfeasible); the user must change the request.
	NodeInfeasible Stage = "node_infeasible"
	// WaitingInUse replaces the others when the resizer would call the
	// driver now but pods using the claim hold the call back (HeldBack). An
	// infeasible size the user has not changed stays infeasible: the pod is
	// not what stops it.
	WaitingInUse Stage = "waiting_in_use"
)

// The states of Modify, from status.modifyVolumeStatus.status (InProgress
// also after a failure that is retried). A claim whose spec names a class
// that no attempt has recorded yet is in no state.
const (
	// ModifyPending: the target VolumeAttributesClass does not exist (yet).
	ModifyPending Stage = "pending"
	// ModifyInProgress: the resizer calls, or will call again, the driver.
	ModifyInProgress Stage = "in_progress"
	// ModifyInfeasible: the driver refused the class; the user must change
	// spec.volumeAttributesClassName.
	ModifyInfeasible Stage = "infeasible"
)

// Conditions of both operations, shorter.
const (
	resizing           = v1.PersistentVolumeClaimResizing
	controllerError    = v1.PersistentVolumeClaimControllerResizeError
	fileSystemResizing = v1.PersistentVolumeClaimFileSystemResizePending
	nodeError          = v1.PersistentVolumeClaimNodeResizeError
	modifying          = v1.PersistentVolumeClaimVolumeModifyingVolume
	modifyError        = v1.PersistentVolumeClaimVolumeModifyVolumeError
)

// sinceOf lists, per state, the conditions Since is read from: the
// transition time of the first the claim carries as True. The resizer
// carries one time from condition to condition while the size or class
// stays, and retries keep it, so a claim that keeps failing shows how long
// it has been stuck.
var sinceOf = map[Stage][]v1.PersistentVolumeClaimConditionType{
	ControllerInProgress: {resizing}, // when the resizer began expanding to this size
	ControllerError:      {controllerError},
	ControllerInfeasible: {controllerError, resizing},
	NodePending:          {fileSystemResizing}, // when the volume was handed to kubelet
	NodeInProgress:       {fileSystemResizing}, // kubelet records no time when it starts
	NodeInfeasible:       {nodeError, fileSystemResizing},
	// Unknown for a request held back before any attempt, which records nothing.
	WaitingInUse: {resizing, controllerError},
	// Unknown for the claims the resizer records Pending: it clears the
	// modify conditions while the class is missing.
	ModifyPending:    {modifying},
	ModifyInProgress: {modifying, modifyError},
	ModifyInfeasible: {modifyError, modifying},
}

// resizeStages and modifyStages are the states of the statuses recorded;
// ControllerResizeInProgress (or none) is read with the conditions.
var (
	resizeStages = map[v1.ClaimResourceStatus]Stage{
		v1.PersistentVolumeClaimControllerResizeInfeasible: ControllerInfeasible,
		v1.PersistentVolumeClaimNodeResizePending:          NodePending,
		v1.PersistentVolumeClaimNodeResizeInProgress:       NodeInProgress,
		v1.PersistentVolumeClaimNodeResizeInfeasible:       NodeInfeasible,
	}
	modifyStages = map[v1.PersistentVolumeClaimModifyVolumeStatus]Stage{
		v1.PersistentVolumeClaimModifyVolumePending:    ModifyPending,
		v1.PersistentVolumeClaimModifyVolumeInProgress: ModifyInProgress,
		v1.PersistentVolumeClaimModifyVolumeInfeasible: ModifyInfeasible,
	}
)

// Key is an operation and one of its states.
type Key struct {
	Operation Operation
	State     Stage
}

// KnownStages returns every key, resize first, in the order the metrics list
// them.
func KnownStages() []Key {
	return []Key{
		{OpResize, ControllerInProgress}, {OpResize, ControllerError}, {OpResize, ControllerInfeasible},
		{OpResize, WaitingInUse},
		{OpResize, NodePending}, {OpResize, NodeInProgress}, {OpResize, NodeInfeasible},
		{OpModify, ModifyPending}, {OpModify, ModifyInProgress}, {OpModify, ModifyInfeasible},
	}
}

// Entry is one unfinished operation of a claim and the state it is in.
type Entry struct {
	Key
	// Since is when the claim entered the state, as its conditions record
	// it (see sinceOf); zero when they do not.
	Since time.Time
	// SinceFrom is the condition Since was read from; "" when Since is zero.
	SinceFrom v1.PersistentVolumeClaimConditionType
}

// HeldBack reports whether the resizer would call the driver to expand c
// now, as DecideResize says, but pods using c hold the call back (the
// driver expands offline only). Neither the claim's PV nor pods nor what the
// resizer remembers are part of its record, so the caller answers it (the
// resizer with Controller.HeldBackByPods); nil means never.
type HeldBack func(c *slim.Claim) bool

// Unfinished returns c's entries: at most one per operation, resize first;
// nil when c is in no state.
func Unfinished(c *slim.Claim, heldBack HeldBack) []Entry {
	return AppendUnfinished(nil, c, heldBack)
}

// AppendUnfinished appends c's entries to dst, as Unfinished returns them.
// With room in dst it allocates nothing, which lets the metrics go over
// every claim at each scrape.
func AppendUnfinished(dst []Entry, c *slim.Claim, heldBack HeldBack) []Entry {
	if e, ok := UnfinishedResize(c, heldBack); ok {
		dst = append(dst, e)
	}
	if e, ok := UnfinishedModify(c); ok {
		dst = append(dst, e)
	}
	return dst
}

// UnfinishedResize returns the state of c's expansion; ok is false when none
// is unfinished. An API server that does not serve allocatedResourceStatuses
// (the gate RecoverVolumeExpansionFailure off) drops it; then the conditions
// decide: ControllerResizeError is controller_error, Resizing
// controller_in_progress, FileSystemResizePending node_pending.
func UnfinishedResize(c *slim.Claim, heldBack HeldBack) (e Entry, ok bool) {
	if heldBack != nil && heldBack(c) {
		return since(c, OpResize, WaitingInUse), true
	}
	status := ptr.Deref(c.ResizeStatus, "")
	state := resizeStages[status]
	if status == "" || status == v1.PersistentVolumeClaimControllerResizeInProgress {
		switch {
		case claimstatus.Find(c.Conditions, controllerError) != nil:
			state = ControllerError
		case status != "" || claimstatus.Find(c.Conditions, resizing) != nil:
			state = ControllerInProgress
		case claimstatus.Find(c.Conditions, fileSystemResizing) != nil:
			state = NodePending
		}
	}
	if state == "" {
		return Entry{}, false
	}
	return since(c, OpResize, state), true
}

// UnfinishedModify returns the state of c's modification; ok is false when
// none is unfinished.
func UnfinishedModify(c *slim.Claim) (e Entry, ok bool) {
	if c.Classes == nil || c.Classes.Modify == nil {
		return Entry{}, false
	}
	if state, ok := modifyStages[c.Classes.Modify.Status]; ok {
		return since(c, OpModify, state), true
	}
	return Entry{}, false
}

// since is the entry of op at state, with the time of the first condition
// of sinceOf[state] that c carries as True with a transition time.
func since(c *slim.Claim, op Operation, state Stage) Entry {
	for _, t := range sinceOf[state] {
		for i := range c.Conditions {
			cond := &c.Conditions[i]
			if cond.Type == t && cond.Status == v1.ConditionTrue && !cond.LastTransitionTime.IsZero() {
				return Entry{Key: Key{op, state}, Since: cond.LastTransitionTime.Time, SinceFrom: t}
			}
		}
	}
	return Entry{Key: Key{op, state}}
}
