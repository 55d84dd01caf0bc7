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
	"maps"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func TestModifyErrorCodes(t *testing.T) {
	secret := "s3cr3t-value"
	for code := codes.Canceled; code <= codes.Unauthenticated; code++ {
		t.Run(code.String(), func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerModify: true})
			d.FailModify(code, 1)
			err := c.Modify(testContext(t), ModifyRequest{
				VolumeID:          "vol-1",
				MutableParameters: map[string]string{"iops": "3000"},
				Secrets:           map[string]string{"password": secret},
			})
			if err == nil {
				t.Fatal("Modify succeeded")
			}
			if got := status.Code(err); got != code {
				t.Errorf("status.Code = %v, want %v", got, code)
			}
			st, ok := status.FromError(err)
			if !ok || st.Code() != code {
				t.Errorf("status.FromError = %v, %v; want code %v", st, ok, code)
			}
			var grpcErr interface{ GRPCStatus() *status.Status }
			if !errors.As(err, &grpcErr) || grpcErr.GRPCStatus().Code() != code {
				t.Errorf("errors.As found no gRPC status with code %v in %v", code, err)
			}
			if want := `modify volume "vol-1": rpc error: code = ` + code.String(); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error = %q, want it to start with %q", err, want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error contains a secret: %q", err)
			}
		})
	}
}

func TestModify(t *testing.T) {
	tests := []struct {
		name       string
		cfg        csidriver.Config
		volumes    map[string]int64
		req        ModifyRequest
		wantCode   codes.Code
		wantErr    string // start of the error
		wantCalls  int
		wantParams map[string]string // the volume's parameters afterwards; nil: not modified
	}{
		{
			name:       "parameters are applied",
			req:        ModifyRequest{VolumeID: "vol-1", MutableParameters: map[string]string{"iops": "3000", "tier": "gold"}},
			wantCalls:  1,
			wantParams: map[string]string{"iops": "3000", "tier": "gold"},
		},
		{
			name:       "known volume",
			cfg:        csidriver.Config{StrictVolumes: true},
			volumes:    map[string]int64{"vol-1": gi},
			req:        ModifyRequest{VolumeID: "vol-1", MutableParameters: map[string]string{"iops": "3000"}},
			wantCalls:  1,
			wantParams: map[string]string{"iops": "3000"},
		},
		{
			name:       "no parameters",
			req:        ModifyRequest{VolumeID: "vol-1"},
			wantCalls:  1,
			wantParams: map[string]string{},
		},
		{
			name:      "unknown volume",
			cfg:       csidriver.Config{StrictVolumes: true},
			req:       ModifyRequest{VolumeID: "vol-1", MutableParameters: map[string]string{"iops": "3000"}},
			wantCode:  codes.NotFound,
			wantErr:   `modify volume "vol-1": rpc error: code = NotFound`,
			wantCalls: 1,
		},
		{
			name:     "empty volume ID is refused without a call",
			req:      ModifyRequest{MutableParameters: map[string]string{"iops": "3000"}},
			wantCode: codes.InvalidArgument,
			wantErr:  `modify volume "": rpc error: code = InvalidArgument desc = volume ID is empty`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, tc.cfg)
			for id, size := range tc.volumes {
				d.AddVolume(id, size)
			}
			err := c.Modify(testContext(t), tc.req)
			if status.Code(err) != tc.wantCode {
				t.Fatalf("Modify error = %v, want code %v", err, tc.wantCode)
			}
			if err != nil && !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("Modify error = %q, want it to start with %q", err, tc.wantErr)
			}
			if n := len(d.ModifyCalls()); n != tc.wantCalls {
				t.Errorf("driver got %d calls, want %d", n, tc.wantCalls)
			}
			params, modified := d.VolumeParameters(tc.req.VolumeID)
			if modified != (tc.wantParams != nil) || !maps.Equal(params, tc.wantParams) {
				t.Errorf("volume parameters = %v (modified %v), want %v", params, modified, tc.wantParams)
			}
		})
	}
}

func TestModifySendsRequest(t *testing.T) {
	d, c := connect(t, csidriver.Config{})
	params := map[string]string{"iops": "3000", "csi.storage.k8s.io/pvc/name": "data"}
	secrets := map[string]string{"user": "admin", "password": "p@ss w0rd=\"'\n"}
	if err := c.Modify(testContext(t), ModifyRequest{VolumeID: "vol-1", MutableParameters: params, Secrets: secrets}); err != nil {
		t.Fatalf("Modify: %v", err)
	}
	calls := d.ModifyCalls()
	if len(calls) != 1 {
		t.Fatalf("driver got %d calls, want 1", len(calls))
	}
	got := calls[0]
	if got.VolumeID != "vol-1" {
		t.Errorf("volume ID arrived as %q, want vol-1", got.VolumeID)
	}
	if !maps.Equal(got.MutableParameters, params) {
		t.Errorf("parameters arrived as %q, want %q", got.MutableParameters, params)
	}
	if !maps.Equal(got.Secrets, secrets) {
		t.Errorf("secrets arrived as %q, want %q", got.Secrets, secrets)
	}
}

func TestModifyTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	tests := []struct {
		name            string
		client, request time.Duration
	}{
		{name: "client's timeout", client: timeout},
		{name: "request's timeout", client: callTimeout, request: timeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connectWithTimeout(t, csidriver.Config{}, tc.client)
			d.SetModifyDelay(time.Hour) // hangs until the caller gives up

			start := time.Now()
			err := c.Modify(testContext(t), ModifyRequest{VolumeID: "vol-1", Timeout: tc.request})
			elapsed := time.Since(start)
			if status.Code(err) != codes.DeadlineExceeded {
				t.Fatalf("Modify error = %v, want DeadlineExceeded", err)
			}
			if elapsed < timeout || elapsed >= callTimeout {
				t.Errorf("Modify returned after %v, want soon after %v", elapsed, timeout)
			}
		})
	}
}

// TestModifyRequestTimeout checks which timeout bounds a call, from the
// deadline the driver receives with it.
func TestModifyRequestTimeout(t *testing.T) {
	for _, tc := range requestTimeoutCases {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connectWithTimeout(t, csidriver.Config{}, tc.client)
			// t.Context has no deadline of its own to cut the call's short.
			if err := c.Modify(t.Context(), ModifyRequest{VolumeID: "vol-1", Timeout: tc.request}); err != nil {
				t.Fatalf("Modify: %v", err)
			}
			calls := d.ModifyCalls()
			if len(calls) != 1 {
				t.Fatalf("driver got %d calls, want 1", len(calls))
			}
			checkDeadline(t, calls[0].Start, calls[0].Deadline, tc.want)
		})
	}
}

func TestModifyLogsNoSecrets(t *testing.T) {
	tests := []struct {
		name string
		fail codes.Code
	}{
		{name: "success"},
		{name: "failure", fail: codes.Internal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com"})
			d.FailModify(tc.fail, 1)
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(5), ktesting.BufferLogs(true)))
			ctx := klog.NewContext(testContext(t), logger)
			secret := "hunter2-do-not-log"
			err := c.Modify(ctx, ModifyRequest{VolumeID: "vol-1", MutableParameters: map[string]string{"iops": "3000"},
				Secrets: map[string]string{"password": secret}})
			if status.Code(err) != tc.fail {
				t.Fatalf("Modify = %v, want code %v", err, tc.fail)
			}
			logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
			for _, want := range []string{"Calling ControllerModifyVolume", "iops", "ControllerModifyVolume", "***stripped***"} {
				if !strings.Contains(logs, want) {
					t.Errorf("V(5) logs lack %q:\n%s", want, logs)
				}
			}
			if strings.Contains(logs, secret) {
				t.Errorf("logs contain the secret:\n%s", logs)
			}
		})
	}
}
