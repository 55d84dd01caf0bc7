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
	"errors"
	"fmt"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

// Decision is what a decision says should happen to a claim now, for one
// operation: Action of that operation, to Target (a size or a class).
type Decision[A fmt.Stringer, T any] struct {
	Action A
	// Target is what the action is for: the size or class to call the
	// driver with, or the one that waits or is recorded.
	Target T
	// RecordIntent is true when the claim's status does not yet say that
	// Target is in progress, or still carries a recorded failure that the
	// new attempt must clear.
	RecordIntent bool
	// RetryAfter is how long a waiting target waits.
	RetryAfter time.Duration
	// Reason explains the decision in logs and events.
	Reason string
}

// Class says how a failed driver call is treated. The zero value is
// Uncertain, the safe default: an error of unknown origin may hide a call
// that still completes in the backend.
type Class int

const (
	// Uncertain failures may still complete in the backend: the recorded
	// target must be finished, never switched for another one.
	Uncertain Class = iota
	// Infeasible failures will not succeed at this target; they are retried
	// slowly (InfeasibleWait) unless the user changes what is asked for.
	Infeasible
	// Final failures did not change the volume; the user may ask for
	// something else.
	Final
)

// String returns the class name used in logs and metrics.
func (c Class) String() string { return nameIn([]string{"uncertain", "infeasible", "final"}, c) }

// Final reports whether the failure left the volume unchanged, so what the
// user asks for now, not the recorded target, is the next target.
func (c Class) Final() bool { return c != Uncertain }

// Rules class the errors of one operation's driver call by gRPC code,
// following the CSI spec: the codes of a call that may still complete are
// uncertain for every operation, the operation names its infeasible codes,
// every other code is final. An error without a gRPC status is uncertain.
type Rules struct {
	// Infeasible lists the codes that say the target cannot be had.
	Infeasible []codes.Code
}

// ResizeRules class the errors of ControllerExpandVolume as the CSI spec
// defines them: a size the driver cannot have (InvalidArgument, OutOfRange)
// or a volume it does not know (NotFound) is infeasible.
var ResizeRules = Rules{Infeasible: []codes.Code{codes.InvalidArgument, codes.OutOfRange, codes.NotFound}}

// ModifyRules class the errors of ControllerModifyVolume as upstream does:
// InvalidArgument alone is infeasible (the class's parameters).
var ModifyRules = Rules{Infeasible: []codes.Code{codes.InvalidArgument}}

// ClassOf classes err.
func (r Rules) ClassOf(err error) Class {
	if code, ok := CodeOf(err); ok {
		return r.classOf(code)
	}
	return Uncertain
}

// ClassOfReason classes a failure recorded by its reason (see ReasonOf),
// which a restarted resizer reads back. A reason that names no code is
// uncertain.
func (r Rules) ClassOfReason(reason string) Class {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == reason {
			return r.classOf(c)
		}
	}
	return Uncertain
}

func (r Rules) classOf(c codes.Code) Class {
	switch {
	case slices.Contains([]codes.Code{codes.Canceled, codes.DeadlineExceeded, codes.Unavailable, codes.ResourceExhausted, codes.Aborted}, c):
		return Uncertain // a call that may still complete in the backend
	case slices.Contains(r.Infeasible, c):
		return Infeasible
	}
	return Final
}

// CodeOf returns the gRPC code err carries, wrapped or not; ok is false
// when it carries none.
func CodeOf(err error) (code codes.Code, ok bool) {
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) || withStatus.GRPCStatus() == nil {
		return codes.Unknown, false
	}
	return withStatus.GRPCStatus().Code(), true
}

// ReasonUncertain is the reason recorded for a failure without a gRPC code
// (upstream records no condition then). It names no code on purpose:
// Unknown is a code drivers answer, which the CSI spec counts as final,
// while a call that failed without a status may still complete.
const ReasonUncertain = "Uncertain"

// ReasonOf is the reason a failure of err is recorded with: the name of its
// gRPC code, or ReasonUncertain.
func ReasonOf(err error) string {
	if code, ok := CodeOf(err); ok {
		return code.String()
	}
	return ReasonUncertain
}

// Failure is what the controller remembers of a claim's last failed driver
// call to Target. It lives in memory only: after a restart, what the claim
// records stands in for it.
type Failure[T any] struct {
	Class Class
	// Reason is the gRPC code's name, or ReasonUncertain (see ReasonOf).
	Reason string
	Target T
	At     time.Time
}

// ResizeFailure is what the controller remembers of a claim's last failed
// expansion.
type ResizeFailure = Failure[resource.Quantity]

// ModifyFailure is what the controller remembers of a claim's last failed
// modification; the recorded ModifyVolumeError condition stands in for it
// after a restart.
type ModifyFailure = Failure[string]

// Failed is the failure of a call to target that returned err at at, as
// rules class it.
func Failed[T any](rules Rules, err error, target T, at time.Time) Failure[T] {
	return Failure[T]{Class: rules.ClassOf(err), Reason: ReasonOf(err), Target: target, At: at}
}

// RetryAfter is what follows the failure: a target found infeasible waits
// for the slow lane, retry long, before it is asked for again; any other is
// retried with backoff (0).
func (f Failure[T]) RetryAfter(retry time.Duration) time.Duration {
	if f.Class == Infeasible {
		return retry
	}
	return 0
}

// InfeasibleWait is how long a target found infeasible at since must still
// wait before it is tried again: the slow lane, retry long. A failure
// "in the future" (the clock went back) waits no longer than a fresh one.
func InfeasibleWait(since, now time.Time, retry time.Duration) time.Duration {
	return min(since.Add(retry).Sub(now), retry)
}

// ReasonShort is the Reason of the failure remembered when the driver
// answered success with less than the target: what it gave is recorded,
// and the target is infeasible (asked for again only on the slow lane).
const ReasonShort = claimstatus.ReasonBelowTarget

// InUse reports whether f says the driver cannot expand the volume while a
// pod uses it (FailedPrecondition). Such a failure is final for the size;
// with in-use handling on, the next attempt waits until no pod uses the
// claim.
func InUse(f *ResizeFailure) bool {
	return f != nil && f.Reason == codes.FailedPrecondition.String()
}

// ResizeResult names a failed attempt for the resize duration metric: its
// class, or "in-use".
func ResizeResult(f ResizeFailure) string {
	if InUse(&f) {
		return "in-use"
	}
	return f.Class.String()
}
