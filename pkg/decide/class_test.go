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
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestClassRules(t *testing.T) {
	rules := Rules{Infeasible: []codes.Code{codes.OutOfRange}}
	tests := []struct {
		err        error
		want       Class
		wantReason string
	}{
		{err: errors.New("connection reset"), want: Uncertain, wantReason: ReasonUncertain},
		{err: status.Error(codes.DeadlineExceeded, "x"), want: Uncertain, wantReason: "DeadlineExceeded"},
		{err: status.Error(codes.Unavailable, "x"), want: Uncertain, wantReason: "Unavailable"},
		{err: fmt.Errorf("wrapped: %w", status.Error(codes.OutOfRange, "x")), want: Infeasible, wantReason: "OutOfRange"},
		{err: status.Error(codes.InvalidArgument, "x"), want: Final, wantReason: "InvalidArgument"},
		{err: status.Error(codes.Unknown, "x"), want: Final, wantReason: "Unknown"},
		{err: status.Error(codes.Code(42), "x"), want: Final, wantReason: "Code(42)"},
	}
	for _, tc := range tests {
		f := Failed(rules, tc.err, "gold", time.Time{})
		if f.Class != tc.want || f.Reason != tc.wantReason || f.Target != "gold" {
			t.Errorf("Failed(%v) = %+v, want class %s, reason %s", tc.err, f, tc.want, tc.wantReason)
		}
		// What is recorded reads back as the same class after a restart,
		// except codes no gRPC release names.
		if got := rules.ClassOfReason(f.Reason); got != tc.want && tc.wantReason != "Code(42)" {
			t.Errorf("ClassOfReason(%q) = %s, want %s", f.Reason, got, tc.want)
		}
	}
	for _, name := range []string{"", "Bogus", ReasonUncertain, "Code(42)"} {
		if got := rules.ClassOfReason(name); got != Uncertain {
			t.Errorf("ClassOfReason(%q) = %s, want uncertain", name, got)
		}
	}
}

func TestClassStrings(t *testing.T) {
	for c, want := range map[Class]string{Uncertain: "uncertain", Infeasible: "infeasible", Final: "final"} {
		if c.String() != want {
			t.Errorf("%d: %q, want %q", c, c.String(), want)
		}
		if c.Final() == (c == Uncertain) {
			t.Errorf("%s: Final() = %v", c, c.Final())
		}
	}
}

func TestInfeasibleWait(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		since time.Time
		want  time.Duration
	}{
		{since: now, want: 5 * time.Minute},
		{since: now.Add(-time.Minute), want: 4 * time.Minute},
		{since: now.Add(-time.Hour), want: -55 * time.Minute},
		{since: now.Add(time.Hour), want: 5 * time.Minute}, // the clock went back
	} {
		if got := InfeasibleWait(tc.since, now, 5*time.Minute); got != tc.want {
			t.Errorf("InfeasibleWait(%s) = %s, want %s", now.Sub(tc.since), got, tc.want)
		}
	}
}
