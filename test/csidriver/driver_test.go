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

package csidriver

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestServeSocketPath(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		wantErr string
	}{
		{
			name:    "fresh path",
			prepare: func(*testing.T, string) {},
		},
		{
			name: "stale socket is replaced",
			prepare: func(t *testing.T, path string) {
				lis, err := net.Listen("unix", path)
				if err != nil {
					t.Fatal(err)
				}
				// Leave the socket file behind, as a crashed driver does.
				lis.(*net.UnixListener).SetUnlinkOnClose(false)
				lis.Close()
			},
		},
		{
			name: "regular file is not removed",
			prepare: func(t *testing.T, path string) {
				if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "is not a socket",
		},
		{
			name: "missing directory",
			prepare: func(t *testing.T, path string) {
				if err := os.Remove(filepath.Dir(path)); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "listen on unix socket",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "csi")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			path := filepath.Join(dir, "csi.sock")
			tc.prepare(t, path)

			d, err := Serve(path, Config{DriverName: "test.csi.example.com"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Serve error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
			if d.Endpoint() != path {
				t.Errorf("Endpoint() = %q, want %q", d.Endpoint(), path)
			}
			d.Stop()
			d.Stop() // a second Stop is harmless
			if _, err := os.Lstat(path); !os.IsNotExist(err) {
				t.Errorf("socket still present after Stop: %v", err)
			}
		})
	}
}

func TestStartForTestShortensLongPaths(t *testing.T) {
	// t.TempDir embeds this long test name, which would overflow a socket path.
	t.Run(strings.Repeat("a-very-long-subtest-name-", 6), func(t *testing.T) {
		d := StartForTest(t, Config{})
		if n := len(d.Endpoint()); n > maxSocketPath {
			t.Fatalf("socket path has %d bytes, want at most %d: %s", n, maxSocketPath, d.Endpoint())
		}
		_, c := dial(t, Config{})
		if _, err := c.identity.GetPluginInfo(testContext(t), &csi.GetPluginInfoRequest{}); err != nil {
			t.Fatalf("GetPluginInfo: %v", err)
		}
	})
}

func TestGetPluginInfo(t *testing.T) {
	for _, name := range []string{"test.csi.example.com", ""} {
		t.Run("name "+name, func(t *testing.T) {
			_, c := dial(t, Config{DriverName: name})
			resp, err := c.identity.GetPluginInfo(testContext(t), &csi.GetPluginInfoRequest{})
			if err != nil {
				t.Fatalf("GetPluginInfo: %v", err)
			}
			if resp.GetName() != name || resp.GetVendorVersion() != "test" {
				t.Errorf("GetPluginInfo = %v, want name %q", resp, name)
			}
		})
	}
}

func TestGetPluginCapabilities(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		wantService bool
		wantExp     []csi.PluginCapability_VolumeExpansion_Type
	}{
		{name: "controller service, no expansion type", cfg: Config{}, wantService: true},
		{name: "no controller service", cfg: Config{NoControllerService: true}},
		{name: "online", cfg: Config{Online: true}, wantService: true,
			wantExp: []csi.PluginCapability_VolumeExpansion_Type{csi.PluginCapability_VolumeExpansion_ONLINE}},
		{name: "offline", cfg: Config{Offline: true}, wantService: true,
			wantExp: []csi.PluginCapability_VolumeExpansion_Type{csi.PluginCapability_VolumeExpansion_OFFLINE}},
		{name: "both", cfg: Config{Online: true, Offline: true}, wantService: true,
			wantExp: []csi.PluginCapability_VolumeExpansion_Type{csi.PluginCapability_VolumeExpansion_ONLINE, csi.PluginCapability_VolumeExpansion_OFFLINE}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := dial(t, tc.cfg)
			resp, err := c.identity.GetPluginCapabilities(testContext(t), &csi.GetPluginCapabilitiesRequest{})
			if err != nil {
				t.Fatalf("GetPluginCapabilities: %v", err)
			}
			var gotService bool
			var gotExp []csi.PluginCapability_VolumeExpansion_Type
			for _, c := range resp.GetCapabilities() {
				if c.GetService().GetType() == csi.PluginCapability_Service_CONTROLLER_SERVICE {
					gotService = true
				}
				if e := c.GetVolumeExpansion(); e != nil {
					gotExp = append(gotExp, e.GetType())
				}
			}
			if gotService != tc.wantService || !slices.Equal(gotExp, tc.wantExp) {
				t.Errorf("capabilities = %v, want controller service %v and expansion %v", resp, tc.wantService, tc.wantExp)
			}
			_, err = c.controller.ControllerGetCapabilities(testContext(t), &csi.ControllerGetCapabilitiesRequest{})
			if tc.cfg.NoControllerService && status.Code(err) != codes.Unimplemented {
				t.Errorf("ControllerGetCapabilities without controller service: err = %v, want Unimplemented", err)
			}
		})
	}
}

func TestProbe(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		failCode  codes.Code
		failTimes int
		// want is one entry per Probe call: the code, and readiness when OK.
		want []probeResult
	}{
		{
			name: "ready at once",
			want: []probeResult{{codes.OK, true}, {codes.OK, true}},
		},
		{
			name: "not ready twice",
			cfg:  Config{ProbeNotReadyTimes: 2},
			want: []probeResult{{codes.OK, false}, {codes.OK, false}, {codes.OK, true}},
		},
		{
			name:      "fails once then not ready once",
			cfg:       Config{ProbeNotReadyTimes: 1},
			failCode:  codes.FailedPrecondition,
			failTimes: 1,
			want:      []probeResult{{codes.FailedPrecondition, false}, {codes.OK, false}, {codes.OK, true}},
		},
		{
			name:      "fails for ever",
			failCode:  codes.Internal,
			failTimes: -1,
			want:      []probeResult{{codes.Internal, false}, {codes.Internal, false}, {codes.Internal, false}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, tc.cfg)
			d.FailCall(csi.Identity_Probe_FullMethodName, tc.failCode, tc.failTimes)
			for i, want := range tc.want {
				resp, err := c.identity.Probe(testContext(t), &csi.ProbeRequest{})
				got := probeResult{status.Code(err), resp.GetReady().GetValue()}
				if got != want {
					t.Errorf("Probe call %d = %+v, want %+v", i, got, want)
				}
			}
		})
	}
}

type probeResult struct {
	code  codes.Code
	ready bool
}

func TestCallsRecordCallerPid(t *testing.T) {
	d, c := dial(t, Config{})
	if _, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 10)); err != nil {
		t.Fatalf("ControllerExpandVolume: %v", err)
	}
	if got, want := d.Calls()[0].Pid, os.Getpid(); got != want {
		t.Errorf("caller pid = %d, want this process, %d", got, want)
	}
}

func TestCallsRecordWhenTheCallerGaveUp(t *testing.T) {
	tests := []struct {
		name     string
		delay    time.Duration
		wantGone bool
	}{
		{name: "answered in time"},
		{name: "caller's deadline passed", delay: time.Hour, wantGone: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{})
			d.SetExpandDelay(tc.delay)
			ctx, cancel := context.WithTimeout(testContext(t), 200*time.Millisecond)
			defer cancel()
			_, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-1", 10))
			if tc.wantGone != (status.Code(err) == codes.DeadlineExceeded) {
				t.Fatalf("ControllerExpandVolume: %v", err)
			}
			waitFor(t, "the call to end", func() bool { return d.InFlight("vol-1") == 0 })
			call := d.Calls()[0]
			if call.Deadline.IsZero() {
				t.Error("the caller's deadline is not recorded")
			}
			if gone := !call.CallerGone.IsZero(); gone != tc.wantGone {
				t.Errorf("CallerGone = %v, want set: %v", call.CallerGone, tc.wantGone)
			}
			if tc.wantGone && (call.CallerGone.Before(call.Start) || call.CallerGone.After(call.End)) {
				t.Errorf("CallerGone %v outside the call %v-%v", call.CallerGone, call.Start, call.End)
			}
		})
	}
}
