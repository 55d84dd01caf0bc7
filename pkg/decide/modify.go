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

// The volume modification state machine (VolumeAttributesClass, KEP-3751):
// a pure decision, made from a claim's recorded state, of what should happen
// to its volume's class now.

package decide

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
)

// ModifyAction is what the controller should do with a claim's class now.
type ModifyAction int

const (
	// ModifyNone: nothing to do (the claim is at its class, or nothing asks for one).
	ModifyNone ModifyAction = iota
	// ModifyCall: record the intent when asked, then call
	// ControllerModifyVolume with Decision.Target's parameters (the only
	// action that calls the driver).
	ModifyCall
	// Pend: the class does not exist yet; record Pending for Decision.Target
	// and wait for the class to be created.
	Pend
	// Refuse: the target cannot be sent to this driver (a class of another
	// driver, a volume that cannot carry a class); record it as infeasible
	// and wait for the user.
	Refuse
	// Cancel: drop the recorded modification (the user set the class back):
	// the volume is still at its current class.
	Cancel
	// ModifyWait: an infeasible target is not retried before Decision.RetryAfter.
	ModifyWait
	// Blocked: the unfinished modification's class is gone; nothing can be
	// done until it is created again.
	Blocked
)

// String names the action for logs.
func (a ModifyAction) String() string {
	return nameIn([]string{"none", "modify", "pend", "refuse", "cancel", "wait", "blocked"}, a)
}

// Acts reports whether the action is a step for the claim's worker to take:
// a driver call, a write, or a warning.
func (a ModifyAction) Acts() bool { return a != ModifyNone && a != ModifyWait }

// CallsDriver reports whether the action calls the driver.
func (a ModifyAction) CallsDriver() bool { return a == ModifyCall }

// ModifyDecision is the outcome of DecideModify: Target is the class to modify to,
// that pends, is refused, waits or is blocked; for Cancel, the class whose
// modification is dropped.
type ModifyDecision = Decision[ModifyAction, string]

// DecideModify says what should happen to a claim's class now.
// infeasibleRetry is how long an infeasible target waits.
func DecideModify(s ModifyState, now time.Time, infeasibleRetry time.Duration) ModifyDecision {
	if t, ok := s.unfinished(); ok {
		return s.finish(t)
	}
	switch {
	case s.Spec == "" || s.Spec == s.Current:
		return s.settle()
	case s.NotCSI != "":
		return ModifyDecision{Action: Refuse, Target: s.Spec, Reason: s.NotCSI}
	}
	driver, exists := s.Classes[s.Spec]
	switch {
	case !exists:
		return ModifyDecision{Action: Pend, Target: s.Spec, RecordIntent: !s.recorded(s.Spec, v1.PersistentVolumeClaimModifyVolumePending),
			Reason: fmt.Sprintf("VolumeAttributesClass %q does not exist: the modification starts when it is created", s.Spec)}
	case driver != s.Driver:
		return ModifyDecision{Action: Refuse, Target: s.Spec,
			Reason: fmt.Sprintf("VolumeAttributesClass %q is for driver %q, not %q: set a class of driver %q", s.Spec, driver, s.Driver, s.Driver)}
	}
	// The remembered failure is used first, else the recorded one, so that a
	// restart does not retry an infeasible class at once.
	var failedAt time.Time
	switch f := s.LastFailure; {
	case f != nil && f.Target == s.Spec:
		if f.Class == Infeasible {
			failedAt = f.At
		}
	case s.recorded(s.Spec, v1.PersistentVolumeClaimModifyVolumeInfeasible):
		failedAt = s.ErrorAt
	}
	if wait := InfeasibleWait(failedAt, now, infeasibleRetry); !failedAt.IsZero() && wait > 0 {
		return ModifyDecision{Action: ModifyWait, Target: s.Spec, RetryAfter: wait,
			Reason: fmt.Sprintf("class %q was infeasible; retrying in %s unless the class changes", s.Spec, wait.Round(time.Second))}
	}
	return ModifyDecision{Action: ModifyCall, Target: s.Spec, RecordIntent: !s.recorded(s.Spec, v1.PersistentVolumeClaimModifyVolumeInProgress) || s.errorRecorded(),
		Reason: fmt.Sprintf("modifying to class %q", s.Spec)}
}

// unfinished returns the recorded target of a driver call that may still
// complete in the backend: recorded InProgress, and neither remembered nor
// recorded to have failed for sure. Such a target is finished whatever the
// spec says now, so that the volume never ends between two classes.
func (s ModifyState) unfinished() (string, bool) {
	r := s.Recorded
	if r == nil || r.Status != v1.PersistentVolumeClaimModifyVolumeInProgress {
		return "", false
	}
	if f := s.LastFailure; f != nil && f.Target == r.Target {
		return r.Target, !f.Class.Final()
	}
	return r.Target, !s.errorRecorded() || !ModifyRules.ClassOfReason(s.ErrorCode).Final()
}

// finish retries the unfinished target t, whose intent is already recorded.
func (s ModifyState) finish(t string) ModifyDecision {
	switch driver, exists := s.Classes[t]; {
	case s.NotCSI != "":
		return ModifyDecision{Action: Blocked, Target: t, Reason: s.NotCSI}
	case !exists:
		return ModifyDecision{Action: Blocked, Target: t,
			Reason: fmt.Sprintf("the unfinished modification to class %q cannot be retried: the VolumeAttributesClass no longer exists; create it again", t)}
	case driver != s.Driver:
		return ModifyDecision{Action: Blocked, Target: t,
			Reason: fmt.Sprintf("the unfinished modification to class %q cannot be retried: the VolumeAttributesClass is now for driver %q", t, driver)}
	}
	why := fmt.Sprintf("finishing the unfinished modification to class %q", t)
	if s.Spec != t {
		why += fmt.Sprintf(" before class %q", s.Spec)
	}
	return ModifyDecision{Action: ModifyCall, Target: t, Reason: why}
}

// settle handles a spec that asks for no change: unset, or the current
// class. What is recorded is dropped without a driver call (unfinished calls
// were handled before), unless the class was set back to the current one
// after a driver call to the recorded target failed with a final error that
// is not infeasible: the backend may be partly at that target (a process
// killed after the driver's success, or a driver that fails half way), so
// the current class is applied again.
func (s ModifyState) settle() ModifyDecision {
	if s.Recorded == nil && !s.Modifying && !s.errorRecorded() {
		return ModifyDecision{Action: ModifyNone, Reason: "the volume is at the requested class"}
	}
	if s.Spec != "" && s.Spec == s.Current && s.mayBePartlyApplied() {
		return s.reapply()
	}
	target := s.Current
	if s.Recorded != nil {
		target = s.Recorded.Target
	}
	why := "the class was set back to its current one"
	if s.Spec == "" {
		why = "the class was unset"
	}
	return ModifyDecision{Action: Cancel, Target: target, Reason: why}
}

// mayBePartlyApplied is true when a driver call to the recorded target was
// made (InProgress) and failed with a final error that is not infeasible.
func (s ModifyState) mayBePartlyApplied() bool {
	r := s.Recorded
	if r == nil || r.Status != v1.PersistentVolumeClaimModifyVolumeInProgress {
		return false
	}
	class := ModifyRules.ClassOfReason(s.ErrorCode)
	if f := s.LastFailure; f != nil && f.Target == r.Target {
		class = f.Class
	}
	return class.Final() && class != Infeasible
}

// reapply applies the current class again after a rollback (see settle),
// when it is still this driver's; otherwise the rollback is refused.
func (s ModifyState) reapply() ModifyDecision {
	why := fmt.Sprintf("the class was set back to %q after a failed modification to %q, which may have changed the volume in part: applying %q again", s.Current, s.Recorded.Target, s.Current)
	switch driver, exists := s.Classes[s.Current]; {
	case s.NotCSI != "":
		return ModifyDecision{Action: Refuse, Target: s.Current, Reason: s.NotCSI}
	case !exists:
		return ModifyDecision{Action: Pend, Target: s.Current, RecordIntent: true,
			Reason: fmt.Sprintf("VolumeAttributesClass %q does not exist: it is applied again when it is created", s.Current)}
	case driver != s.Driver:
		return ModifyDecision{Action: Refuse, Target: s.Current,
			Reason: fmt.Sprintf("VolumeAttributesClass %q is for driver %q, not %q", s.Current, driver, s.Driver)}
	}
	return ModifyDecision{Action: ModifyCall, Target: s.Current, RecordIntent: true, Reason: why}
}

func (s ModifyState) recorded(target string, status v1.PersistentVolumeClaimModifyVolumeStatus) bool {
	return s.Recorded != nil && s.Recorded.Target == target && s.Recorded.Status == status
}

func (s ModifyState) errorRecorded() bool { return s.ErrorCode != "" }
