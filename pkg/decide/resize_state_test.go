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
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
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

// afterFailure is a claim whose attempt at target failed with class, as
// the controller leaves it: the failure recorded in the status, and
// remembered unless the controller restarted since.
func afterFailure(class Class, capacity, pv, target string, restarted, recovery bool) ResizeState {
	s := ResizeState{Request: q(target), Capacity: q(capacity), PVSize: q(pv), Allocated: qp(target),
		Status: ctrlProgress, ErrorRecorded: true, Recovery: recovery}
	if class == Infeasible {
		s.Status = ctrlInfeasible
	}
	if !restarted {
		s.LastFailure = failedResize(class, target, time.Second)
	}
	return s
}

// TestLowerRangeIsWhatDecideFollows checks the range against Decide: every
// request inside it leads to an attempt below the failed size, its upper
// bound does not, and when there is no range no request above the
// capacity leads to another size.
func TestLowerRangeIsWhatDecideFollows(t *testing.T) {
	sizes := []struct{ capacity, pv, target string }{
		{"1Gi", "1Gi", "10Gi"},
		{"1Gi", "3Gi", "10Gi"}, // the PV was grown by an earlier attempt
		{"0", "1Gi", "2Gi"},    // no status capacity yet
		{"1Gi", "10Gi", "10Gi"},
		{"1Gi", "1Gi", "1Gi"},
		{"1500m", "1", "2"},
	}
	for _, class := range []Class{Infeasible, Final} {
		for _, sz := range sizes {
			for _, restarted := range []bool{false, true} {
				for _, recovery := range []bool{true, false} {
					s := afterFailure(class, sz.capacity, sz.pv, sz.target, restarted, recovery)
					name := fmt.Sprintf("%s %+v restarted=%v recovery=%v", class, sz, restarted, recovery)
					t.Run(name, func(t *testing.T) { checkLowerRange(t, s, q(sz.target)) })
				}
			}
		}
	}
}

// TestLowerRangeAfterNodeInfeasible: after kubelet found the size
// infeasible, the range is what Decide hands back to kubelet, whatever the
// volume holds.
func TestLowerRangeAfterNodeInfeasible(t *testing.T) {
	for _, sz := range []struct{ capacity, pv, target string }{
		{"1Gi", "10Gi", "10Gi"},
		{"1Gi", "12Gi", "10Gi"}, // the driver allocated more
		{"1Gi", "1Gi", "1Gi"},
		{"0", "2Gi", "2Gi"},
	} {
		for _, recovery := range []bool{true, false} {
			s := ResizeState{Request: q(sz.target), Capacity: q(sz.capacity), PVSize: q(sz.pv), Allocated: qp(sz.target), Status: nodeInfeasible, Recovery: recovery}
			t.Run(fmt.Sprintf("%+v recovery=%v", sz, recovery), func(t *testing.T) { checkLowerRange(t, s, q(sz.target)) })
		}
	}
}

func checkLowerRange(t *testing.T, s ResizeState, target resource.Quantity) {
	above, below, ok := s.LowerRange(target)
	for _, r := range requestsAbove(s.Capacity, target) {
		lowered := s
		lowered.Request = r
		d := DecideResize(lowered, t0, retry)
		inside := ok && r.Cmp(above) > 0 && r.Cmp(below) < 0
		another := (d.Action == Expand || d.Action == NodeRetry) && d.Target.Cmp(target) < 0
		if inside != another {
			t.Errorf("request %s: range (%s, %s) ok=%v, but Decide says %s to %s (%s)",
				r.String(), above.String(), below.String(), ok, d.Action, d.Target.String(), d.Reason)
		}
	}
}

// requestsAbove returns requests the API server accepts as a lowering
// (above the capacity), from just above it to the failed size and beyond.
func requestsAbove(capacity, target resource.Quantity) []resource.Quantity {
	var out []resource.Quantity
	for _, delta := range []int64{1, 1 << 20, 1 << 30} {
		r := capacity.DeepCopy()
		r.Add(*resource.NewQuantity(delta, resource.BinarySI))
		out = append(out, r)
	}
	for _, delta := range []int64{-1, 0, 1} {
		r := target.DeepCopy()
		r.Add(*resource.NewQuantity(delta, resource.BinarySI))
		if r.Cmp(capacity) > 0 {
			out = append(out, r)
		}
	}
	return out
}

func TestLowerRange(t *testing.T) {
	tests := []struct {
		name      string
		state     ResizeState
		target    string
		wantRange string // "" when none
	}{
		{name: "above the capacity, below the target", state: ResizeState{Capacity: q("1Gi"), PVSize: q("1Gi"), Recovery: true}, target: "10Gi", wantRange: "(1Gi, 10Gi)"},
		{name: "PV grown meanwhile: still from the capacity", state: ResizeState{Capacity: q("1Gi"), PVSize: q("3Gi"), Recovery: true}, target: "10Gi", wantRange: "(1Gi, 10Gi)"},
		{name: "recovery gate off", state: ResizeState{Capacity: q("1Gi"), PVSize: q("1Gi")}, target: "10Gi"},
		{name: "volume already at the target", state: ResizeState{Capacity: q("1Gi"), PVSize: q("10Gi"), Recovery: true}, target: "10Gi"},
		{name: "nothing between capacity and target", state: ResizeState{Capacity: q("2Gi"), PVSize: q("1Gi"), Recovery: true}, target: "2Gi"},
		{name: "no status capacity", state: ResizeState{PVSize: q("1Gi"), Recovery: true, Status: v1.PersistentVolumeClaimControllerResizeInfeasible}, target: "2Gi", wantRange: "(0, 2Gi)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			above, below, ok := tc.state.LowerRange(q(tc.target))
			got := ""
			if ok {
				got = "(" + above.String() + ", " + below.String() + ")"
			}
			if got != tc.wantRange {
				t.Errorf("range = %q, want %q", got, tc.wantRange)
			}
		})
	}
}
