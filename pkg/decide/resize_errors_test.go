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

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
