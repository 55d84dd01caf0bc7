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

// The resize state machine: a pure decision, made from a
// claim's recorded state, of what should happen to it now. It does no I/O;
// the controller carries the decision out.

package decide

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ResizeState is everything the decision looks at.
type ResizeState struct {
	// Request is pvc.spec.resources.requests[storage].
	Request resource.Quantity
	// Capacity is pvc.status.capacity[storage]; zero when unset.
	Capacity resource.Quantity
	// PVSize is pv.spec.capacity[storage].
	PVSize resource.Quantity
	// Allocated is pvc.status.allocatedResources[storage], nil when unset:
	// the size being expanded to while a resize runs, and the size kubelet
	// expands the file system to; once the resize is complete, the
	// capacity the driver reported, which is at least the size asked for
	// and so may be above the request (see RecordVolumeSize).
	Allocated *resource.Quantity
	// Status is pvc.status.allocatedResourceStatuses[storage], "" when unset.
	Status v1.ClaimResourceStatus
	// ErrorRecorded is true when the claim carries ControllerResizeError:
	// the last recorded attempt ended in a final failure. It lets a
	// restarted controller know what its lost memory knew.
	ErrorRecorded bool
	// LastFailure is the remembered failure of the last attempt, if any.
	LastFailure *ResizeFailure
	// Rounded is what the resizer remembers of its last successful call,
	// when the driver grew the volume beyond the size it was asked for
	// (a driver that allocates whole units); nil when it remembers no
	// such call (after a restart, or for a reader that is not the
	// resizer). Only such a call tells that a volume larger than the size
	// kubelet finished at is the driver's rounding, and not the size of
	// an earlier target that kubelet refused (KEP-1790's recovery).
	Rounded *Rounding
	// HandedBack is the last size the resizer handed back to kubelet
	// (NodeRetry) since it started, nil when none (or for a reader that
	// is not the resizer).
	HandedBack *HandBack
	// Recovery is the RecoverVolumeExpansionFailure gate: when off, a
	// lowered request never replaces a recorded size.
	Recovery bool
	// PreResizeAnnotated is true when the AnnotateFsResize gate is on and
	// the PV carries its pre-resize-capacity annotation.
	PreResizeAnnotated bool
}

// Rounding is a successful ControllerExpandVolume that grew the volume
// beyond its target: Target is the size asked for, Size the larger one the
// driver gave.
type Rounding struct {
	Target, Size resource.Quantity
}

// HandBack is a size the resizer handed back to kubelet (NodeRetry), and
// whether it handed it back a second time.
type HandBack struct {
	Target resource.Quantity
	Again  bool
}

// ResizeDecision is the outcome of Decide: Target is the size to expand to
// (Expand), that waits (Wait), or to record (RecordVolumeSize, NodeRetry).
type ResizeDecision = Decision[ResizeAction, resource.Quantity]

// DecideResize says what should happen to a claim now. infeasibleRetry is how long
// an infeasible size waits before it is tried again.
func DecideResize(s ResizeState, now time.Time, infeasibleRetry time.Duration) ResizeDecision {
	if err := s.Validate(); err != nil {
		return ResizeDecision{Action: ResizeNone, Reason: err.Error()}
	}
	if s.kubeletOwns() {
		return ResizeDecision{Action: ResizeNone, Reason: "node expansion is pending: kubelet owns the volume"}
	}
	if s.nodeRecoverable() {
		return ResizeDecision{Action: NodeRetry, Target: s.Request,
			Reason: fmt.Sprintf("kubelet found %s infeasible and the request is lowered to %s, which the volume holds: kubelet grows the file system to it", s.Allocated.String(), s.Request.String())}
	}
	if s.nodeGrowable() {
		return ResizeDecision{Action: NodeRetry, Target: s.Request,
			Reason: fmt.Sprintf("the volume holds %s already (it has %s): kubelet grows the file system from %s to it", s.Request.String(), s.PVSize.String(), s.Capacity.String())}
	}
	if s.handBackAgain() {
		return ResizeDecision{Action: NodeRetry, Target: s.Request,
			Reason: fmt.Sprintf("kubelet marked %s infeasible after it was handed back, perhaps for the larger size another node was still failing: handing it back once more", s.Request.String())}
	}
	if s.nodeInfeasibleUnchanged() {
		return ResizeDecision{Action: ResizeNone, Reason: fmt.Sprintf("kubelet found %s infeasible: waiting for a request that asks for another size", s.Allocated.String())}
	}
	if !s.needsWork() {
		if s.volumeSizeUnrecorded() {
			return ResizeDecision{Action: RecordVolumeSize, Target: s.PVSize,
				Reason: fmt.Sprintf("kubelet finished at %s; recording the volume's size %s the driver allocated", s.Capacity.String(), s.PVSize.String())}
		}
		if s.PreResizeAnnotated && s.Capacity.Cmp(s.PVSize) >= 0 {
			return ResizeDecision{Action: DropPreResizeCapacity,
				Reason: fmt.Sprintf("the claim's capacity %s has reached the volume's %s: the PV's pre-resize-capacity annotation goes", s.Capacity.String(), s.PVSize.String())}
		}
		return ResizeDecision{Action: ResizeNone, Reason: "requested size is reached"}
	}
	target, why := s.target()
	if target.Sign() <= 0 {
		// Nothing asks for a size (no request, no recorded size, a PV
		// without capacity): there is no size a driver could be asked for.
		return ResizeDecision{Action: ResizeNone, Reason: fmt.Sprintf("no positive size to expand to (target %s)", target.String())}
	}
	if wait := s.infeasibleWait(target, now, infeasibleRetry); wait > 0 {
		if s.shortUnrecorded(target) {
			return ResizeDecision{Action: RecordShort, Target: target,
				Reason: fmt.Sprintf("the driver answered %s with %s, which the claim no longer says: recording it again", target.String(), s.Capacity.String())}
		}
		return ResizeDecision{Action: ResizeWait, Target: target, RetryAfter: wait,
			Reason: fmt.Sprintf("size %s was infeasible; retrying in %s unless the request changes", target.String(), wait.Round(time.Second))}
	}
	return ResizeDecision{
		Action:       Expand,
		Target:       target,
		RecordIntent: s.ErrorRecorded || !s.intentRecorded(target),
		Reason:       why,
	}
}

// kubeletOwns is true while node expansion is pending or running and the PV
// already holds the recorded size.
func (s ResizeState) kubeletOwns() bool {
	switch s.Status {
	case v1.PersistentVolumeClaimNodeResizePending, v1.PersistentVolumeClaimNodeResizeInProgress:
		return s.Allocated != nil && s.PVSize.Cmp(*s.Allocated) >= 0
	}
	return false
}

// volumeSizeUnrecorded is true when the last resize is complete at the recorded size
// (kubelet writes status.capacity = allocatedResources and drops the
// status) while the volume is larger because the driver allocated more
// than it was asked for that very size (Rounded). That larger size is
// recorded only now, after kubelet: while kubelet works, allocatedResources
// must equal the request, or kubelet marks the claim NodeResizeInfeasible
// after a second final node failure; and kubelet reconciles a volume for
// as long as the PV is larger than the size it finished at. A volume that
// is larger for any other reason (an earlier target kubelet refused, before
// the user lowered the request), or whose reason the resizer does not
// remember, is left as kubelet recorded it: what kubelet grew the file
// system to is then the truth.
func (s ResizeState) volumeSizeUnrecorded() bool {
	return s.Status == "" && s.Allocated != nil && s.Capacity.Sign() > 0 && s.Capacity.Cmp(*s.Allocated) == 0 && s.PVSize.Cmp(s.Capacity) > 0 &&
		s.Rounded != nil && s.Rounded.Target.Cmp(s.Capacity) == 0 && s.Rounded.Size.Cmp(s.PVSize) == 0
}

// needsWork is true when the request exceeds the claim's capacity, or when a
// controller step was left unfinished.
func (s ResizeState) needsWork() bool {
	switch s.Status {
	case v1.PersistentVolumeClaimControllerResizeInProgress,
		v1.PersistentVolumeClaimNodeResizePending, v1.PersistentVolumeClaimNodeResizeInProgress:
		return true
	}
	return s.Request.Cmp(s.Capacity) > 0
}

// target picks the size of the next attempt, never below the PV's size.
func (s ResizeState) target() (resource.Quantity, string) {
	size, why := s.Request, "expanding to the requested size"
	switch {
	case s.Allocated == nil:
	case s.mustFinishRecorded():
		size, why = *s.Allocated, "finishing the recorded size"
	case !s.Recovery && s.Allocated.Cmp(size) > 0:
		size, why = *s.Allocated, "finishing the recorded size (recovery disabled)"
	}
	if s.PVSize.Cmp(size) > 0 {
		return s.PVSize, why + " (never below the volume's size)"
	}
	return size, why
}

// mustFinishRecorded is true when the recorded size may still be completing:
// an unfinished controller step that did not end in a final failure, or a
// node step that is still waiting for the controller part.
func (s ResizeState) mustFinishRecorded() bool {
	switch s.Status {
	case v1.PersistentVolumeClaimControllerResizeInProgress:
		if s.LastFailure != nil {
			return !s.LastFailure.Class.Final()
		}
		return !s.ErrorRecorded
	case v1.PersistentVolumeClaimNodeResizePending, v1.PersistentVolumeClaimNodeResizeInProgress:
		return true
	}
	return false
}

// shortUnrecorded is true when the resizer remembers a short answer to
// target and the claim records neither that failure nor a resize in
// progress: kubelet finished the node step at what the driver gave, and
// removed the resizer's condition with its own.
func (s ResizeState) shortUnrecorded(target resource.Quantity) bool {
	f := s.LastFailure
	return f != nil && f.Reason == ReasonShort && f.Target.Cmp(target) == 0 && !s.ErrorRecorded && s.Status == ""
}

// infeasibleWait is how long target must still wait after an infeasible
// failure at that same size; 0 when it may be tried now.
func (s ResizeState) infeasibleWait(target resource.Quantity, now time.Time, retry time.Duration) time.Duration {
	f := s.LastFailure
	if f == nil || f.Class != Infeasible || f.Target.Cmp(target) != 0 {
		return 0
	}
	return InfeasibleWait(f.At, now, retry)
}

// intentRecorded is true when the status already says target is in progress.
func (s ResizeState) intentRecorded(target resource.Quantity) bool {
	return s.Status == v1.PersistentVolumeClaimControllerResizeInProgress &&
		s.Allocated != nil && s.Allocated.Cmp(target) == 0
}
