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
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/testobj"
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

// csiVolume is testobj's ReadWriteOnce ext4 PV pv-1 of handle.
func csiVolume(handle string) *v1.PersistentVolume {
	pvc := testobj.Claim("ns", "data", "1Gi", "1Gi", testobj.VolumeName("pv-1"))
	return testobj.Volume(pvc, "test.csi.example.com", "1Gi", testobj.Handle(handle))
}

func ebsVolume() *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-ebs"},
		Spec: v1.PersistentVolumeSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource: v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{
				VolumeID: "aws://us-east-1a/vol-0123456789abcdef0", FSType: "xfs",
			}},
		},
	}
}

func TestCSIExpandOverUnixSocket(t *testing.T) {
	tests := []struct {
		name         string
		pv           *v1.PersistentVolume
		target       string
		capacity     int64 // driver's fixed answer; 0 answers the request
		nodeStep     bool
		wantVolume   string
		wantBytes    int64
		wantSize     string
		wantFSType   string
		wantErrMatch string
	}{
		{name: "exact answer keeps the request's format", pv: csiVolume("vol-1"), target: "2Gi", wantVolume: "vol-1", wantBytes: 2 << 30, wantSize: "2Gi", wantFSType: "ext4"},
		{name: "node step asked for", pv: csiVolume("vol-1"), target: "2Gi", nodeStep: true, wantVolume: "vol-1", wantBytes: 2 << 30, wantSize: "2Gi", wantFSType: "ext4"},
		{name: "rounded-up answer", pv: csiVolume("vol-1"), target: "1500M", capacity: 2 << 30, wantVolume: "vol-1", wantBytes: 1500000000, wantSize: "2Gi", wantFSType: "ext4"},
		{name: "fractional bytes round up", pv: csiVolume("vol-1"), target: "1500m", wantVolume: "vol-1", wantBytes: 2, wantSize: "1500m", wantFSType: "ext4"},
		{name: "migrated in-tree volume is translated", pv: ebsVolume(), target: "3Gi", wantVolume: "vol-0123456789abcdef0", wantBytes: 3 << 30, wantSize: "3Gi", wantFSType: "xfs"},
		{name: "zero size is refused before the driver", pv: csiVolume("vol-1"), target: "0", wantErrMatch: "invalid size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true, NodeExpansionRequired: tc.nodeStep})
			if tc.capacity != 0 {
				d.SetExpandCapacity(tc.capacity)
			}
			r := &VolumeExpander{Driver: c}
			size, nodeStep, err := r.Expand(context.Background(), tc.pv, resource.MustParse(tc.target), map[string]string{"key": "value"})
			if tc.wantErrMatch != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrMatch) {
					t.Fatalf("err = %v, want %q", err, tc.wantErrMatch)
				}
				if n := len(d.Calls()); n != 0 {
					t.Errorf("driver called %d times", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if size.String() != tc.wantSize || nodeStep != tc.nodeStep {
				t.Errorf("got (%s, %v), want (%s, %v)", size.String(), nodeStep, tc.wantSize, tc.nodeStep)
			}
			calls := d.Calls()
			if len(calls) != 1 {
				t.Fatalf("driver calls = %d, want 1", len(calls))
			}
			call := calls[0]
			if call.VolumeID != tc.wantVolume || call.RequiredBytes != tc.wantBytes || call.Secrets["key"] != "value" {
				t.Errorf("call = %s %d %v, want %s %d with the secret", call.VolumeID, call.RequiredBytes, call.Secrets, tc.wantVolume, tc.wantBytes)
			}
			if got := call.Capability.GetMount().GetFsType(); got != tc.wantFSType {
				t.Errorf("fsType = %q, want %q", got, tc.wantFSType)
			}
			if call.Capability.GetAccessMode().GetMode() != csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER {
				t.Errorf("access mode = %v", call.Capability.GetAccessMode().GetMode())
			}
		})
	}
}

func TestCSIExpandErrors(t *testing.T) {
	d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true})
	d.FailExpand(codes.OutOfRange, 1)
	r := &VolumeExpander{Driver: c}
	_, _, err := r.Expand(context.Background(), csiVolume("vol-1"), resource.MustParse("1Gi"), nil)
	if status.Code(err) != codes.OutOfRange {
		t.Errorf("code = %v, want OutOfRange (err %v)", status.Code(err), err)
	}

	vsphere := csiVolume("")
	vsphere.Spec.CSI = nil
	vsphere.Spec.VsphereVolume = &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] vol.vmdk"}
	if _, _, err := r.Expand(context.Background(), vsphere, resource.MustParse("1Gi"), nil); err == nil {
		t.Error("untranslatable volume: want an error")
	}
	rwx := csiVolume("vol-1")
	rwx.Spec.AccessModes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod, v1.ReadWriteMany}
	if _, _, err := r.Expand(context.Background(), rwx, resource.MustParse("1Gi"), nil); err == nil {
		t.Error("conflicting access modes: want an error")
	}
	if !r.UsesSecrets() {
		t.Error("CSI resizer must pass secrets")
	}
}

func TestNodeOnly(t *testing.T) {
	size, nodeStep, err := NodeOnly{}.Expand(context.Background(), csiVolume("vol-1"), resource.MustParse("2Gi"), nil)
	if err != nil || !size.IsZero() || !nodeStep {
		t.Errorf("got (%s, %v, %v), want (0, true, nil)", size.String(), nodeStep, err)
	}
	if (NodeOnly{}).UsesSecrets() {
		t.Error("node-only resizer has no use for secrets")
	}
}

func TestBytesOf(t *testing.T) {
	max := *resource.NewQuantity(math.MaxInt64, resource.BinarySI)
	if b, err := bytesOf(max); err != nil || b != math.MaxInt64 {
		t.Errorf("max int64: (%d, %v)", b, err)
	}
	if _, err := bytesOf(*resource.NewScaledQuantity(10, 18)); err == nil {
		t.Error("10^19 bytes: want an error")
	}
	if _, err := bytesOf(resource.MustParse("-1Gi")); err == nil {
		t.Error("negative size: want an error")
	}
}

func TestCSIExpandTimeout(t *testing.T) {
	// connect gives the client a 5s timeout.
	tests := []struct {
		name    string
		timeout time.Duration
		want    time.Duration
	}{
		{name: "zero leaves the client's timeout", want: 5 * time.Second},
		{name: "longer than the client's", timeout: time.Hour, want: time.Hour},
		{name: "shorter than the client's", timeout: 2 * time.Second, want: 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true})
			r := &VolumeExpander{Driver: c, Timeout: tc.timeout}
			if _, _, err := r.Expand(context.Background(), csiVolume("vol-1"), resource.MustParse("1Gi"), nil); err != nil {
				t.Fatalf("Expand: %v", err)
			}
			calls := d.Calls()
			if len(calls) != 1 {
				t.Fatalf("driver calls = %d, want 1", len(calls))
			}
			// The deadline travels in the request; allow for the time the
			// request took to arrive.
			if got := calls[0].Deadline.Sub(calls[0].Start); got > tc.want || got < tc.want-time.Second {
				t.Errorf("driver saw a deadline %v after the call arrived, want about %v", got, tc.want)
			}
		})
	}
}

type recorder struct {
	got []ModifyRequest
	err error
}

func (r *recorder) Modify(_ context.Context, req ModifyRequest) error {
	r.got = append(r.got, req)
	return r.err
}

func TestVolumeModifier(t *testing.T) {
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: v1.PersistentVolumeSpec{
		PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "vol-1"}},
	}}
	r := &recorder{err: status.Error(codes.Internal, "boom")}
	m := &VolumeModifier{Driver: r, Timeout: time.Minute}
	params, secrets := map[string]string{"iops": "3000"}, map[string]string{"key": "s3cr3t"}
	if err := m.Modify(context.Background(), pv, params, secrets); status.Code(err) != codes.Internal {
		t.Errorf("error %v, want the driver's Internal", err)
	}
	if len(r.got) != 1 {
		t.Fatalf("%d calls, want 1", len(r.got))
	}
	got := r.got[0]
	if got.VolumeID != "vol-1" || !maps.Equal(got.MutableParameters, params) || !maps.Equal(got.Secrets, secrets) || got.Timeout != time.Minute {
		t.Errorf("request %+v", got)
	}
}

func TestModifyRefusesInTreeVolumes(t *testing.T) {
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-ebs"}, Spec: v1.PersistentVolumeSpec{
		PersistentVolumeSource: v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"}},
	}}
	r := &recorder{}
	err := (&VolumeModifier{Driver: r}).Modify(context.Background(), pv, nil, nil)
	if status.Code(err) != codes.InvalidArgument || len(r.got) != 0 {
		t.Errorf("in-tree volume: error %v after %d calls, want InvalidArgument and no call", err, len(r.got))
	}
}

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
