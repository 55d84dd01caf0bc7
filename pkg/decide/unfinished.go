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

// Unfinished names the state a claim is in, for the people who run
// the resizer: which operation is unfinished (resize, modify), at which
// step, and since when. It reads only what the claim's status records (the
// slim projection the informer cache keeps), does no I/O, and so answers the
// same for the metrics at scrape time and for a command that explains one
// claim.
//
// Whether the claim belongs to this resizer is not its question: callers
// check ownership first (package ownership).

package decide

import (
	"time"

	v1 "k8s.io/api/core/v1"

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

// The states of Resize.
const (
	// ControllerInProgress: the resizer has recorded the expansion
	// (ControllerResizeInProgress) and calls, or will call, the driver.
	ControllerInProgress Stage = "controller_in_progress"
	// ControllerError: the driver's last answer was a failure the resizer
	// recorded as ControllerResizeError; it retries, the user may change
	// the request.
	ControllerError Stage = "controller_error"
	// ControllerInfeasible: the driver said the size cannot be had
	// (ControllerResizeInfeasible); the user must change the request.
	ControllerInfeasible Stage = "controller_infeasible"
	// NodePending: the volume has grown; kubelet must grow the file system
	// when a pod mounts it (NodeResizePending).
	NodePending Stage = "node_pending"
	// NodeInProgress: kubelet is growing the file system
	// (NodeResizeInProgress).
	NodeInProgress Stage = "node_in_progress"
	// NodeInfeasible: kubelet said the size cannot be had on the node
	// (NodeResizeInfeasible); the user must change the request.
	NodeInfeasible Stage = "node_infeasible"
	// WaitingInUse: the driver expands only volumes no pod uses, and a pod
	// uses this one: the resizer will not call the driver until it is gone.
	WaitingInUse Stage = "waiting_in_use"
)

// The states of Modify, from status.modifyVolumeStatus.
const (
	// ModifyPending: the target VolumeAttributesClass does not exist (yet).
	ModifyPending Stage = "pending"
	// ModifyInProgress: the resizer calls, or will call again, the driver.
	ModifyInProgress Stage = "in_progress"
	// ModifyInfeasible: the driver refused the class; the user must change
	// spec.volumeAttributesClassName.
	ModifyInfeasible Stage = "infeasible"
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
	// it; zero when they do not (see ResizeOf and ModifyOf for what is read
	// per state).
	Since time.Time
	// SinceFrom is the condition Since was read from; "" when Since is
	// zero.
	SinceFrom v1.PersistentVolumeClaimConditionType
}

// HeldBack reports whether the resizer would call the driver to expand c
// now, as resize.Decide says, but pods using c hold the call back (the
// driver expands offline only). Neither the claim's PV nor pods nor what the
// resizer remembers are part of its record, so the caller answers it (the
// resizer with Controller.HeldBackByPods); nil means never.
type HeldBack func(c *slim.Claim) bool

// Unfinished returns c's entries: at most one per operation, resize first; nil when
// c is in no state.
func Unfinished(c *slim.Claim, heldBack HeldBack) []Entry {
	return AppendUnfinished(nil, c, heldBack)
}

// AppendUnfinished appends c's entries to dst, as Of returns them. With room in dst it
// allocates nothing, which lets the metrics go over every claim at each
// scrape.
func AppendUnfinished(dst []Entry, c *slim.Claim, heldBack HeldBack) []Entry {
	if e, ok := UnfinishedResize(c, heldBack); ok {
		dst = append(dst, e)
	}
	if e, ok := UnfinishedModify(c); ok {
		dst = append(dst, e)
	}
	return dst
}

// since returns the first of types that c carries as True with a
// transition time, as an entry of key.
func since(c *slim.Claim, key Key, types ...v1.PersistentVolumeClaimConditionType) Entry {
	for _, t := range types {
		for i := range c.Conditions {
			cond := &c.Conditions[i]
			if cond.Type == t && cond.Status == v1.ConditionTrue && !cond.LastTransitionTime.IsZero() {
				return Entry{Key: key, Since: cond.LastTransitionTime.Time, SinceFrom: t}
			}
		}
	}
	return Entry{Key: key}
}

// hasCondition reports whether c carries condition t as True.
func hasCondition(c *slim.Claim, t v1.PersistentVolumeClaimConditionType) bool {
	for i := range c.Conditions {
		if c.Conditions[i].Type == t && c.Conditions[i].Status == v1.ConditionTrue {
			return true
		}
	}
	return false
}
