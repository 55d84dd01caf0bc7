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

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
