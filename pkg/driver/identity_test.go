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
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func TestWaitReady(t *testing.T) {
	tests := []struct {
		name          string
		notReadyTimes int
		failCode      codes.Code
		failTimes     int
		// cancelled: ctx ends while the driver is still not ready.
		cancelled bool
		wantErr   string
	}{
		{name: "ready at once"},
		{name: "not ready once, then ready", notReadyTimes: 1},
		{name: "DeadlineExceeded is retried", failCode: codes.DeadlineExceeded, failTimes: 1},
		{name: "other errors are returned", failCode: codes.FailedPrecondition, failTimes: -1,
			wantErr: "to become ready: CSI driver probe failed: rpc error: code = FailedPrecondition"},
		{name: "context ends while not ready", notReadyTimes: 1000, cancelled: true, wantErr: "context canceled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // the retries wait a second each
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ProbeNotReadyTimes: tc.notReadyTimes})
			d.FailCall(csi.Identity_Probe_FullMethodName, tc.failCode, tc.failTimes)
			ctx, cancel := context.WithCancel(testContext(t))
			defer cancel()
			if tc.cancelled {
				cancel()
			}
			err := c.WaitReady(ctx)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("WaitReady: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("WaitReady error = %v, want one containing %q", err, tc.wantErr)
			}
			if tc.cancelled && !errors.Is(err, context.Canceled) {
				t.Errorf("WaitReady error %v does not wrap context.Canceled", err)
			}
		})
	}
}

func TestDriverName(t *testing.T) {
	tests := []struct {
		name     string
		driver   string
		failCode codes.Code
		want     string
		wantErr  string
	}{
		{name: "name", driver: "test.csi.example.com", want: "test.csi.example.com"},
		{name: "empty name", driver: "", wantErr: "get CSI driver name: GetPluginInfo returned an empty name"},
		{name: "call fails", driver: "test.csi.example.com", failCode: codes.Internal,
			wantErr: "get CSI driver name: rpc error: code = Internal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: tc.driver})
			d.FailCall(csi.Identity_GetPluginInfo_FullMethodName, tc.failCode, 1)
			got, err := c.DriverName(testContext(t))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("DriverName error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("DriverName = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
