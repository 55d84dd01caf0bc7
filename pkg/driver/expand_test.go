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

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

const gi = int64(1) << 30

func TestExpandErrorCodes(t *testing.T) {
	secret := "s3cr3t-value"
	for code := codes.Canceled; code <= codes.Unauthenticated; code++ {
		t.Run(code.String(), func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com"})
			d.FailExpand(code, 1)
			_, _, err := c.Expand(testContext(t), ExpandRequest{
				VolumeID:      "vol-1",
				RequiredBytes: 10 * gi,
				Secrets:       map[string]string{"password": secret},
			})
			if err == nil {
				t.Fatal("Expand succeeded")
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
			if want := `expand volume "vol-1" to 10737418240 bytes: rpc error: code = ` + code.String(); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error = %q, want it to start with %q", err, want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error contains a secret: %q", err)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name         string
		cfg          csidriver.Config
		volumes      map[string]int64
		capacity     *int64 // fixed answer of the driver
		req          ExpandRequest
		wantCapacity int64
		wantNode     bool
		wantCode     codes.Code
		wantCalls    int
	}{
		{
			name:         "capacity passes through",
			req:          ExpandRequest{VolumeID: "vol-1", RequiredBytes: 10 * gi},
			wantCapacity: 10 * gi,
			wantCalls:    1,
		},
		{
			name:         "node expansion required passes through",
			cfg:          csidriver.Config{NodeExpansionRequired: true},
			req:          ExpandRequest{VolumeID: "vol-1", RequiredBytes: 10 * gi},
			wantCapacity: 10 * gi,
			wantNode:     true,
			wantCalls:    1,
		},
		{
			name:         "larger volume",
			volumes:      map[string]int64{"vol-1": 20 * gi},
			req:          ExpandRequest{VolumeID: "vol-1", RequiredBytes: 10 * gi},
			wantCapacity: 20 * gi,
			wantCalls:    1,
		},
		{
			name:         "capacity not reported",
			capacity:     new(int64(0)),
			req:          ExpandRequest{VolumeID: "vol-1", RequiredBytes: 10 * gi},
			wantCapacity: 0,
			wantCalls:    1,
		},
		{
			name:         "smaller capacity is returned as is",
			capacity:     new(5 * gi),
			req:          ExpandRequest{VolumeID: "vol-1", RequiredBytes: 10 * gi},
			wantCapacity: 5 * gi,
			wantCalls:    1,
		},
		{
			name:      "unknown volume",
			cfg:       csidriver.Config{StrictVolumes: true},
			req:       ExpandRequest{VolumeID: "vol-1", RequiredBytes: 10 * gi},
			wantCode:  codes.NotFound,
			wantCalls: 1,
		},
		{
			name:     "empty volume ID is refused without a call",
			req:      ExpandRequest{RequiredBytes: 10 * gi},
			wantCode: codes.InvalidArgument,
		},
		{
			name:     "zero size is refused without a call",
			req:      ExpandRequest{VolumeID: "vol-1"},
			wantCode: codes.InvalidArgument,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, tc.cfg)
			for id, size := range tc.volumes {
				d.AddVolume(id, size)
			}
			if tc.capacity != nil {
				d.SetExpandCapacity(*tc.capacity)
			}
			capacity, node, err := c.Expand(testContext(t), tc.req)
			if status.Code(err) != tc.wantCode {
				t.Fatalf("Expand error = %v, want code %v", err, tc.wantCode)
			}
			if capacity != tc.wantCapacity || node != tc.wantNode {
				t.Errorf("Expand = %d, %v; want %d, %v", capacity, node, tc.wantCapacity, tc.wantNode)
			}
			if n := len(d.Calls()); n != tc.wantCalls {
				t.Errorf("driver got %d calls, want %d", n, tc.wantCalls)
			}
		})
	}
}

func TestExpandSendsRequest(t *testing.T) {
	d, c := connect(t, csidriver.Config{})
	secrets := map[string]string{"user": "admin", "password": "p@ss w0rd=\"'\n"}
	capability := &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER},
	}
	if _, _, err := c.Expand(testContext(t), ExpandRequest{VolumeID: "vol-1", RequiredBytes: 3 * gi, Secrets: secrets, Capability: capability}); err != nil {
		t.Fatalf("Expand: %v", err)
	}
	calls := d.Calls()
	if len(calls) != 1 {
		t.Fatalf("driver got %d calls, want 1", len(calls))
	}
	got := calls[0]
	if got.VolumeID != "vol-1" || got.RequiredBytes != 3*gi || got.LimitBytes != 0 {
		t.Errorf("call = %+v, want vol-1 with 3Gi required and no limit", got)
	}
	if !maps.Equal(got.Secrets, secrets) {
		t.Errorf("secrets arrived as %q, want %q", got.Secrets, secrets)
	}
	if !proto.Equal(got.Capability, capability) {
		t.Errorf("capability arrived as %v, want %v", got.Capability, capability)
	}
}

func TestExpandTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	d, c := connectWithTimeout(t, csidriver.Config{}, timeout)
	d.SetExpandDelay(time.Hour) // hangs until the caller gives up

	start := time.Now()
	_, _, err := c.Expand(testContext(t), ExpandRequest{VolumeID: "vol-1", RequiredBytes: gi})
	elapsed := time.Since(start)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("Expand error = %v, want DeadlineExceeded", err)
	}
	if elapsed < timeout || elapsed > testTimeout/2 {
		t.Errorf("Expand returned after %v, want soon after %v", elapsed, timeout)
	}
}

// TestExpandRequestTimeout checks which timeout bounds a call, from the
// deadline the driver receives with it.
func TestExpandRequestTimeout(t *testing.T) {
	for _, tc := range requestTimeoutCases {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connectWithTimeout(t, csidriver.Config{}, tc.client)
			// t.Context has no deadline of its own to cut the call's short.
			if _, _, err := c.Expand(t.Context(), ExpandRequest{VolumeID: "vol-1", RequiredBytes: gi, Timeout: tc.request}); err != nil {
				t.Fatalf("Expand: %v", err)
			}
			calls := d.Calls()
			if len(calls) != 1 {
				t.Fatalf("driver got %d calls, want 1", len(calls))
			}
			checkDeadline(t, calls[0].Start, calls[0].Deadline, tc.want)
		})
	}
}

func TestExpandRequestTimeoutExpires(t *testing.T) {
	const timeout = 100 * time.Millisecond
	d, c := connect(t, csidriver.Config{}) // the client's timeout is callTimeout
	d.SetExpandDelay(time.Hour)

	start := time.Now()
	_, _, err := c.Expand(testContext(t), ExpandRequest{VolumeID: "vol-1", RequiredBytes: gi, Timeout: timeout})
	elapsed := time.Since(start)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("Expand error = %v, want DeadlineExceeded", err)
	}
	if elapsed < timeout || elapsed >= callTimeout {
		t.Errorf("Expand returned after %v, want soon after %v", elapsed, timeout)
	}
}
