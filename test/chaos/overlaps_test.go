//go:build chaos

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

package chaos

import (
	"fmt"
	"time"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// span is a call with the two ends that matter: when the driver finished
// it, and when its caller stopped waiting for it. They differ when the
// caller timed out or died while the driver went on.
type span struct {
	csidriver.LoggedCall
	// sent is when the caller sent the call: its deadline less its
	// --timeout. The driver may begin it later, even after the caller died:
	// the request waits in the socket's buffer.
	sent time.Time
	// end is when the driver answered, or died, or (still running) now.
	end time.Time
	// callerEnd is when the caller stopped waiting: the answer, the caller's
	// deadline or cancellation, or its death, whichever came first.
	// It is before the call's start when the caller was gone by then.
	callerEnd time.Time
	// caller is the run of the resizer that made the call.
	caller framework.Lifetime
}

// waitedAt reports whether the caller was waiting for the call at t, with
// the driver at work on it.
func (s span) waitedAt(t time.Time) bool {
	return !t.Before(s.Start) && t.Before(s.callerEnd)
}

// overlapKind says why two calls on one volume ran in the driver at once.
type overlapKind int

const (
	// bothWaiting: two callers waited on one volume at the same time. The
	// resizer must never do this (docs/design.md#never).
	bothWaiting overlapKind = iota
	// leftByKilled: one call was left in the driver by a resizer process
	// that was killed (while the driver worked on it, or even before the
	// driver read it); its successor called again.
	leftByKilled
	// leftAfterDeadline: one call's caller gave up at its deadline
	// (--timeout) and called again while the driver still worked on it.
	leftAfterDeadline
)

func (k overlapKind) String() string {
	switch k {
	case leftByKilled:
		return "left running by a killed process"
	case leftAfterDeadline:
		return "left running after the caller's deadline"
	default:
		return "two callers waiting at once"
	}
}

// overlap is a pair of calls on one volume that ran in the driver at once.
// The calls may be of either method: a volume gets one call at a time,
// ControllerExpandVolume and ControllerModifyVolume together.
type overlap struct {
	kind          overlapKind
	first, second span
}

// overlapMix says which methods a pair of calls had.
type overlapMix int

const (
	expandExpand overlapMix = iota
	modifyModify
	expandModify
)

func (m overlapMix) String() string {
	switch m {
	case modifyModify:
		return "modify+modify"
	case expandModify:
		return "expand+modify"
	default:
		return "expand+expand"
	}
}

// mix says which methods the two calls had.
func (o overlap) mix() overlapMix {
	switch a, b := o.first.modify(), o.second.modify(); {
	case a && b:
		return modifyModify
	case a || b:
		return expandModify
	}
	return expandExpand
}

func (o overlap) String() string {
	return fmt.Sprintf("%s on %s: pid %d %s %s..%s (caller until %s) and pid %d %s %s..%s (caller until %s)",
		o.kind, o.first.VolumeID, o.first.Pid, o.first.methodName(), clock(o.first.Start), clock(o.first.end), clock(o.first.callerEnd),
		o.second.Pid, o.second.methodName(), clock(o.second.Start), clock(o.second.end), clock(o.second.callerEnd))
}

// modify reports whether the call is a ControllerModifyVolume.
func (s span) modify() bool { return s.Method == csidriver.MethodModify }

// methodName is the call's method, for messages.
func (s span) methodName() string {
	if s.modify() {
		return "modify"
	}
	return "expand"
}

func clock(t time.Time) string { return t.Format("15:04:05.000") }

// spans resolves each call's ends and caller from the call log, the
// callers' --timeout, and the records of which driver and resizer processes
// ran when. Calls from a pid that no resizer run had are returned apart.
func spans(calls []csidriver.LoggedCall, resizers, drivers []framework.Lifetime, timeout time.Duration, now time.Time) (known []span, strangers []csidriver.LoggedCall) {
	for _, c := range calls {
		s := span{LoggedCall: c, sent: c.Start, end: c.End}
		if !c.Deadline.IsZero() {
			s.sent = c.Deadline.Add(-timeout)
		}
		caller, ok := runOf(resizers, c.Pid, s.sent)
		if !ok {
			strangers = append(strangers, c)
			continue
		}
		s.caller = caller
		if !c.Ended() {
			s.end = now
			if d, ok := runOf(drivers, c.Driver, c.Start); ok && !d.End.IsZero() {
				s.end = d.End
			}
		}
		// The caller waits until the answer, and no longer than its
		// deadline, its leaving as the driver saw it, or its death. The
		// driver may have died before it could log the leaving.
		s.callerEnd = s.end
		for _, t := range []time.Time{c.Deadline, c.CallerGone, caller.End} {
			if !t.IsZero() && t.Before(s.callerEnd) {
				s.callerEnd = t
			}
		}
		known = append(known, s)
	}
	return known, strangers
}

// runOf finds the run of pid that was alive at t or, failing that, the
// last one that started before t: a request can reach the driver's handler
// after its sender died. Pids are not reused within a run of the tests.
func runOf(runs []framework.Lifetime, pid int, t time.Time) (framework.Lifetime, bool) {
	var last framework.Lifetime
	found := false
	for _, r := range runs {
		if r.Pid != pid || r.Start.After(t) {
			continue
		}
		if r.Alive(t) {
			return r, true
		}
		if !found || r.Start.After(last.Start) {
			last, found = r, true
		}
	}
	return last, found
}

// overlaps finds every pair of calls on one volume that the driver ran at
// the same time, and says why.
func overlaps(all []span) []overlap {
	byVolume := map[string][]span{}
	for _, s := range all {
		byVolume[s.VolumeID] = append(byVolume[s.VolumeID], s)
	}
	var found []overlap
	for _, calls := range byVolume {
		for i, a := range calls {
			for _, b := range calls[i+1:] {
				first, second := a, b
				if second.Start.Before(first.Start) {
					first, second = second, first
				}
				if !second.Start.Before(first.end) {
					continue
				}
				found = append(found, overlap{kind: kindOf(first, second), first: first, second: second})
			}
		}
	}
	return found
}

// kindOf says why first and second, which the driver ran at once from
// second's start, did so.
func kindOf(first, second span) overlapKind {
	at := second.Start
	if first.waitedAt(at) && second.waitedAt(at) {
		return bothWaiting
	}
	left := first
	if !second.waitedAt(at) {
		left = second
	}
	if !left.caller.Alive(at) {
		return leftByKilled
	}
	return leftAfterDeadline
}
