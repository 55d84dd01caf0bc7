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

package controller

import (
	"fmt"
	"time"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

// operation is one of a claim's two operations.
type operation int

const (
	noOperation operation = iota
	resizeOperation
	modifyOperation
)

// plan is what the two decisions say about a claim. Both are made in the
// same sync by one worker, so a claim's expansion and modification never
// run at once: the driver gets one call per volume at a time, and the two
// never race on the claim's status.
type plan struct {
	resize decide.ResizeDecision
	modify decide.ModifyDecision
	// resizeFailed is true when the last expansion attempt failed.
	resizeFailed bool
	// failedLast is the operation whose last driver call failed most
	// recently, as this process remembers; noOperation when neither's did.
	failedLast operation
}

// first picks the operation whose step runs now. When both have a step to
// take and one of them failed last, the other goes first: turns are fair,
// so an operation that keeps failing (a driver call that keeps timing out)
// never holds the other back. Otherwise:
//  1. a modification whose driver call may still be running (recorded in
//     progress, not known to have failed), then such an expansion: what the
//     backend may still be doing is finished before anything new starts;
//  2. an expansion, unless its last attempt failed: capacity is what a
//     full volume needs, and a class change can wait a few seconds;
//  3. the modification (so that a failing expansion does not hold back a
//     class change), then the expansion that failed.
//
// Either way an uncertain target of an operation is finished before any new
// target of that same operation (the decisions see to it), and the claim's
// one worker makes one driver call at a time.
func (p plan) first() operation {
	expands, modifies := p.resize.Action.Acts(), p.modify.Action.Acts()
	switch {
	case expands && modifies && p.failedLast == resizeOperation:
		return modifyOperation
	case expands && modifies && p.failedLast == modifyOperation:
		return resizeOperation
	case mayStillRun(p.modify):
		return modifyOperation
	case expands && (mayStillRun(p.resize) || !p.resizeFailed):
		return resizeOperation
	case modifies:
		return modifyOperation
	case expands:
		return resizeOperation
	}
	return noOperation
}

// mayStillRun reports whether d calls the driver again for a target whose
// intent is recorded: a call that may still be running in the backend.
func mayStillRun[A interface {
	fmt.Stringer
	CallsDriver() bool
}, T any](d decide.Decision[A, T]) bool {
	return d.Action.CallsDriver() && !d.RecordIntent
}

// failedLast is the operation whose remembered failure is the more recent.
func failedLast(resized *decide.ResizeFailure, modified *decide.ModifyFailure) operation {
	switch {
	case resized == nil && modified == nil:
		return noOperation
	case modified == nil || resized != nil && resized.At.After(modified.At):
		return resizeOperation
	}
	return modifyOperation
}

// wait is how long until a waiting decision is due again; 0 when none waits.
func (p plan) wait() time.Duration {
	return soonest(p.resize.RetryAfter, p.modify.RetryAfter)
}

// soonest is the smallest positive duration of a and b; 0 when neither is.
func soonest(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return max(b, 0)
	case b <= 0 || a < b:
		return a
	}
	return b
}
