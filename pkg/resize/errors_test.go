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

package resize

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestClassOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{name: "not a gRPC error", err: errors.New("boom"), want: Uncertain},
		{name: "context deadline", err: context.DeadlineExceeded, want: Uncertain},
		{name: "wrapped gRPC code", err: fmt.Errorf("expand: %w", status.Error(codes.OutOfRange, "too big")), want: Infeasible},
	}
	want := map[codes.Code]Class{
		codes.Canceled: Uncertain, codes.DeadlineExceeded: Uncertain, codes.Unavailable: Uncertain,
		codes.ResourceExhausted: Uncertain, codes.Aborted: Uncertain,
		codes.InvalidArgument: Infeasible, codes.OutOfRange: Infeasible, codes.NotFound: Infeasible,
		codes.FailedPrecondition: InUse,
		codes.Unknown:            Final, codes.AlreadyExists: Final, codes.PermissionDenied: Final, codes.Unimplemented: Final,
		codes.Internal: Final, codes.DataLoss: Final, codes.Unauthenticated: Final,
	}
	for code, class := range want {
		tests = append(tests, struct {
			name string
			err  error
			want Class
		}{name: code.String(), err: status.Error(code, "x"), want: class})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClassOf(tc.err); got != tc.want {
				t.Errorf("ClassOf(%v) = %s, want %s", tc.err, got, tc.want)
			}
		})
	}
}

func TestClassStrings(t *testing.T) {
	for c, want := range map[Class]string{Uncertain: "uncertain", Infeasible: "infeasible", Final: "final", InUse: "in-use"} {
		if c.String() != want {
			t.Errorf("%d: %q, want %q", c, c.String(), want)
		}
		if c.Final() == (c == Uncertain) {
			t.Errorf("%s: Final() = %v", c, c.Final())
		}
	}
	for a, want := range map[Action]string{None: "none", Expand: "expand", Wait: "wait"} {
		if a.String() != want {
			t.Errorf("%d: %q, want %q", a, a.String(), want)
		}
	}
}
