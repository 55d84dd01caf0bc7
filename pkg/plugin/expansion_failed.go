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
	"strings"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

// failed: the driver's last answer was a final failure.
func (x expansion) failed() step {
	recorded := trueCondition(x.o.Claim, v1.PersistentVolumeClaimControllerResizeError)
	if recorded.Reason == decide.ReasonShort {
		return x.short(recorded.Message)
	}
	code := x.recordedCode()
	a := x.advice(decide.ResizeJob, code, "")
	s := step{summary: sentences(fmt.Sprintf("The driver's last answer to the expansion to %s was a final failure: %s", x.allocated(), cmp.Or(recorded.Message, noMessage)), a.Means),
		by: ByResizer}
	s.next = fmt.Sprintf("The resizer tries again with backoff (up to --retry-interval-max %s), at the request as it is then: %s now.",
		x.settings.retryMax(), size(x.d.Target))
	if !a.RetargetHelps {
		s.next = sentences(s.next, fmt.Sprintf("Every attempt, at any size, fails the same way %s.", a.Until))
	}
	s.decision = fmt.Sprintf("call the driver again for %s, with backoff", size(x.d.Target))
	if a.RetargetHelps {
		s.can = x.lowerAdvice(&s)
	}
	s.can = append(s.can, a.Can...)
	if len(x.users) > 0 && code == codes.FailedPrecondition.String() {
		s.can = append([]string{fmt.Sprintf("Delete pod(s) %s, or scale their workload down: the driver said it cannot expand the volume while a pod uses it.",
			strings.Join(x.users, ", "))}, s.can...)
	}
	return s
}

// short: the driver answered success with less than it was asked for,
// which the claim records: it gives what it has.
func (x expansion) short(message string) step {
	s := step{summary: sentences(fmt.Sprintf("The driver answered the last expansion with success, but less than asked for: %s", message),
		fmt.Sprintf("The claim records %s, what the volume has: the driver gives no more.", size(x.s.Capacity))), by: ByUser}
	s.next = fmt.Sprintf("The resizer asks for %s again at most every %s unless the request changes (--retry-interval-max; "+
		"its in-memory backoff is not visible from outside, and a restarted resizer asks at once).", size(x.d.Target), x.settings.retryMax())
	s.decision = fmt.Sprintf("only ask for %s again, at most every %s: the driver gives no more until its backend has more", size(x.d.Target), x.settings.retryMax())
	s.can = []string{fmt.Sprintf("Lower the request to %s, what the volume has, to stop asking.", size(x.s.Capacity)),
		"Or give the driver's backend what it lacks (space, a quota): the next attempt gets it."}
	return s
}

// notSent is in the message of a request the resizer refused itself,
// before it reached the driver (see the controller's driverCause).
const notSent = "not sent to the driver"

// recordedCode is the gRPC code the resizer records as the reason of
// ControllerResizeError (decide.ReasonShort records a short answer instead);
// decide.ReasonUncertain when there is none (a resizer older than this
// plugin, or upstream's).
func (x expansion) recordedCode() string {
	if reason := trueCondition(x.o.Claim, v1.PersistentVolumeClaimControllerResizeError).Reason; knownCode(reason) {
		return reason
	}
	return decide.ReasonUncertain
}

// infeasible: the driver said the size cannot be had.
func (x expansion) infeasible() step {
	failedAt := x.allocated()
	message := trueCondition(x.o.Claim, v1.PersistentVolumeClaimControllerResizeError).Message
	a := x.advice(decide.ResizeJob, x.recordedCode(), "")
	refuser := "the driver"
	if strings.Contains(message, notSent) {
		refuser = "the resizer"
	}
	s := step{summary: sentences(fmt.Sprintf("T%s refused %s as infeasible: %s", refuser[1:], failedAt, cmp.Or(message, noMessage)), a.Means)}
	if x.d.Action == decide.Expand && size(x.d.Target) != failedAt {
		s.by = ByResizer
		s.next = fmt.Sprintf("The request changed to %s: the resizer tries it at once.", size(x.d.Target))
		if !a.RetargetHelps {
			s.next = sentences(s.next, fmt.Sprintf("It fails the same way, as any size would, %s.", a.Until))
			s.can = a.Can
		}
		return s
	}
	s.by = ByUser
	s.next = fmt.Sprintf("The resizer will retry %s at most every %s unless the request changes (--retry-interval-max; "+
		"its in-memory backoff is not visible from outside, and a restarted resizer tries at once).", failedAt, x.settings.retryMax())
	if !a.RetargetHelps {
		s.next = fmt.Sprintf("The resizer retries %s at most every %s (--retry-interval-max; its in-memory backoff is not visible from outside, "+
			"and a restarted resizer tries at once); every attempt, at any size, fails the same way %s.", failedAt, x.settings.retryMax(), a.Until)
		s.decision = fmt.Sprintf("only retry %s, which %s refused, at most every %s: nothing changes %s", failedAt, refuser, x.settings.retryMax(), a.Until)
		s.can = a.Can
		return s
	}
	s.decision = fmt.Sprintf("only retry %s, which %s refused, at most every %s: nothing changes until the request does", failedAt, refuser, x.settings.retryMax())
	s.can = append(x.lowerAdvice(&s), a.Can...)
	raise := "Or raise the request to a larger size the driver can provide: a changed request is tried at once."
	if x.recordedCode() == codes.OutOfRange.String() {
		raise = "Or raise the request, if the driver's range lies above it: a changed request is tried at once."
	}
	s.can = append(s.can, raise)
	return s
}

// lowerAdvice is the way back after the recorded size failed, by
// decide.State.LowerRange; when there is none, s's summary says why.
func (x expansion) lowerAdvice(s *step) []string {
	if x.s.Allocated == nil {
		return nil
	}
	target := *x.s.Allocated
	above, below, ok := x.s.LowerRange(target)
	switch {
	case ok && x.s.Status == v1.PersistentVolumeClaimNodeResizeInfeasible:
		return []string{fmt.Sprintf("Lower the request to between %s (exclusive, the current capacity) and %s (exclusive): the resizer hands the claim back to kubelet, which grows the file system to that size (the volume already holds it).",
			size(above), size(below))}
	case ok:
		return []string{fmt.Sprintf("Lower the request to between %s (exclusive, the current capacity) and %s (exclusive): the resizer then expands to that size.",
			size(above), size(below))}
	case !x.s.Recovery:
		s.summary = sentences(s.summary, "A lower request is not followed: the resizer runs with the feature gate RecoverVolumeExpansionFailure off.")
	case x.s.PVSize.Cmp(target) >= 0:
		s.summary = sentences(s.summary, fmt.Sprintf("A lower request does not help: the volume is already %s.", size(x.s.PVSize)))
	}
	return nil
}

// sentences appends sentence b to a, ending a with a full stop first.
func sentences(a, b string) string {
	a = strings.TrimSpace(a)
	if !strings.HasSuffix(a, ".") {
		a += "."
	}
	return a + " " + b
}
