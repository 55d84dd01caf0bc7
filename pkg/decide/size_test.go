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

	"k8s.io/apimachinery/pkg/api/resource"
)

// TestDecideUncomparableSizes holds the sizes that resource.Quantity.Cmp
// cannot compare in useful time ("1e2000000000" is a valid quantity for the
// API): Decide must leave such a claim alone, at once, and say why.
func TestDecideUncomparableSizes(t *testing.T) {
	huge := q("1e2000000000")
	tiny := *resource.NewScaledQuantity(1, -2000000000)
	tests := []struct {
		name    string
		state   ResizeState
		wantErr string
	}{
		{name: "huge request", state: ResizeState{Request: huge, Capacity: q("1Gi"), PVSize: q("1Gi")}, wantErr: "requested size: size with decimal exponent 2000000000 is out of range"},
		{name: "huge negative request", state: ResizeState{Request: q("-1e2000000000"), Capacity: q("1Gi"), PVSize: q("1Gi")}, wantErr: "requested size"},
		{name: "huge status capacity", state: ResizeState{Request: q("2Gi"), Capacity: huge, PVSize: q("1Gi")}, wantErr: "status capacity"},
		{name: "huge PV size", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: huge}, wantErr: "PV capacity"},
		{name: "huge allocated size", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: &huge, Status: ctrlProgress}, wantErr: "allocated size"},
		{name: "tiny allocated size", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: &tiny, Status: ctrlProgress}, wantErr: "allocated size: size with decimal exponent -2000000000 is out of range"},
		{name: "huge failed size", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), LastFailure: &ResizeFailure{Class: Infeasible, Target: huge, At: t0}}, wantErr: "size of the last failure"},
		{name: "zero with a huge exponent", state: ResizeState{Request: q("2Gi"), Capacity: q("0e2000000000"), PVSize: q("1Gi")}, wantErr: "status capacity: size with decimal exponent 2000000000"},
		{name: "tiny size", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: *resource.NewScaledQuantity(1, -40)}, wantErr: "PV capacity: size 1e-40 is out of range (less than 1e-30 bytes)"},
		{name: "long mantissa", state: ResizeState{Request: q(strings.Repeat("9", 400)), Capacity: q("1Gi"), PVSize: q("1Gi")}, wantErr: "...(400 characters)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.state.Validate(); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Validate() = %v, want %q", err, tc.wantErr)
			}
			done := make(chan ResizeDecision, 1)
			go func() { done <- DecideResize(tc.state, t0, retry) }()
			select {
			case d := <-done:
				if d.Action != ResizeNone || !strings.Contains(d.Reason, tc.wantErr) {
					t.Errorf("decision = %s (%q), want none because %q", d.Action, d.Reason, tc.wantErr)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Decide did not return: it compares a size it cannot compare")
			}
		})
	}

	// Sizes beyond int64 but within range are decided as usual: the CSI
	// resizer refuses them later with a clear error.
	s := ResizeState{Request: q("9223372036854775809"), Capacity: q("8Ei"), PVSize: q("8Ei")}
	if err := s.Validate(); err != nil {
		t.Fatalf("8Ei+1: %v", err)
	}
	if d := DecideResize(s, t0, retry); d.Action != Expand || d.Target.Cmp(s.Request) != 0 {
		t.Errorf("8Ei+1: %s to %s, want expand to the request", d.Action, d.Target.String())
	}
}
