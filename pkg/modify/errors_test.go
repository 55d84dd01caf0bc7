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

package modify

import (
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/csi-resizer/csi-resizer/pkg/attempt"
)

func TestModifyRules(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want attempt.Class
	}{
		{name: "deadline exceeded: uncertain", err: status.Error(codes.DeadlineExceeded, "x"), want: attempt.Uncertain},
		{name: "unavailable: uncertain", err: status.Error(codes.Unavailable, "x"), want: attempt.Uncertain},
		{name: "canceled: uncertain", err: status.Error(codes.Canceled, "x"), want: attempt.Uncertain},
		{name: "resource exhausted: uncertain", err: status.Error(codes.ResourceExhausted, "x"), want: attempt.Uncertain},
		{name: "aborted: uncertain", err: status.Error(codes.Aborted, "x"), want: attempt.Uncertain},
		{name: "invalid argument: infeasible", err: status.Error(codes.InvalidArgument, "x"), want: attempt.Infeasible},
		{name: "out of range is final for modify", err: status.Error(codes.OutOfRange, "x"), want: attempt.Final},
		{name: "not found: final", err: status.Error(codes.NotFound, "x"), want: attempt.Final},
		{name: "failed precondition: final", err: status.Error(codes.FailedPrecondition, "x"), want: attempt.Final},
		{name: "internal: final", err: status.Error(codes.Internal, "x"), want: attempt.Final},
		{name: "unknown code: final, as upstream", err: status.Error(codes.Unknown, "x"), want: attempt.Final},
		{name: "wrapped status keeps its class", err: fmt.Errorf("modify: %w", status.Error(codes.InvalidArgument, "x")), want: attempt.Infeasible},
		{name: "no gRPC status: uncertain", err: errors.New("connection reset"), want: attempt.Uncertain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ModifyRules.ClassOf(tt.err); got != tt.want {
				t.Errorf("Rules.ClassOf = %v, want %v", got, tt.want)
			}
			// What is recorded reads back as the same class after a restart.
			if got := ModifyRules.ClassOfReason(attempt.ReasonOf(tt.err)); got != tt.want {
				t.Errorf("ClassOfReason(ReasonOf) = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClassOfReasonNamingNoCode(t *testing.T) {
	for _, name := range []string{"", "Bogus", "Uncertain"} {
		if got := ModifyRules.ClassOfReason(name); got != attempt.Uncertain {
			t.Errorf("ClassOfReason(%q) = %v, want uncertain", name, got)
		}
	}
}
