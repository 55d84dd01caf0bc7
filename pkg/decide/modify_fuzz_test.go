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
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// fuzzNames are the class names a fuzzed claim picks from: two of ours, one
// of another driver, one that does not exist, and no class; a selector past
// the end uses the fuzzed string instead.
var fuzzNames = []string{"", "gold", "silver", "alien", "bronze"}

var fuzzModifyStatuses = []v1.PersistentVolumeClaimModifyVolumeStatus{pending, running, refused}

var fuzzCodes = []string{"", "DeadlineExceeded", "Unavailable", "InvalidArgument", "Internal", "FailedPrecondition", "Uncertain", "Unknown"}

func pick[T any](list []T, i uint8, other T) T {
	if int(i) < len(list) {
		return list[i]
	}
	return other
}

// FuzzModifyDecide feeds arbitrary claim states to Decide and checks the
// invariants of docs/design.md#modification on every decision.
//
// Run it for longer with:
//
//	go test -run='^$' -fuzz='^FuzzModifyDecide$' -fuzztime=60s ./pkg/modify/
func FuzzModifyDecide(f *testing.F) {
	// spec, current, target selectors; a free name; status selector
	// (0 = none); modifying; error code selector; error age; failure class
	// (0 = none), failure target selector, failure age; not CSI.
	f.Add(uint8(1), uint8(0), uint8(0), "", uint8(0), false, uint8(0), int64(0), uint8(0), uint8(0), int64(0), false)
	f.Add(uint8(2), uint8(1), uint8(1), "", uint8(2), true, uint8(1), int64(time.Second), uint8(1), uint8(1), int64(time.Second), false)
	f.Add(uint8(1), uint8(1), uint8(3), "", uint8(3), true, uint8(3), int64(time.Minute), uint8(2), uint8(3), int64(time.Minute), false)
	f.Add(uint8(0), uint8(0), uint8(4), "", uint8(1), false, uint8(0), int64(0), uint8(0), uint8(0), int64(0), false)
	f.Add(uint8(9), uint8(1), uint8(9), "gold", uint8(2), true, uint8(4), int64(-time.Hour), uint8(3), uint8(9), int64(-time.Hour), true)
	f.Fuzz(func(t *testing.T, specSel, currentSel, targetSel uint8, name string, statusSel uint8, modifying bool,
		codeSel uint8, errorAge int64, failClass, failTargetSel uint8, failAge int64, notCSI bool) {
		s := ModifyState{
			Driver:    ours,
			Spec:      pick(fuzzNames, specSel, name),
			Current:   pick(fuzzNames, currentSel, name),
			Modifying: modifying,
			ErrorCode: pick(fuzzCodes, codeSel, name),
			Classes:   classDrivers,
		}
		if statusSel > 0 {
			s.Recorded = &Recorded{Target: pick(fuzzNames, targetSel, name),
				Status: pick(fuzzModifyStatuses, statusSel-1, v1.PersistentVolumeClaimModifyVolumeStatus(name))}
		}
		if s.ErrorCode != "" {
			s.ErrorAt = t0.Add(-time.Duration(errorAge))
		}
		if failClass > 0 {
			s.LastFailure = &ModifyFailure{Class: Class(failClass % 4), Target: pick(fuzzNames, failTargetSel, name), At: t0.Add(-time.Duration(failAge))}
		}
		if notCSI {
			s.NotCSI = "in-tree volume"
		}
		d := DecideModify(s, t0, retry)
		checkModify(t, s, d)
	})
}

// rolledBackAfterCall is true when the spec is back at the current class
// after a driver call to another class failed for sure (a final error) but
// not as infeasible: the backend may be partly at that class.
func rolledBackAfterCall(s ModifyState) bool {
	r := s.Recorded
	if s.Spec != s.Current || r == nil || r.Status != v1.PersistentVolumeClaimModifyVolumeInProgress {
		return false
	}
	class := ModifyRules.ClassOfReason(s.ErrorCode)
	if s.LastFailure != nil && s.LastFailure.Target == r.Target {
		class = s.LastFailure.Class
	}
	return class.Final() && class != Infeasible
}

// checkModify asserts what must hold of every decision.
func checkModify(t *testing.T, s ModifyState, d ModifyDecision) {
	t.Helper()
	if d.Reason == "" {
		t.Errorf("decision %s without a reason", d.Action)
	}
	unfinished, isUnfinished := s.unfinished()
	if isUnfinished && (d.Action != ModifyCall && d.Action != Blocked || d.Target != unfinished) {
		// An uncertain call must be finished at its recorded class.
		t.Fatalf("unfinished modification to %q, decided %s %q", unfinished, d.Action, d.Target)
	}
	switch d.Action {
	case ModifyCall:
		// Never a call with a class of another driver, or one that does not exist,
		// or for a volume that cannot carry a class.
		if s.Classes[d.Target] != s.Driver || d.Target == "" || s.NotCSI != "" {
			t.Fatalf("modify to %q (driver %q, NotCSI %q)", d.Target, s.Classes[d.Target], s.NotCSI)
		}
		if !isUnfinished && d.Target != s.Spec {
			t.Fatalf("modify to %q while the spec asks %q and nothing is unfinished", d.Target, s.Spec)
		}
		if !isUnfinished && d.Target == s.Current && !rolledBackAfterCall(s) {
			t.Fatalf("a call re-applying the current class %q, though no call to another class failed", d.Target)
		}
	case ModifyWait:
		if d.RetryAfter <= 0 || d.RetryAfter > retry {
			t.Fatalf("wait %v outside (0, %v]", d.RetryAfter, retry)
		}
	case Pend:
		if _, exists := s.Classes[d.Target]; exists || d.Target != s.Spec {
			t.Fatalf("pending on %q (spec %q, exists %v)", d.Target, s.Spec, exists)
		}
	case ModifyNone, Cancel:
		if s.Spec != "" && s.Spec != s.Current {
			t.Fatalf("%s while the spec asks %q and the current class is %q", d.Action, s.Spec, s.Current)
		}
		// After a driver call that may have changed the volume in part, a
		// rollback goes through the driver.
		if !isUnfinished && s.Spec != "" && rolledBackAfterCall(s) {
			t.Fatalf("%s of a rollback to %q after a failed call to %q", d.Action, s.Current, s.Recorded.Target)
		}
	}
	if d.Action == ModifyNone && (s.Recorded != nil || s.Modifying || s.ErrorCode != "") {
		t.Fatalf("nothing to do, yet the claim carries a modification record")
	}
}
