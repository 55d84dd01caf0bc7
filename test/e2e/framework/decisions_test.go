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

package framework

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDecisions(t *testing.T) {
	log := filepath.Join(t.TempDir(), "resizer.log")
	head := `I1124 08:19:23.591250   27769 controller.go:168] "Starting workers" driver="e2e-1.csi.example.com" workers=10
I1124 08:19:23.591502   27769 plan.go:57] "Decided" pvc="e2e-1/data" next="none" owner="nobody" why="settled" resize="none" resizeTarget="0" resizeReason="requested size is reached"
`
	tail := `I1124 08:19:23.606007   27769 plan.go:57] "Decided" pvc="e2e-1/data" next="none" owner="user" why="slow-lane" modify="wait" modifyTarget="e2e-1-gold" modifyReason="class \"e2e-1-gold\" was infeasible; retrying in 3s unless the class changes"
E1124 08:19:23.700000   27769 sync.go:1] "Not a decision" pvc="e2e-1/data"
I1124 08:19:23.711767   27769 plan.go:57] "Decided" pvc="e2e-1/other" next="modify" owner="resizer" why="step-due" resize="none" resizeTarget="0" resizeReason="requested size is reached" modify="modify" modifyTarget="gold" modifyReason="the class changed"
I1124 08:19:23.711800   27769 plan.go:57] "Decided" pvc="e2e-1/data" next="modify" owner="resizer" why="step-due" modify="cancel" modifyTar`
	if err := os.WriteFile(log, []byte(head+tail), 0o600); err != nil {
		t.Fatal(err)
	}
	all, err := Decisions(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Decision{
		{Claim: "e2e-1/data", Next: "none", Owner: "nobody", Why: "settled", Operation: "resize", Action: "none", Target: "0", Reason: "requested size is reached"},
		{Claim: "e2e-1/data", Next: "none", Owner: "user", Why: "slow-lane", Operation: "modify", Action: "wait", Target: "e2e-1-gold",
			Reason: `class "e2e-1-gold" was infeasible; retrying in 3s unless the class changes`},
		{Claim: "e2e-1/other", Next: "modify", Owner: "resizer", Why: "step-due", Operation: "resize", Action: "none", Target: "0", Reason: "requested size is reached"},
		{Claim: "e2e-1/other", Next: "modify", Owner: "resizer", Why: "step-due", Operation: "modify", Action: "modify", Target: "gold", Reason: "the class changed"},
	}
	if !slices.Equal(all, want) {
		t.Errorf("Decisions = %v, want %v (the line being written left out)", all, want)
	}
	later, err := Decisions(log, int64(len(head)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(later, want[1:]) {
		t.Errorf("Decisions from the offset = %v, want %v", later, want[1:])
	}
}
