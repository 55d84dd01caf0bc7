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
	"sync/atomic"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func TestConnectErrors(t *testing.T) {
	tests := []struct {
		name    string
		address string
		timeout time.Duration
		wantErr string
	}{
		{name: "zero timeout", address: "/csi/csi.sock", timeout: 0, wantErr: "call timeout must be positive"},
		{name: "no driver", address: "/nonexistent/csi.sock", timeout: time.Second, wantErr: `cannot connect to the CSI driver at "/nonexistent/csi.sock": connect: no such file or directory`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			c, err := Connect(ctx, tc.address, tc.timeout, nil, Hooks{})
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %q, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestIsUnixSocket(t *testing.T) {
	tests := []struct {
		name    string
		address string
		want    bool
	}{
		{name: "absolute path", address: "/run/csi/socket", want: true},
		{name: "unix URL", address: "unix:///run/csi/socket", want: true},
		{name: "unix without slashes", address: "unix:/run/csi/socket"},
		{name: "relative path", address: "csi.sock"},
		{name: "tcp", address: "dns:///localhost:10000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := isUnixSocket(tc.address); got != tc.want {
				t.Errorf("isUnixSocket(%q) = %v, want %v", tc.address, got, tc.want)
			}
		})
	}
}

func TestConnectionLoss(t *testing.T) {
	tests := []struct {
		name   string
		prefix string // before the socket path
		// wantLost: a lost connection is detected and reported.
		wantLost bool
	}{
		{name: "absolute path", wantLost: true},
		{name: "unix URL", prefix: "unix://", wantLost: true},
		{name: "other address form", prefix: "unix:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: "test.csi.example.com"})
			lost := make(chan struct{})
			var calls atomic.Int32
			onLost := func() {
				if calls.Add(1) == 1 {
					close(lost)
				}
			}
			c, err := Connect(testContext(t), tc.prefix+d.Endpoint(), callTimeout, nil, Hooks{Lost: onLost})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer c.Close()
			if _, err := c.DriverName(testContext(t)); err != nil {
				t.Fatalf("DriverName before the loss: %v", err)
			}

			d.Stop()
			if tc.wantLost {
				// No call is needed for the loss to be noticed.
				waitClosed(t, lost, "onLost")
			}
			// The client never reconnects, even to a driver that is back.
			d2, err := csidriver.Serve(d.Endpoint(), csidriver.Config{DriverName: "test.csi.example.com"})
			if err != nil {
				t.Fatalf("restart driver: %v", err)
			}
			defer d2.Stop()
			_, err = c.DriverName(testContext(t))
			if tc.wantLost && status.Code(err) != codes.Unavailable {
				t.Errorf("DriverName after the loss: error = %v, want Unavailable", err)
			}
			if got := calls.Load(); got != map[bool]int32{true: 1, false: 0}[tc.wantLost] {
				t.Errorf("onLost called %d times", got)
			}
		})
	}
}

func TestCloseDoesNotReportLoss(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: "test.csi.example.com"})
	var calls atomic.Int32
	c, err := Connect(testContext(t), d.Endpoint(), callTimeout, nil, Hooks{Lost: func() { calls.Add(1) }})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	d.Stop()
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if got := calls.Load(); got != 0 {
		t.Errorf("onLost called %d times after Close", got)
	}
}

func TestMetricsAreRecorded(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: "test.csi.example.com"})
	d.FailExpand(codes.ResourceExhausted, 1)
	mm := metrics.NewCSIMetricsManagerForSidecar("test.csi.example.com")
	c, err := Connect(testContext(t), d.Endpoint(), callTimeout, mm, Hooks{})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer c.Close()
	if _, _, err := c.Expand(testContext(t), ExpandRequest{VolumeID: "vol-1", RequiredBytes: 10}); err == nil {
		t.Fatal("Expand with a fault armed succeeded")
	}

	families, err := mm.GetRegistry().Gather()
	if err != nil {
		t.Fatalf("gather metrics: %v", err)
	}
	for _, f := range families {
		if f.GetName() != "csi_sidecar_operations_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["method_name"] == csi.Controller_ControllerExpandVolume_FullMethodName &&
				labels["grpc_status_code"] == codes.ResourceExhausted.String() &&
				labels["driver_name"] == "test.csi.example.com" {
				return
			}
		}
	}
	t.Errorf("no csi_sidecar_operations_seconds sample for the failed ControllerExpandVolume in %v", families)
}

func TestPayloadLogsStripSecrets(t *testing.T) {
	_, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com"})
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(5), ktesting.BufferLogs(true)))
	ctx := klog.NewContext(testContext(t), logger)
	secret := "hunter2-do-not-log"
	if _, _, err := c.Expand(ctx, ExpandRequest{VolumeID: "vol-1", RequiredBytes: 10, Secrets: map[string]string{"password": secret}}); err != nil {
		t.Fatalf("Expand: %v", err)
	}
	logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	for _, want := range []string{"GRPC call", "ControllerExpandVolume", "***stripped***", "GRPC response"} {
		if !strings.Contains(logs, want) {
			t.Errorf("V(5) logs lack %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, secret) {
		t.Errorf("logs contain the secret:\n%s", logs)
	}
}

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
