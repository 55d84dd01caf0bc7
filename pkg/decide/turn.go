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

// turn is what the two decisions about a claim say, for picking which job
// takes its step first. Both are made in the same sync by one worker, so a
// claim's expansion and modification never run at once: the driver gets
// one call per volume at a time, and the two never race on the claim's
// status.
type turn struct {
	resize ResizeDecision
	modify ModifyDecision
	// resizeFailed is true when the last expansion attempt failed.
	resizeFailed bool
	// failedLast is the job whose last driver call failed most recently,
	// as the resizer remembers; NoJob when neither's did.
	failedLast Job
}

// first picks the job whose step runs now. When both have a step to take
// and one of them failed last, the other goes first: turns are fair, so a
// job that keeps failing (a driver call that keeps timing out) never holds
// the other back. Otherwise:
//  1. a modification whose driver call may still be running (recorded in
//     progress, not known to have failed), then such an expansion: what the
//     backend may still be doing is finished before anything new starts;
//  2. an expansion, unless its last attempt failed: capacity is what a
//     full volume needs, and a class change can wait a few seconds;
//  3. the modification (so that a failing expansion does not hold back a
//     class change), then the expansion that failed.
//
// Either way an uncertain target of a job is finished before any new
// target of that same job (the decisions see to it), and the claim's one
// worker makes one driver call at a time.
func (t turn) first() Job {
	expands, modifies := t.resize.Action.Acts(), t.modify.Action.Acts()
	switch {
	case expands && modifies && t.failedLast == ResizeJob:
		return ModifyJob
	case expands && modifies && t.failedLast == ModifyJob:
		return ResizeJob
	case mayStillRun(t.modify):
		return ModifyJob
	case expands && (mayStillRun(t.resize) || !t.resizeFailed):
		return ResizeJob
	case modifies:
		return ModifyJob
	case expands:
		return ResizeJob
	}
	return NoJob
}

// mayStillRun reports whether d calls the driver again for a target whose
// intent is recorded: a call that may still be running in the backend.
func mayStillRun[A interface {
	String() string
	CallsDriver() bool
}, T any](d Decision[A, T]) bool {
	return d.Action.CallsDriver() && !d.RecordIntent
}

// failedLast is the job whose remembered failure is the more recent.
func failedLast(m Memory) Job {
	resized, modified := m.ResizeFailure, m.ModifyFailure
	switch {
	case resized == nil && modified == nil:
		return NoJob
	case modified == nil || resized != nil && resized.At.After(modified.At):
		return ResizeJob
	}
	return ModifyJob
}
