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
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// fuzzResizeStatuses are the statuses a claim can carry; a selector past the end
// uses the fuzzed string instead, so unknown values are tried too.
var fuzzResizeStatuses = []v1.ClaimResourceStatus{"", ctrlProgress, ctrlInfeasible, nodePending, nodeProgress, nodeInfeasible}

// fuzzQuantity builds a quantity of value * 10^scale. Scale selectors within
// [-100, 100] give scales within [-9, 18], so that fractions (milli, nano)
// and exabytes both occur; beyond, extreme scales (up to +-2^31-1), as a
// valid quantity such as "1e2000000000" carries, which
// resource.Quantity.Cmp cannot compare in useful time.
// fuzzClasses are the classes a remembered failure may have; the last
// stands for an in-use failure.
var fuzzClasses = []Class{Uncertain, Infeasible, Final, Final}

func fuzzQuantity(value int64, scale int8) resource.Quantity {
	var s int64
	switch {
	case scale > 100:
		s = min(int64(scale-100)*100_000_000, math.MaxInt32)
	case scale < -100:
		s = max(int64(scale+100)*100_000_000, -math.MaxInt32)
	default:
		s = (int64(scale)%28+28)%28 - 9
	}
	return *resource.NewScaledQuantity(value, resource.Scale(s))
}

// FuzzDecide feeds arbitrary claim states to Decide and checks the
// invariants of docs/design.md#expansion and docs/design.md#never on every
// decision.
//
// Run it for longer with:
//
//	go test -run='^$' -fuzz='^FuzzDecide$' -fuzztime=60s ./pkg/resize/
func FuzzDecide(f *testing.F) {
	// request, requestScale, capacity, capacityScale, pv, pvScale, allocated, allocatedScale,
	// hasAllocated, status selector, unknown status, errorRecorded, failure class (0 = none),
	// failure target selector, failure target, failure age, recovery, the bytes the driver
	// allocates beyond an expansion's target, whether it asks for the node step, and what
	// the resizer remembers of a driver that gave more than asked (see fuzzRounded).
	f.Add(int64(2), int8(18), int64(1), int8(18), int64(1), int8(18), int64(0), int8(0), false, uint8(0), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), false, uint8(0))
	f.Add(int64(3), int8(18), int64(1), int8(18), int64(1), int8(18), int64(5), int8(18), true, uint8(1), "", false, uint8(1), uint8(1), int64(0), int64(time.Second), false, int64(0), true, uint8(0))
	f.Add(int64(5), int8(18), int64(1), int8(18), int64(1), int8(18), int64(5), int8(18), true, uint8(2), "", true, uint8(2), uint8(1), int64(0), int64(time.Minute), true, int64(0), false, uint8(0))
	f.Add(int64(5), int8(18), int64(1), int8(18), int64(1), int8(18), int64(5), int8(18), true, uint8(2), "", true, uint8(2), uint8(1), int64(0), int64(-time.Hour), true, int64(0), false, uint8(0))
	f.Add(int64(4), int8(18), int64(1), int8(18), int64(2), int8(18), int64(2), int8(18), true, uint8(3), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), false, uint8(0))
	f.Add(int64(0), int8(0), int64(0), int8(0), int64(0), int8(0), int64(0), int8(0), false, uint8(1), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), false, uint8(0))
	f.Add(int64(1500), int8(6), int64(1), int8(9), int64(-1), int8(9), int64(9), int8(27), true, uint8(200), "Bogus", false, uint8(9), uint8(3), int64(7), int64(0), false, int64(0), false, uint8(0))
	// The driver allocates more than asked for: finished, and node pending.
	f.Add(int64(2), int8(18), int64(1), int8(18), int64(1), int8(18), int64(0), int8(0), false, uint8(0), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(512<<20), false, uint8(0))
	f.Add(int64(2), int8(18), int64(1), int8(18), int64(1), int8(18), int64(2), int8(18), true, uint8(1), "", false, uint8(1), uint8(1), int64(0), int64(time.Second), false, int64(1), true, uint8(0))
	// Kubelet found the driver's larger capacity infeasible; the request is as it was.
	f.Add(int64(2), int8(18), int64(1), int8(18), int64(3), int8(18), int64(3), int8(18), true, uint8(5), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), false, uint8(0))
	// A claim the driver gave more, finished, whose request is raised within that.
	f.Add(int64(2500), int8(15), int64(3), int8(18), int64(3), int8(18), int64(3), int8(18), true, uint8(0), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), false, uint8(0))
	// AnnotateFsResize: the claim has reached its volume's size.
	f.Add(int64(2), int8(18), int64(2), int8(18), int64(2), int8(18), int64(2), int8(18), true, uint8(0), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), false, uint8(128))
	// Kubelet finished at the target the driver gave more for; then at a
	// lowered request, after refusing the larger target (KEP-1790).
	f.Add(int64(2), int8(18), int64(2), int8(18), int64(3), int8(18), int64(2), int8(18), true, uint8(0), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), false, uint8(1))
	f.Add(int64(2), int8(18), int64(2), int8(18), int64(3), int8(18), int64(2), int8(18), true, uint8(0), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), false, uint8(2))
	// The driver answered 3 with 2, which kubelet finished at, clearing
	// the condition; and the size handed back to kubelet, refused once.
	f.Add(int64(3), int8(18), int64(2), int8(18), int64(2), int8(18), int64(2), int8(18), true, uint8(0), "", false, uint8(6), uint8(0), int64(0), int64(time.Second), true, int64(0), true, uint8(0))
	f.Add(int64(2), int8(18), int64(1), int8(18), int64(3), int8(18), int64(2), int8(18), true, uint8(5), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), true, uint8(16))
	// Kubelet refused the target; the request is lowered below it.
	f.Add(int64(2), int8(18), int64(1), int8(18), int64(3), int8(18), int64(3), int8(18), true, uint8(5), "", false, uint8(0), uint8(0), int64(0), int64(0), true, int64(0), true, uint8(0))
	f.Fuzz(func(t *testing.T, req int64, reqScale int8, capacity int64, capScale int8, pv int64, pvScale int8,
		alloc int64, allocScale int8, hasAlloc bool, statusSel uint8, unknownStatus string, errorRecorded bool,
		class uint8, failSel uint8, failValue int64, failAge int64, recovery bool, extra int64, nodeStep bool, rounded uint8) {
		s := ResizeState{
			Request:       fuzzQuantity(req, reqScale),
			Capacity:      fuzzQuantity(capacity, capScale),
			PVSize:        fuzzQuantity(pv, pvScale),
			ErrorRecorded: errorRecorded,
			Recovery:      recovery,
		}
		if hasAlloc {
			a := fuzzQuantity(alloc, allocScale)
			s.Allocated = &a
		}
		if int(statusSel) < len(fuzzResizeStatuses) {
			s.Status = fuzzResizeStatuses[statusSel]
		} else {
			s.Status = v1.ClaimResourceStatus(unknownStatus)
		}
		if class > 0 {
			f := &ResizeFailure{Class: fuzzClasses[(class-1)%4], At: t0.Add(-time.Duration(failAge))}
			if (class-1)%4 == 3 {
				f.Reason = "FailedPrecondition" // in use
			}
			if f.Class == Infeasible && (class-1)/4%2 == 1 {
				f.Reason = ReasonShort // the driver answered less
			}
			switch failSel % 4 {
			case 0:
				f.Target = s.Request
			case 1:
				if s.Allocated != nil {
					f.Target = *s.Allocated
				}
			case 2:
				f.Target = s.PVSize
			default:
				f.Target = *resource.NewQuantity(failValue, resource.BinarySI)
			}
			s.LastFailure = f
		}
		s.Rounded = fuzzRounded(s, rounded)
		s.HandedBack = fuzzHandBack(s, rounded>>4)
		s.PreResizeAnnotated = rounded >= 128
		d := DecideResize(s, t0, retry)
		checkDecision(t, s, d)
		if d.Action == Expand && !outOfRange(s) {
			checkSuccess(t, s, d.Target, extra, nodeStep)
		}
	})
}

// checkDecision fails t when d breaks an invariant for s. The invariants are
// written from the contract (docs/design.md), not from the code.
func checkDecision(t *testing.T, s ResizeState, d ResizeDecision) {
	t.Helper()
	if d.Reason == "" {
		t.Errorf("%s: empty reason", describe(s))
	}
	switch d.Action {
	case ResizeNone, Expand, ResizeWait, RecordVolumeSize, NodeRetry, DropPreResizeCapacity, RecordShort:
	default:
		t.Fatalf("%s: unknown action %d", describe(s), d.Action)
	}

	// A size that cannot be compared in bounded time stops everything (and
	// every check below compares sizes).
	if outOfRange(s) {
		if d.Action != ResizeNone {
			t.Errorf("%s: %s with a size out of range", describe(s), d.Action)
		}
		return
	}

	// Kubelet owns the volume once the PV holds the recorded size.
	if (s.Status == nodePending || s.Status == nodeProgress) && s.Allocated != nil && s.PVSize.Cmp(*s.Allocated) >= 0 && d.Action != ResizeNone {
		t.Errorf("%s: %s while kubelet owns the volume", describe(s), d.Action)
	}
	// A claim whose recorded size covers its request and whose step is done
	// (finished, or handed to kubelet with the PV at that size) is never
	// expanded again, even when that size is above the request because
	// the driver allocated more: no new expansion, no "lowered request".
	if settled(s) && d.Action != ResizeNone && d.Action != RecordVolumeSize && d.Action != DropPreResizeCapacity {
		t.Errorf("%s: %s to %s, but the claim holds its request and no step is unfinished", describe(s), d.Action, d.Target.String())
	}
	// kubelet finished at the recorded size below the volume's that the
	// driver gave for that very size: the volume's size is recorded, and
	// only then; never a size kubelet did not finish at for another reason
	// (a target it refused), nor one the resizer does not remember the
	// driver giving (after a restart).
	if finishedBelowRounded(s) != (d.Action == RecordVolumeSize) {
		t.Errorf("%s: %s to %s; kubelet finished below the volume's size the driver gave for it: %v", describe(s), d.Action, d.Target.String(), finishedBelowRounded(s))
	}
	// After kubelet found the recorded size infeasible, a request lowered
	// to a size the claim does not hold yet is followed at once, when no
	// call failed since: handed to kubelet, or expanded to.
	if lowered := s.Recovery && s.Status == nodeInfeasible && s.Allocated != nil && s.LastFailure == nil && s.Request.Sign() > 0 &&
		s.Request.Cmp(*s.Allocated) < 0 && s.Request.Cmp(s.Capacity) > 0; lowered &&
		((d.Action != NodeRetry && d.Action != Expand) || d.Target.Cmp(s.Request) != 0) {
		t.Errorf("%s: %s to %s (%s), want the lowered request %s followed", describe(s), d.Action, d.Target.String(), d.Reason, s.Request.String())
	}
	// A node retry hands kubelet the request, which the volume holds and
	// the claim does not: lowered, after kubelet found the recorded size
	// infeasible; or raised, after kubelet finished below the volume.
	if d.Action == NodeRetry && !handedBackOnceRefused(s) && (d.Target.Cmp(s.Request) != 0 || s.PVSize.Cmp(d.Target) < 0 || s.Allocated == nil || d.Target.Cmp(s.Capacity) <= 0 ||
		!(s.Status == nodeInfeasible && d.Target.Cmp(*s.Allocated) < 0 || s.Status == "" && s.Capacity.Cmp(*s.Allocated) == 0)) {
		t.Errorf("%s: node retry at %s", describe(s), d.Target.String())
	}
	// A size handed back once and marked infeasible (perhaps for another
	// node's failure of the size before it) is handed back once more, and
	// a size handed back twice never again.
	if handedBackOnceRefused(s) && (d.Action != NodeRetry || d.Target.Cmp(*s.Allocated) != 0) {
		t.Errorf("%s: %s to %s, want %s handed back once more", describe(s), d.Action, d.Target.String(), s.Allocated.String())
	}
	// A short answer is recorded again only while the claim says nothing
	// of it, with no driver call, for the size it was the answer to.
	if d.Action == RecordShort {
		f := s.LastFailure
		if f == nil || f.Reason != ReasonShort || f.Target.Cmp(d.Target) != 0 || s.ErrorRecorded || s.Status != "" {
			t.Errorf("%s: %s to %s, but no unrecorded short answer to it is remembered", describe(s), d.Action, d.Target.String())
		}
		return
	}
	// Kubelet finished below the volume's size, and the request is raised
	// within it: only the node's part is left, at the request (asking the
	// driver for less than the volume has is refused by drivers; asking for
	// the volume's size would grow the file system beyond the request).
	if s.Status == "" && s.Allocated != nil && s.Capacity.Sign() > 0 && s.Capacity.Cmp(*s.Allocated) == 0 &&
		s.Request.Cmp(s.Capacity) > 0 && s.PVSize.Cmp(s.Request) >= 0 && (d.Action != NodeRetry || d.Target.Cmp(s.Request) != 0) {
		t.Errorf("%s: %s to %s (%s), want the request handed to kubelet", describe(s), d.Action, d.Target.String(), d.Reason)
	}
	if d.Action == RecordVolumeSize && d.Target.Cmp(s.PVSize) != 0 {
		t.Errorf("%s: settle at %s, want the volume's size %s", describe(s), d.Target.String(), s.PVSize.String())
	}
	// Kubelet found the recorded size infeasible: asking the driver for it
	// again would only hand kubelet the same size.
	if s.Status == nodeInfeasible && s.Allocated != nil && d.Action == Expand && d.Target.Cmp(*s.Allocated) == 0 {
		t.Errorf("%s: expand again to %s, the size kubelet found infeasible", describe(s), d.Target.String())
	}
	// ... nor is anything done until the user asks for another size.
	if s.Status == nodeInfeasible && s.Allocated != nil && s.Request.Cmp(*s.Allocated) == 0 && d.Action != ResizeNone && !handedBackOnceRefused(s) {
		t.Errorf("%s: %s to %s, but the request is still the size kubelet found infeasible", describe(s), d.Action, d.Target.String())
	}
	// AnnotateFsResize's annotation goes once the claim has the volume's
	// size and nothing else is to be done, and only then.
	dropped := s.PreResizeAnnotated && s.Capacity.Cmp(s.PVSize) >= 0 && s.Request.Cmp(s.Capacity) <= 0 &&
		s.Status != ctrlProgress && s.Status != nodePending && s.Status != nodeProgress && !finishedBelowRounded(s)
	if d.Action == DropPreResizeCapacity && !dropped {
		t.Errorf("%s: %s, but the claim has not reached the volume's size with nothing left to do", describe(s), d.Action)
	}
	if d.Action == DropPreResizeCapacity {
		return
	}
	if d.Action == ResizeNone {
		return
	}

	// Never shrink, never a size of 0, never a size nobody asked for.
	if d.Target.Sign() <= 0 {
		t.Errorf("%s: %s to non-positive size %s", describe(s), d.Action, d.Target.String())
	}
	if d.Action != NodeRetry && d.Target.Cmp(s.PVSize) < 0 {
		t.Errorf("%s: target %s below the PV size %s", describe(s), d.Target.String(), s.PVSize.String())
	}
	known := d.Target.Cmp(s.Request) == 0 || d.Target.Cmp(s.PVSize) == 0 ||
		(s.Allocated != nil && d.Target.Cmp(*s.Allocated) == 0)
	if !known {
		t.Errorf("%s: target %s is none of request, allocated, PV size", describe(s), d.Target.String())
	}

	// An unfinished, uncertain controller step is finished at its size.
	uncertain := s.LastFailure == nil && !s.ErrorRecorded || s.LastFailure != nil && s.LastFailure.Class == Uncertain
	if s.Status == ctrlProgress && s.Allocated != nil && uncertain {
		want := *s.Allocated
		if s.PVSize.Cmp(want) > 0 {
			want = s.PVSize
		}
		if d.Target.Cmp(want) != 0 {
			t.Errorf("%s: uncertain step recorded at %s switched to %s", describe(s), want.String(), d.Target.String())
		}
	}

	// The slow lane: an infeasible size waits, and only that size.
	f := s.LastFailure
	notDue := f != nil && f.Class == Infeasible && f.Target.Cmp(d.Target) == 0 && f.At.Add(retry).After(t0)
	switch d.Action {
	case ResizeWait:
		if !notDue {
			t.Errorf("%s: wait without an infeasible failure at %s that is not yet due", describe(s), d.Target.String())
		}
		if d.RetryAfter <= 0 || d.RetryAfter > retry {
			t.Errorf("%s: wait %s, want in (0, %s]", describe(s), d.RetryAfter, retry)
		}
	case Expand:
		if notDue {
			t.Errorf("%s: expand to %s before its infeasible retry is due", describe(s), d.Target.String())
		}
		recorded := s.Status == ctrlProgress && s.Allocated != nil && s.Allocated.Cmp(d.Target) == 0 && !s.ErrorRecorded
		if d.RecordIntent == recorded {
			t.Errorf("%s: record intent = %v for target %s", describe(s), d.RecordIntent, d.Target.String())
		}
	}
}

// settled is true when s records a size at or above its request, a
// capacity at or above it, and no unfinished controller step.
func settled(s ResizeState) bool {
	if s.Allocated == nil || s.Allocated.Cmp(s.Request) < 0 || s.Capacity.Cmp(s.Request) < 0 {
		return false
	}
	switch s.Status {
	case ctrlProgress:
		return false
	case nodePending, nodeProgress:
		return s.PVSize.Cmp(*s.Allocated) >= 0
	}
	return true
}

// finishedBelowRounded is true when the claim's resize is complete (no
// status) at its recorded size, which covers the request, while its volume
// is larger by what the resizer remembers the driver giving for that size.
func finishedBelowRounded(s ResizeState) bool {
	return s.Status == "" && s.Allocated != nil && s.Capacity.Sign() > 0 && s.Capacity.Cmp(*s.Allocated) == 0 &&
		s.Request.Cmp(s.Capacity) <= 0 && s.PVSize.Cmp(s.Capacity) > 0 &&
		s.Rounded != nil && s.Rounded.Target.Cmp(s.Capacity) == 0 && s.Rounded.Size.Cmp(s.PVSize) == 0
}

// outOfRange is true when a size of s is beyond 1e30 bytes or, not zero,
// below 1e-30 bytes in magnitude, or carries a decimal exponent beyond 1000
// (a zero too).
func outOfRange(s ResizeState) bool {
	sizes := []resource.Quantity{s.Request, s.Capacity, s.PVSize}
	if s.Allocated != nil {
		sizes = append(sizes, *s.Allocated)
	}
	if s.LastFailure != nil {
		sizes = append(sizes, s.LastFailure.Target)
	}
	for _, q := range sizes {
		v := math.Abs(q.AsApproximateFloat64())
		scale := q.AsDec().Scale() // q is a copy
		if math.IsNaN(v) || v > 1e30 || !q.IsZero() && v < 1e-30 || scale > 1000 || scale < -1000 {
			return true
		}
	}
	return false
}

func describe(s ResizeState) string {
	alloc := "nil"
	if s.Allocated != nil {
		alloc = s.Allocated.String()
	}
	failure := "none"
	if f := s.LastFailure; f != nil {
		failure = f.Class.String() + "@" + f.Target.String() + " " + t0.Sub(f.At).String() + " ago"
	}
	return "request=" + s.Request.String() + " capacity=" + s.Capacity.String() + " pv=" + s.PVSize.String() +
		" allocated=" + alloc + " status=" + string(s.Status) + " errorRecorded=" + boolString(s.ErrorRecorded) +
		" failure=" + failure + " recovery=" + boolString(s.Recovery)
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
