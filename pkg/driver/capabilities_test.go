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
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func TestCapabilities(t *testing.T) {
	tests := []struct {
		name            string
		cfg             csidriver.Config
		want            Capabilities
		wantMode        Mode
		wantOnlyOffline bool
	}{
		{
			name:     "controller expand",
			cfg:      csidriver.Config{ControllerExpand: true, NodeExpand: true},
			want:     Capabilities{ControllerExpand: true, NodeExpand: true},
			wantMode: ModeController,
		},
		{
			name:     "controller expand, no Node service on the socket",
			cfg:      csidriver.Config{ControllerExpand: true, NoNodeService: true},
			want:     Capabilities{ControllerExpand: true},
			wantMode: ModeController,
		},
		{
			name:     "node only",
			cfg:      csidriver.Config{NodeExpand: true},
			want:     Capabilities{NodeExpand: true},
			wantMode: ModeNodeOnly,
		},
		{
			name: "node only, no controller service",
			// The controller would expand, but the plugin does not advertise
			// CONTROLLER_SERVICE, so its capabilities are not asked for.
			cfg:      csidriver.Config{ControllerExpand: true, NodeExpand: true, NoControllerService: true},
			want:     Capabilities{NodeExpand: true},
			wantMode: ModeNodeOnly,
		},
		{
			name:     "neither",
			cfg:      csidriver.Config{},
			wantMode: ModeUnsupported,
		},
		{
			name:     "neither, no Node service",
			cfg:      csidriver.Config{NoNodeService: true},
			wantMode: ModeUnsupported,
		},
		{
			name:     "online",
			cfg:      csidriver.Config{ControllerExpand: true, Online: true},
			want:     Capabilities{ControllerExpand: true, OnlineExpansion: true},
			wantMode: ModeController,
		},
		{
			name:            "offline",
			cfg:             csidriver.Config{ControllerExpand: true, Offline: true},
			want:            Capabilities{ControllerExpand: true, OfflineExpansion: true},
			wantMode:        ModeController,
			wantOnlyOffline: true,
		},
		{
			name:     "online and offline",
			cfg:      csidriver.Config{ControllerExpand: true, Online: true, Offline: true},
			want:     Capabilities{ControllerExpand: true, OnlineExpansion: true, OfflineExpansion: true},
			wantMode: ModeController,
		},
		{
			name:     "single node multi writer",
			cfg:      csidriver.Config{ControllerExpand: true, SingleNodeMultiWriter: true},
			want:     Capabilities{ControllerExpand: true, SingleNodeMultiWriter: true},
			wantMode: ModeController,
		},
		{
			name:     "controller modify",
			cfg:      csidriver.Config{ControllerExpand: true, ControllerModify: true},
			want:     Capabilities{ControllerExpand: true, ControllerModify: true},
			wantMode: ModeController,
		},
		{
			name: "controller modify without expansion",
			// A driver may modify volumes it cannot expand.
			cfg:      csidriver.Config{ControllerModify: true, NoNodeService: true},
			want:     Capabilities{ControllerModify: true},
			wantMode: ModeUnsupported,
		},
		{
			name:     "controller modify, no controller service",
			cfg:      csidriver.Config{ControllerModify: true, NodeExpand: true, NoControllerService: true},
			want:     Capabilities{NodeExpand: true},
			wantMode: ModeNodeOnly,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := connect(t, tc.cfg)
			got, err := c.Capabilities(testContext(t))
			if err != nil {
				t.Fatalf("Capabilities: %v", err)
			}
			if got != tc.want {
				t.Errorf("Capabilities = %+v, want %+v", got, tc.want)
			}
			if got.Mode() != tc.wantMode {
				t.Errorf("Mode = %v, want %v", got.Mode(), tc.wantMode)
			}
			if got.OnlyOffline() != tc.wantOnlyOffline {
				t.Errorf("OnlyOffline = %v, want %v", got.OnlyOffline(), tc.wantOnlyOffline)
			}
		})
	}
}

func TestCapabilitiesErrors(t *testing.T) {
	tests := []struct {
		name     string
		cfg      csidriver.Config
		method   string
		want     Capabilities // when no error is expected
		wantErr  string
		wantCode codes.Code
	}{
		{
			name:     "plugin capabilities fail",
			cfg:      csidriver.Config{ControllerExpand: true},
			method:   csi.Identity_GetPluginCapabilities_FullMethodName,
			wantErr:  "get CSI plugin capabilities: ",
			wantCode: codes.Internal,
		},
		{
			name:     "controller capabilities fail",
			cfg:      csidriver.Config{ControllerExpand: true},
			method:   csi.Controller_ControllerGetCapabilities_FullMethodName,
			wantErr:  "get CSI controller capabilities: ",
			wantCode: codes.Internal,
		},
		{
			name:     "node capabilities fail without controller expand",
			cfg:      csidriver.Config{NodeExpand: true},
			method:   csi.Node_NodeGetCapabilities_FullMethodName,
			wantErr:  "get CSI node capabilities: ",
			wantCode: codes.Internal,
		},
		{
			name:   "node capabilities fail with controller expand",
			cfg:    csidriver.Config{ControllerExpand: true, NodeExpand: true},
			method: csi.Node_NodeGetCapabilities_FullMethodName,
			want:   Capabilities{ControllerExpand: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, tc.cfg)
			d.FailCall(tc.method, codes.Internal, 1)
			got, err := c.Capabilities(testContext(t))
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Errorf("Capabilities = %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Capabilities error = %v, want one containing %q", err, tc.wantErr)
			}
			if status.Code(err) != tc.wantCode {
				t.Errorf("status.Code = %v, want %v", status.Code(err), tc.wantCode)
			}
		})
	}
}

func TestModeString(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		want string
	}{
		{ModeController, "controller"},
		{ModeNodeOnly, "node-only"},
		{ModeUnsupported, "unsupported"},
		{Mode(42), "Mode(42)"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.mode.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}
