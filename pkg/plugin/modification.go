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

package plugin

import (
	"cmp"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
)

type modification struct {
	*facts
	s decide.ModifyState
	d decide.ModifyDecision
}

// modification explains the claim's modification from the resizer's
// decision on its recorded state.
func (f *facts) modification() Operation {
	m := modification{facts: f, s: f.modifyState, d: f.plan.Modify}
	return f.settle(decide.OpModify, Decision{Action: m.d.Action.String(), Target: m.d.Target, Reason: m.d.Reason},
		m.d.RetryAfter, f.modifyEntry, f.modifying, m.step())
}

// modificationSteps explain the actions with a step of their own.
var modificationSteps = map[decide.ModifyAction]func(modification) step{decide.ModifyNone: modification.atClass,
	decide.Pend: modification.pending, decide.Refuse: modification.refused, decide.ModifyWait: modification.waiting}

func (m modification) step() step {
	switch explain, ok := modificationSteps[m.d.Action]; {
	case ok:
		return explain(m)
	case m.d.Action == decide.Cancel:
		return step{summary: fmt.Sprintf("The claim asks for no change any more, but a modification to class %q is recorded.", m.d.Target), by: ByResizer,
			next: "The resizer drops the recorded modification without calling the driver: the volume is still at its class (event VolumeModifyCanceled)."}
	case m.d.Action == decide.Blocked:
		return step{summary: m.d.Reason + ".", by: ByUser,
			next: "Nothing, until the class exists again: the recorded modification must be finished before any other.",
			can:  []string{fmt.Sprintf("Create VolumeAttributesClass %q again, with driverName %s.", m.d.Target, m.driver)}}
	}
	return m.modifying()
}

// atClass: nothing to modify.
func (m modification) atClass() step {
	s := step{by: ByNone, next: "Nothing, until spec.volumeAttributesClassName changes."}
	if m.s.Spec == "" && m.s.Current == "" {
		s.summary = "No VolumeAttributesClass is asked for."
		return s
	}
	s.summary = fmt.Sprintf("The volume is at the class the claim asks for, %q.", m.s.Current)
	if m.s.Spec == "" {
		s.summary = fmt.Sprintf("The volume is at class %q; the claim asks for no other.", m.s.Current)
	}
	return s
}

// pending: the class does not exist (yet).
func (m modification) pending() step {
	s := step{summary: fmt.Sprintf("The claim asks for VolumeAttributesClass %q, which does not exist.", m.d.Target), by: ByUser,
		next: "The resizer starts the modification when the class is created (it watches classes); nothing happens before.",
		can:  []string{fmt.Sprintf("Create VolumeAttributesClass %q with driverName %s.", m.d.Target, m.driver), m.cancelAdvice()}}
	if m.o.ClassesUnread {
		s.summary = fmt.Sprintf("The claim asks for VolumeAttributesClass %q, which explain could not read; the resizer found it missing.", m.d.Target)
	}
	return s
}

// refused: the class cannot be sent to this driver.
func (m modification) refused() step {
	s := step{summary: m.d.Reason + ".", by: ByUser, next: "The resizer does not call the driver for it, and waits for the class to change."}
	if m.s.NotCSI == "" {
		s.can = append(s.can, fmt.Sprintf("Set spec.volumeAttributesClassName to a class of driver %s.", m.driver))
	}
	s.can = append(s.can, m.cancelAdvice())
	return s
}

// waiting: an infeasible class waits for its slow retry.
func (m modification) waiting() step {
	code, at, _ := claimstatus.RecordedModifyError(m.o.Claim)
	a := m.advice(decide.ModifyJob, code, m.d.Target)
	return step{
		summary: sentences(fmt.Sprintf("The driver refused class %q as infeasible: %s", m.d.Target,
			cmp.Or(trueCondition(m.o.Claim, v1.PersistentVolumeClaimVolumeModifyVolumeError).Message, noMessage)), a.Means),
		by: ByUser,
		next: fmt.Sprintf("The resizer retries class %q in about %s (--retry-interval-max %s after the failure it recorded %s) unless the class changes.",
			m.d.Target, short(m.d.RetryAfter), m.settings.retryMax(), ago(at, m.now)),
		can: append(append(a.Can, fmt.Sprintf("Set spec.volumeAttributesClassName to another class of driver %s.", m.driver)), m.cancelAdvice()),
		decision: fmt.Sprintf("only retry class %q, which the driver refused, in about %s: nothing changes until the class does",
			m.d.Target, short(m.d.RetryAfter)),
	}
}

// cancelAdvice says how the user cancels a modification, as the resizer's
// events do: back to the current class, or to no class while none is
// current (the API server refuses to remove a class once one was applied).
func (m modification) cancelAdvice() string {
	if m.s.Current != "" {
		return fmt.Sprintf("Or set spec.volumeAttributesClassName back to %q: the resizer then drops the modification without calling the driver.", m.s.Current)
	}
	return "Or remove spec.volumeAttributesClassName from the claim: the resizer then drops the modification without calling the driver."
}

// modifying: the resizer calls, or will call, the driver.
func (m modification) modifying() step {
	r := m.s.Recorded
	switch {
	case r == nil:
		return step{summary: fmt.Sprintf("The claim asks for class %q; no modification is recorded yet.", m.d.Target), by: ByResizer,
			next: "The resizer records the modification and calls the driver as soon as it sees the claim."}
	case r.Status == v1.PersistentVolumeClaimModifyVolumeInProgress && !m.d.RecordIntent:
		return m.unfinished()
	case r.Target != m.d.Target:
		return step{summary: fmt.Sprintf("A modification to class %q is recorded (%s), but the claim now asks for %q.", r.Target, r.Status, m.d.Target),
			by: ByResizer, next: fmt.Sprintf("The resizer tries class %q at once.", m.d.Target)}
	case r.Status == v1.PersistentVolumeClaimModifyVolumeInfeasible:
		code, _, _ := claimstatus.RecordedModifyError(m.o.Claim)
		a := m.advice(decide.ModifyJob, code, r.Target)
		return step{summary: sentences(fmt.Sprintf("The driver refused class %q as infeasible: %s", r.Target,
			cmp.Or(trueCondition(m.o.Claim, v1.PersistentVolumeClaimVolumeModifyVolumeError).Message, noMessage)), a.Means), by: ByResizer,
			next: fmt.Sprintf("Its slow retry is due: the resizer tries class %q again now, then every --retry-interval-max (%s) unless the class changes.",
				r.Target, m.settings.retryMax()),
			can:      append(a.Can, m.cancelAdvice()),
			decision: fmt.Sprintf("call the driver again for class %q, which it refused before, now that its slow retry is due", r.Target)}
	case r.Status == v1.PersistentVolumeClaimModifyVolumePending:
		return step{summary: fmt.Sprintf("The modification to class %q waited for the class, which exists now.", r.Target), by: ByResizer,
			next: "The resizer starts the modification at once (it watches classes)."}
	}
	code, _, _ := claimstatus.RecordedModifyError(m.o.Claim)
	a := m.advice(decide.ModifyJob, code, r.Target)
	s := step{summary: sentences(fmt.Sprintf("The driver's last answer to class %q was a final failure (%s): %s", r.Target, code,
		cmp.Or(trueCondition(m.o.Claim, v1.PersistentVolumeClaimVolumeModifyVolumeError).Message, noMessage)), a.Means), by: ByResizer,
		next: fmt.Sprintf("The resizer tries again with backoff (up to --retry-interval-max %s), at the class the claim names then: %q now.",
			m.settings.retryMax(), m.d.Target),
		can:      append(a.Can, m.cancelAdvice()),
		decision: fmt.Sprintf("call the driver again for class %q, with backoff", m.d.Target)}
	if !a.RetargetHelps {
		s.next = sentences(s.next, fmt.Sprintf("Every attempt, with any class, fails the same way %s.", a.Until))
	}
	return s
}

// unfinished: a recorded call that may still complete in the backend.
func (m modification) unfinished() step {
	t := m.d.Target
	s := step{summary: fmt.Sprintf("The resizer recorded the modification to class %q and calls the driver.", t), by: ByResizer,
		next: fmt.Sprintf("The resizer calls the driver again for class %q, which is finished before any other class, with backoff "+
			"(from --retry-interval-start %s, doubling up to --retry-interval-max %s).", t, m.settings.retryStart(), m.settings.retryMax()),
		can: []string{fmt.Sprintf("Nothing but wait: class %q must be finished first, as the driver may still be applying it.", t)}}
	if m.s.Spec != t {
		s.can = append(s.can, fmt.Sprintf("The class the claim asks for now, %q, is applied once %q is done.", m.s.Spec, t))
	}
	newest := newestOf(m.o.Events, m.driver, modifyReasons)
	switch {
	case newest != nil && newest.Reason == events.ReasonModify:
		s.by = ByDriver
		s.next = fmt.Sprintf("The driver is applying class %q: the resizer called it %s (event %s) and records its answer.", t, ago(lastSeen(newest), m.now), events.ReasonModify)
	case newest != nil && newest.Reason == events.ReasonModifyFailed:
		s.summary = sentences(s.summary, "Its last call got no final answer: "+newest.Message)
	}
	if code, _, ok := claimstatus.RecordedModifyError(m.o.Claim); ok && s.by == ByResizer {
		if code == "" {
			code = decide.ReasonUncertain
		}
		a := m.advice(decide.ModifyJob, code, t)
		s.summary = sentences(s.summary, a.Means)
		s.can = append(s.can, a.Can...)
	}
	return s
}
