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

// What the decisions of both operations, expansion and modification, share about a driver
// call: how a failed call is classed, what is remembered of it, how long an
// infeasible target waits, and the shape of a decision. It does no I/O.

package decide

import (
	"fmt"
	"time"
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
