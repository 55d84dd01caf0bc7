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
)

// TestDecideDegenerateStates holds the states FuzzDecide found wrong, and
// their neighbours: no size at all to expand to, and a remembered failure
// dated after now.
func TestDecideDegenerateStates(t *testing.T) {
	tests := []struct {
		name       string
		state      ResizeState
		wantAction ResizeAction
		wantAfter  time.Duration
	}{
		{name: "in progress without request, allocated or PV size: no size to ask for", state: ResizeState{Status: ctrlProgress}, wantAction: ResizeNone},
		{name: "node pending without allocated, request or PV size", state: ResizeState{Status: nodePending}, wantAction: ResizeNone},
		{name: "negative request over a negative capacity", state: ResizeState{Request: q("-1"), Capacity: q("-2")}, wantAction: ResizeNone},
		{name: "recorded size of 0 while in progress", state: ResizeState{Allocated: qp("0"), Status: ctrlProgress}, wantAction: ResizeNone},
		{name: "no request but a PV size: finish at the PV size", state: ResizeState{PVSize: q("1Gi"), Status: ctrlProgress}, wantAction: Expand},
		{name: "infeasible failure dated an hour after now waits one retry interval, no more",
			state:      ResizeState{Request: q("5Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlInfeasible, ErrorRecorded: true, LastFailure: failedResize(Infeasible, "5Gi", -time.Hour), Recovery: true},
			wantAction: ResizeWait, wantAfter: retry},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := DecideResize(tc.state, t0, retry)
			if d.Action != tc.wantAction {
				t.Fatalf("action = %s (target %s, reason %q), want %s", d.Action, d.Target.String(), d.Reason, tc.wantAction)
			}
			if d.RetryAfter != tc.wantAfter {
				t.Errorf("retry after = %s, want %s", d.RetryAfter, tc.wantAfter)
			}
			checkDecision(t, tc.state, d)
		})
	}
}
