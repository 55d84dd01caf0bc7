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
	"context"
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

func TestModifyRules(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{name: "deadline exceeded: uncertain", err: status.Error(codes.DeadlineExceeded, "x"), want: Uncertain},
		{name: "unavailable: uncertain", err: status.Error(codes.Unavailable, "x"), want: Uncertain},
		{name: "canceled: uncertain", err: status.Error(codes.Canceled, "x"), want: Uncertain},
		{name: "resource exhausted: uncertain", err: status.Error(codes.ResourceExhausted, "x"), want: Uncertain},
		{name: "aborted: uncertain", err: status.Error(codes.Aborted, "x"), want: Uncertain},
		{name: "invalid argument: infeasible", err: status.Error(codes.InvalidArgument, "x"), want: Infeasible},
		{name: "out of range is final for modify", err: status.Error(codes.OutOfRange, "x"), want: Final},
		{name: "not found: final", err: status.Error(codes.NotFound, "x"), want: Final},
		{name: "failed precondition: final", err: status.Error(codes.FailedPrecondition, "x"), want: Final},
		{name: "internal: final", err: status.Error(codes.Internal, "x"), want: Final},
		{name: "unknown code: final, as upstream", err: status.Error(codes.Unknown, "x"), want: Final},
		{name: "wrapped status keeps its class", err: fmt.Errorf("modify: %w", status.Error(codes.InvalidArgument, "x")), want: Infeasible},
		{name: "no gRPC status: uncertain", err: errors.New("connection reset"), want: Uncertain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ModifyRules.ClassOf(tt.err); got != tt.want {
				t.Errorf("Rules.ClassOf = %v, want %v", got, tt.want)
			}
			// What is recorded reads back as the same class after a restart.
			if got := ModifyRules.ClassOfReason(ReasonOf(tt.err)); got != tt.want {
				t.Errorf("ClassOfReason(ReasonOf) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClassOfReasonNamingNoCode(t *testing.T) {
	for _, name := range []string{"", "Bogus", "Uncertain"} {
		if got := ModifyRules.ClassOfReason(name); got != Uncertain {
			t.Errorf("ClassOfReason(%q) = %v, want uncertain", name, got)
		}
	}
}

// TestResizeRules checks how ControllerExpandVolume's errors are classed, and
// which of them say the volume is in use.
func TestResizeRules(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		want   Class
		result string
	}{
		{name: "not a gRPC error", err: errors.New("boom"), want: Uncertain, result: "uncertain"},
		{name: "context deadline", err: context.DeadlineExceeded, want: Uncertain, result: "uncertain"},
		{name: "wrapped gRPC code", err: fmt.Errorf("expand: %w", status.Error(codes.OutOfRange, "too big")), want: Infeasible, result: "infeasible"},
	}
	want := map[codes.Code]Class{
		codes.Canceled: Uncertain, codes.DeadlineExceeded: Uncertain, codes.Unavailable: Uncertain,
		codes.ResourceExhausted: Uncertain, codes.Aborted: Uncertain,
		codes.InvalidArgument: Infeasible, codes.OutOfRange: Infeasible, codes.NotFound: Infeasible,
		codes.FailedPrecondition: Final,
		codes.Unknown:            Final, codes.AlreadyExists: Final, codes.PermissionDenied: Final, codes.Unimplemented: Final,
		codes.Internal: Final, codes.DataLoss: Final, codes.Unauthenticated: Final,
	}
	for code, class := range want {
		result := class.String()
		if code == codes.FailedPrecondition {
			result = "in-use"
		}
		tests = append(tests, struct {
			name   string
			err    error
			want   Class
			result string
		}{name: code.String(), err: status.Error(code, "x"), want: class, result: result})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Failed(ResizeRules, tc.err, q("1Gi"), t0)
			if f.Class != tc.want {
				t.Errorf("class of %v = %s, want %s", tc.err, f.Class, tc.want)
			}
			if got := ResizeResult(f); got != tc.result {
				t.Errorf("Result = %q, want %q", got, tc.result)
			}
			if InUse(&f) != (tc.result == "in-use") {
				t.Errorf("InUse = %v, want %v", InUse(&f), tc.result == "in-use")
			}
		})
	}
	if InUse(nil) {
		t.Error("InUse(nil) = true")
	}
}

func TestActionStrings(t *testing.T) {
	for a, want := range map[ResizeAction]string{ResizeNone: "none", Expand: "expand", ResizeWait: "wait", RecordVolumeSize: "record-volume-size", NodeRetry: "node-retry"} {
		if a.String() != want {
			t.Errorf("%d: %q, want %q", a, a.String(), want)
		}
		if a.CallsDriver() != (a == Expand) || a.Acts() != (a != ResizeNone && a != ResizeWait) {
			t.Errorf("%s: CallsDriver %v, Acts %v", a, a.CallsDriver(), a.Acts())
		}
	}
}
