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

// The resize state machine: a pure decision, made from a claim's recorded
// state, of what should happen to it now.

package decide

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ResizeAction is what the controller should do with a claim now.
type ResizeAction int

const (
	// ResizeNone: nothing to do (done, or kubelet owns the volume now).
	ResizeNone ResizeAction = iota
	// Expand: run one expansion attempt to Decision.Target.
	Expand
	// ResizeWait: an infeasible size is not retried before Decision.RetryAfter.
	ResizeWait
	// RecordVolumeSize: kubelet finished the node step at the recorded size,
	// and the volume is larger because the driver allocated more than asked
	// for that very size (ResizeState.Rounded): record Decision.Target, the
	// volume's size, as the claim's capacity and allocated size.
	RecordVolumeSize
	// NodeRetry: the volume already holds the request (kubelet found the
	// recorded size infeasible and the user lowered the request, or kubelet
	// finished below the volume's size and the user raised the request
	// within it): hand the claim to kubelet at Decision.Target, the request.
	NodeRetry
	// DropPreResizeCapacity: the claim's capacity has reached the volume's
	// and the PV still carries AnnotateFsResize's pre-resize-capacity
	// annotation: remove it, as upstream does.
	DropPreResizeCapacity
	// RecordShort: the driver answered the target short and the claim no
	// longer says so (kubelet removed the resizer's ControllerResizeError
	// when it finished the node step at what the driver gave): record it
	// again, so that the claim says why its request waits on the slow lane.
	// Only Expand calls the driver.
	RecordShort
)

// String names the action for logs.
func (a ResizeAction) String() string {
	return nameIn([]string{"none", "expand", "wait", "record-volume-size", "node-retry", "drop-pre-resize-capacity", "record-short"}, a)
}

// Acts reports whether the action is a step for the claim's worker to take:
// a driver call or a write.
func (a ResizeAction) Acts() bool { return a != ResizeNone && a != ResizeWait }

// CallsDriver reports whether the action calls the driver.
func (a ResizeAction) CallsDriver() bool { return a == Expand }

// ResizeDecision is the outcome of DecideResize: Target is the size to expand
// to (Expand), that waits (ResizeWait), or to record.
type ResizeDecision = Decision[ResizeAction, resource.Quantity]

// DecideResize says what should happen to a claim now. infeasibleRetry is
// how long an infeasible size waits before it is tried again.
func DecideResize(s ResizeState, now time.Time, infeasibleRetry time.Duration) ResizeDecision {
	if err := s.Validate(); err != nil {
		return ResizeDecision{Action: ResizeNone, Reason: err.Error()}
	}
	if nodeStep(s.Status) && s.Allocated != nil && s.PVSize.Cmp(*s.Allocated) >= 0 {
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
	// Nothing to do unless the request exceeds the capacity or a step was
	// left unfinished.
	if s.Status != v1.PersistentVolumeClaimControllerResizeInProgress && !nodeStep(s.Status) && s.Request.Cmp(s.Capacity) <= 0 {
		// The last resize is complete at the recorded size (kubelet wrote
		// status.capacity = allocatedResources and dropped the status) while
		// the volume is larger because the driver allocated more than asked
		// for that very size (Rounded). It is recorded only after kubelet:
		// while kubelet works, allocatedResources must equal the request, or
		// kubelet marks the claim NodeResizeInfeasible after a second final
		// node failure; and kubelet reconciles a volume as long as the PV is
		// larger than the size it finished at. A volume larger for another
		// reason (a target kubelet refused before the user lowered the
		// request), or one the resizer does not remember, is left as is.
		if s.Status == "" && s.Allocated != nil && s.Capacity.Sign() > 0 && s.Capacity.Cmp(*s.Allocated) == 0 && s.PVSize.Cmp(s.Capacity) > 0 &&
			s.Rounded != nil && s.Rounded.Target.Cmp(s.Capacity) == 0 && s.Rounded.Size.Cmp(s.PVSize) == 0 {
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
		return ResizeDecision{Action: ResizeNone, Reason: fmt.Sprintf("no positive size to expand to (target %s)", target.String())}
	}
	if f := s.LastFailure; f != nil && f.Class == Infeasible && f.Target.Cmp(target) == 0 {
		if wait := InfeasibleWait(f.At, now, infeasibleRetry); wait > 0 {
			// A short answer the claim no longer records: kubelet finished
			// the node step at what the driver gave, and removed the
			// resizer's condition with its own.
			if f.Reason == ReasonShort && !s.ErrorRecorded && s.Status == "" {
				return ResizeDecision{Action: RecordShort, Target: target,
					Reason: fmt.Sprintf("the driver answered %s with %s, which the claim no longer says: recording it again", target.String(), s.Capacity.String())}
			}
			return ResizeDecision{Action: ResizeWait, Target: target, RetryAfter: wait,
				Reason: fmt.Sprintf("size %s was infeasible; retrying in %s unless the request changes", target.String(), wait.Round(time.Second))}
		}
	}
	intentRecorded := s.Status == v1.PersistentVolumeClaimControllerResizeInProgress && s.Allocated != nil && s.Allocated.Cmp(target) == 0
	return ResizeDecision{Action: Expand, Target: target, RecordIntent: s.ErrorRecorded || !intentRecorded, Reason: why}
}

// target picks the size of the next attempt, never below the PV's size. The
// recorded size is finished while it may still be completing: an unfinished
// controller step that did not end in a final failure, or a node step still
// waiting for the controller part.
func (s ResizeState) target() (resource.Quantity, string) {
	size, why := s.Request, "expanding to the requested size"
	f := s.LastFailure
	unfinished := nodeStep(s.Status) || s.Status == v1.PersistentVolumeClaimControllerResizeInProgress &&
		(f != nil && !f.Class.Final() || f == nil && !s.ErrorRecorded)
	switch {
	case s.Allocated == nil:
	case unfinished:
		size, why = *s.Allocated, "finishing the recorded size"
	case !s.Recovery && s.Allocated.Cmp(size) > 0:
		size, why = *s.Allocated, "finishing the recorded size (recovery disabled)"
	}
	if s.PVSize.Cmp(size) > 0 {
		return s.PVSize, why + " (never below the volume's size)"
	}
	return size, why
}

// nodeStep reports whether s says kubelet's node step is pending or running.
func nodeStep(s v1.ClaimResourceStatus) bool {
	return s == v1.PersistentVolumeClaimNodeResizePending || s == v1.PersistentVolumeClaimNodeResizeInProgress
}
