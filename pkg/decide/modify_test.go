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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// t0 is the tests' now; retry the infeasible retry interval.
var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

const (
	retry   = 5 * time.Minute
	ours    = "ours.csi.example.com"
	pending = v1.PersistentVolumeClaimModifyVolumePending
	running = v1.PersistentVolumeClaimModifyVolumeInProgress
	refused = v1.PersistentVolumeClaimModifyVolumeInfeasible
)

// classDrivers: gold and silver are ours, alien is another driver's; bronze does
// not exist.
var classDrivers = map[string]string{"gold": ours, "silver": ours, "alien": "other.csi.example.com"}

func rec(target string, s v1.PersistentVolumeClaimModifyVolumeStatus) *Recorded {
	return &Recorded{Target: target, Status: s}
}

func failedModify(c Class, target string, ago time.Duration) *ModifyFailure {
	return &ModifyFailure{Class: c, Target: target, At: t0.Add(-ago)}
}

func TestDecideModify(t *testing.T) {
	tests := []struct {
		name       string
		state      ModifyState
		wantAction ModifyAction
		wantTarget string
		wantIntent bool
		wantAfter  time.Duration
	}{
		// Nothing asked.
		{name: "no class anywhere: nothing", state: ModifyState{}, wantAction: ModifyNone},
		{name: "at the requested class: nothing", state: ModifyState{Spec: "gold", Current: "gold"}, wantAction: ModifyNone},
		{name: "spec unset with a current class: nothing", state: ModifyState{Current: "gold"}, wantAction: ModifyNone},

		// A new class.
		{name: "new class of ours: modify and record intent", state: ModifyState{Spec: "gold"}, wantAction: ModifyCall, wantTarget: "gold", wantIntent: true},
		{name: "class changed from current: modify", state: ModifyState{Spec: "silver", Current: "gold"}, wantAction: ModifyCall, wantTarget: "silver", wantIntent: true},
		{name: "intent already recorded, no error: call without a write", state: ModifyState{Spec: "silver", Current: "gold", Recorded: rec("silver", running), Modifying: true}, wantAction: ModifyCall, wantTarget: "silver"},
		{name: "class does not exist: pend", state: ModifyState{Spec: "bronze", Current: "gold"}, wantAction: Pend, wantTarget: "bronze", wantIntent: true},
		{name: "pending already recorded: pend without a write", state: ModifyState{Spec: "bronze", Recorded: rec("bronze", pending)}, wantAction: Pend, wantTarget: "bronze"},
		{name: "pending class created: modify", state: ModifyState{Spec: "gold", Recorded: rec("gold", pending)}, wantAction: ModifyCall, wantTarget: "gold", wantIntent: true},
		{name: "class of another driver: refuse", state: ModifyState{Spec: "alien", Current: "gold"}, wantAction: Refuse, wantTarget: "alien"},
		{name: "in-tree volume: refuse", state: ModifyState{Spec: "gold", NotCSI: "in-tree"}, wantAction: Refuse, wantTarget: "gold"},

		// Uncertain: the recorded target wins.
		{name: "in progress, no error (restart mid-call): finish recorded", state: ModifyState{Spec: "silver", Recorded: rec("gold", running), Modifying: true}, wantAction: ModifyCall, wantTarget: "gold"},
		{name: "uncertain recorded, spec changed: finish recorded", state: ModifyState{Spec: "silver", Current: "bronze", Recorded: rec("gold", running), Modifying: true, ErrorCode: "DeadlineExceeded"}, wantAction: ModifyCall, wantTarget: "gold"},
		{name: "uncertain remembered beats a recorded final code", state: ModifyState{Spec: "silver", Recorded: rec("gold", running), ErrorCode: "Internal", LastFailure: failedModify(Uncertain, "gold", time.Second)}, wantAction: ModifyCall, wantTarget: "gold"},
		{name: "uncertain recorded, spec unset: finish recorded", state: ModifyState{Recorded: rec("gold", running), ErrorCode: "Unavailable"}, wantAction: ModifyCall, wantTarget: "gold"},
		{name: "uncertain recorded, spec back at current: finish recorded", state: ModifyState{Spec: "silver", Current: "silver", Recorded: rec("gold", running), ErrorCode: "Aborted"}, wantAction: ModifyCall, wantTarget: "gold"},
		{name: "error without gRPC code recorded: uncertain", state: ModifyState{Spec: "silver", Recorded: rec("gold", running), ErrorCode: "Uncertain"}, wantAction: ModifyCall, wantTarget: "gold"},
		{name: "uncertain, class deleted: blocked", state: ModifyState{Spec: "silver", Recorded: rec("bronze", running)}, wantAction: Blocked, wantTarget: "bronze"},
		{name: "uncertain, class now of another driver: blocked", state: ModifyState{Spec: "silver", Recorded: rec("alien", running)}, wantAction: Blocked, wantTarget: "alien"},

		// Final failures: the spec is followed again.
		{name: "final recorded, same spec: retry and clear the error", state: ModifyState{Spec: "gold", Recorded: rec("gold", running), ErrorCode: "Internal"}, wantAction: ModifyCall, wantTarget: "gold", wantIntent: true},
		{name: "final recorded, spec changed: follow the spec", state: ModifyState{Spec: "silver", Recorded: rec("gold", running), ErrorCode: "Internal"}, wantAction: ModifyCall, wantTarget: "silver", wantIntent: true},
		{name: "final remembered beats a recorded uncertain code", state: ModifyState{Spec: "silver", Recorded: rec("gold", running), ErrorCode: "DeadlineExceeded", LastFailure: failedModify(Final, "gold", time.Second)}, wantAction: ModifyCall, wantTarget: "silver", wantIntent: true},
		{name: "failed precondition is final for modify", state: ModifyState{Spec: "silver", Recorded: rec("gold", running), ErrorCode: "FailedPrecondition"}, wantAction: ModifyCall, wantTarget: "silver", wantIntent: true},

		// Infeasible: slow lane for the same class.
		{name: "infeasible remembered, same class, not due: wait", state: ModifyState{Spec: "gold", Recorded: rec("gold", refused), ErrorCode: "InvalidArgument", ErrorAt: t0.Add(-time.Minute), LastFailure: failedModify(Infeasible, "gold", time.Minute)}, wantAction: ModifyWait, wantTarget: "gold", wantAfter: 4 * time.Minute},
		{name: "infeasible remembered, due: retry", state: ModifyState{Spec: "gold", Recorded: rec("gold", refused), ErrorCode: "InvalidArgument", LastFailure: failedModify(Infeasible, "gold", retry)}, wantAction: ModifyCall, wantTarget: "gold", wantIntent: true},
		{name: "infeasible recorded, memory lost by restart, not due: wait", state: ModifyState{Spec: "gold", Recorded: rec("gold", refused), ErrorCode: "InvalidArgument", ErrorAt: t0.Add(-2 * time.Minute)}, wantAction: ModifyWait, wantTarget: "gold", wantAfter: 3 * time.Minute},
		{name: "infeasible recorded without a time: retry now", state: ModifyState{Spec: "gold", Recorded: rec("gold", refused), ErrorCode: "InvalidArgument"}, wantAction: ModifyCall, wantTarget: "gold", wantIntent: true},
		{name: "infeasible in the future (clock went back): wait at most the interval", state: ModifyState{Spec: "gold", Recorded: rec("gold", refused), LastFailure: failedModify(Infeasible, "gold", -time.Hour)}, wantAction: ModifyWait, wantTarget: "gold", wantAfter: retry},
		{name: "infeasible, user changed class: modify now", state: ModifyState{Spec: "silver", Current: "bronze", Recorded: rec("gold", refused), ErrorCode: "InvalidArgument", LastFailure: failedModify(Infeasible, "gold", time.Second)}, wantAction: ModifyCall, wantTarget: "silver", wantIntent: true},
		{name: "final remembered for the spec's class: no slow lane", state: ModifyState{Spec: "gold", Recorded: rec("gold", running), ErrorCode: "Internal", ErrorAt: t0, LastFailure: failedModify(Final, "gold", time.Second)}, wantAction: ModifyCall, wantTarget: "gold", wantIntent: true},

		// Rollback after a final error: the backend may be partly at the
		// failed class, so the current class is applied again.
		{name: "rollback to current after final: apply the current class again", state: ModifyState{Spec: "gold", Current: "gold", Recorded: rec("silver", running), ErrorCode: "Internal", Modifying: true}, wantAction: ModifyCall, wantTarget: "gold", wantIntent: true},
		{name: "rollback after a final failure remembered: apply the current class again", state: ModifyState{Spec: "gold", Current: "gold", Recorded: rec("silver", running), ErrorCode: "DeadlineExceeded", LastFailure: failedModify(Final, "silver", time.Second)}, wantAction: ModifyCall, wantTarget: "gold", wantIntent: true},
		{name: "rollback after final, current class deleted: pend", state: ModifyState{Spec: "bronze", Current: "bronze", Recorded: rec("silver", running), ErrorCode: "Internal"}, wantAction: Pend, wantTarget: "bronze", wantIntent: true},
		{name: "rollback after final, current class now another driver's: refuse", state: ModifyState{Spec: "alien", Current: "alien", Recorded: rec("silver", running), ErrorCode: "Internal"}, wantAction: Refuse, wantTarget: "alien"},
		{name: "class unset after final: cancel (no class to apply)", state: ModifyState{Current: "gold", Recorded: rec("silver", running), ErrorCode: "Internal"}, wantAction: Cancel, wantTarget: "silver"},

		// Rollback and cancel: no driver call.
		{name: "rollback to current after infeasible: cancel", state: ModifyState{Spec: "gold", Current: "gold", Recorded: rec("platinum", refused), ErrorCode: "InvalidArgument", Modifying: true}, wantAction: Cancel, wantTarget: "platinum"},
		{name: "rollback to current after infeasible in progress: cancel", state: ModifyState{Spec: "gold", Current: "gold", Recorded: rec("platinum", running), ErrorCode: "InvalidArgument", Modifying: true}, wantAction: Cancel, wantTarget: "platinum"},
		{name: "rollback to current while pending: cancel", state: ModifyState{Spec: "gold", Current: "gold", Recorded: rec("bronze", pending)}, wantAction: Cancel, wantTarget: "bronze"},
		{name: "class unset after infeasible: cancel", state: ModifyState{Recorded: rec("gold", refused), ErrorCode: "InvalidArgument"}, wantAction: Cancel, wantTarget: "gold"},
		{name: "class unset while pending: cancel", state: ModifyState{Recorded: rec("bronze", pending)}, wantAction: Cancel, wantTarget: "bronze"},
		{name: "stray modifying condition at the current class: cancel", state: ModifyState{Spec: "gold", Current: "gold", Modifying: true}, wantAction: Cancel, wantTarget: "gold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.state.Driver = ours
			if tt.state.Classes == nil {
				tt.state.Classes = classDrivers
			}
			d := DecideModify(tt.state, t0, retry)
			if d.Action != tt.wantAction || d.Target != tt.wantTarget || d.RecordIntent != tt.wantIntent || d.RetryAfter != tt.wantAfter {
				t.Errorf("Decide = {%s %q intent=%v after=%v} (%s), want {%s %q intent=%v after=%v}",
					d.Action, d.Target, d.RecordIntent, d.RetryAfter, d.Reason, tt.wantAction, tt.wantTarget, tt.wantIntent, tt.wantAfter)
			}
			if d.Reason == "" {
				t.Error("decision without a reason")
			}
		})
	}
}

func TestReasonsNameTheClasses(t *testing.T) {
	d := DecideModify(ModifyState{Driver: ours, Spec: "alien", Classes: classDrivers}, t0, retry)
	for _, want := range []string{`"alien"`, `"other.csi.example.com"`, `"ours.csi.example.com"`} {
		if !contains(d.Reason, want) {
			t.Errorf("refusal %q does not name %s", d.Reason, want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestActionString(t *testing.T) {
	for a, want := range map[ModifyAction]string{ModifyNone: "none", ModifyCall: "modify", Pend: "pend", Refuse: "refuse", Cancel: "cancel", ModifyWait: "wait", Blocked: "blocked"} {
		if a.String() != want {
			t.Errorf("%d.String() = %q, want %q", a, a.String(), want)
		}
	}
}
