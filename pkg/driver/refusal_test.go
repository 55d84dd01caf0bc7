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

package driver

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestRefuse(t *testing.T) {
	tests := []struct {
		name    string
		code    codes.Code
		cause   error
		wantMsg string
	}{
		{name: "invalid argument", code: codes.InvalidArgument, cause: errors.New("invalid size 0"), wantMsg: "invalid size 0"},
		{name: "out of range", code: codes.OutOfRange, cause: errors.New("size 10E is too large"), wantMsg: "size 10E is too large"},
		{name: "wrapped cause", code: codes.FailedPrecondition, cause: fmt.Errorf("read PV: %w", fs.ErrNotExist), wantMsg: "read PV: file does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Refuse(tc.code, tc.cause)
			if err.Error() != tc.wantMsg {
				t.Errorf("Error() = %q, want %q", err.Error(), tc.wantMsg)
			}
			if got := status.Code(err); got != tc.code {
				t.Errorf("status.Code = %v, want %v", got, tc.code)
			}
			st, ok := status.FromError(err)
			if !ok || st.Code() != tc.code || st.Message() != tc.wantMsg {
				t.Errorf("status.FromError = %v, %v; want code %v and message %q", st, ok, tc.code, tc.wantMsg)
			}
			if !errors.Is(err, tc.cause) || errors.Unwrap(err) != tc.cause {
				t.Errorf("%v does not unwrap to its cause %v", err, tc.cause)
			}
			if !Refused(err) || !Refused(fmt.Errorf("expand: %w", err)) {
				t.Errorf("Refused(%v) = false, also wrapped, want true", err)
			}
			// Wrapped once more, as callers do, the code is still found.
			if got := status.Code(fmt.Errorf("expand: %w", err)); got != tc.code {
				t.Errorf("status.Code of the wrapped refusal = %v, want %v", got, tc.code)
			}
		})
	}
	for _, err := range []error{status.Error(codes.InvalidArgument, "from the driver"), fmt.Errorf("x: %w", status.Error(codes.OutOfRange, "y")), errors.New("plain"), nil} {
		if Refused(err) {
			t.Errorf("Refused(%v) = true, want false", err)
		}
	}
	if !errors.Is(Refuse(codes.NotFound, fmt.Errorf("x: %w", fs.ErrNotExist)), fs.ErrNotExist) {
		t.Error("errors.Is does not reach through the cause's own wrapping")
	}
}
