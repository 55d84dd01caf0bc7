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
	"google.golang.org/protobuf/proto"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

// pvOption changes a PV built by newPV.
type pvOption func(*v1.PersistentVolume)

func newPV(opts ...pvOption) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
		Spec: v1.PersistentVolumeSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource: v1.PersistentVolumeSource{
				CSI: &v1.CSIPersistentVolumeSource{Driver: "test.csi.example.com", VolumeHandle: "vol-1"},
			},
		},
	}
	for _, o := range opts {
		o(pv)
	}
	return pv
}

func withAccessModes(modes ...v1.PersistentVolumeAccessMode) pvOption {
	return func(pv *v1.PersistentVolume) { pv.Spec.AccessModes = modes }
}

func withVolumeMode(mode v1.PersistentVolumeMode) pvOption {
	return func(pv *v1.PersistentVolume) { pv.Spec.VolumeMode = &mode }
}

func withFS(fsType string, mountOptions ...string) pvOption {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.CSI.FSType = fsType
		pv.Spec.MountOptions = mountOptions
	}
}

func mountCapability(mode csi.VolumeCapability_AccessMode_Mode, fsType string, flags ...string) *csi.VolumeCapability {
	return &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{FsType: fsType, MountFlags: flags}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode},
	}
}

func blockCapability(mode csi.VolumeCapability_AccessMode_Mode) *csi.VolumeCapability {
	return &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode},
	}
}

func TestVolumeCapability(t *testing.T) {
	const (
		snw   = csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER
		snmw  = csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER
		snsw  = csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER
		mnro  = csi.VolumeCapability_AccessMode_MULTI_NODE_READER_ONLY
		mnmw  = csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER
		rwo   = v1.ReadWriteOnce
		rox   = v1.ReadOnlyMany
		rwx   = v1.ReadWriteMany
		rwop  = v1.ReadWriteOncePod
		block = v1.PersistentVolumeBlock
	)
	tests := []struct {
		name    string
		pv      *v1.PersistentVolume
		snmw    bool
		want    *csi.VolumeCapability
		wantErr string
	}{
		{name: "mount, default fs", pv: newPV(), want: mountCapability(snw, "")},
		{name: "mount with fsType and options", pv: newPV(withFS("xfs", "noatime", "nouuid")), want: mountCapability(snw, "xfs", "noatime", "nouuid")},
		{name: "filesystem volume mode", pv: newPV(withVolumeMode(v1.PersistentVolumeFilesystem), withFS("ext4")), want: mountCapability(snw, "ext4")},
		{name: "block ignores fs and options", pv: newPV(withVolumeMode(block), withFS("ext4", "noatime")), want: blockCapability(snw)},
		{name: "RWO", pv: newPV(withAccessModes(rwo)), want: mountCapability(snw, "")},
		{name: "RWO with single node multi writer", pv: newPV(withAccessModes(rwo)), snmw: true, want: mountCapability(snmw, "")},
		{name: "ROX", pv: newPV(withAccessModes(rox)), want: mountCapability(mnro, "")},
		{name: "ROX with single node multi writer", pv: newPV(withAccessModes(rox)), snmw: true, want: mountCapability(mnro, "")},
		{name: "RWX", pv: newPV(withAccessModes(rwx)), want: mountCapability(mnmw, "")},
		{name: "RWX and RWO", pv: newPV(withAccessModes(rwx, rwo)), want: mountCapability(mnmw, "")},
		{name: "RWX block with single node multi writer", pv: newPV(withAccessModes(rwx), withVolumeMode(block)), snmw: true, want: blockCapability(mnmw)},
		{name: "RWOP", pv: newPV(withAccessModes(rwop)), want: mountCapability(snw, "")},
		{name: "RWOP with single node multi writer", pv: newPV(withAccessModes(rwop)), snmw: true, want: mountCapability(snsw, "")},
		{
			name:    "RWOP with another mode",
			pv:      newPV(withAccessModes(rwop, rwo)),
			wantErr: `build volume capability of PV "pv-1": Kubernetes does not support use of ReadWriteOncePod with other access modes`,
		},
		{
			name:    "ROX and RWO",
			pv:      newPV(withAccessModes(rox, rwo)),
			wantErr: `build volume capability of PV "pv-1": CSI does not support ReadOnlyMany and ReadWriteOnce`,
		},
		{
			name:    "no access mode",
			pv:      newPV(withAccessModes()),
			snmw:    true,
			wantErr: `build volume capability of PV "pv-1": unsupported AccessMode combination: []`,
		},
		{
			name:    "not a CSI volume",
			pv:      newPV(func(pv *v1.PersistentVolume) { pv.Spec.CSI = nil }),
			wantErr: `build volume capability of PV "pv-1": not a CSI volume`,
		},
		{name: "no PV", wantErr: "build volume capability: no persistent volume"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := VolumeCapability(tc.pv, tc.snmw)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("VolumeCapability error = %v, want one starting with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("VolumeCapability: %v", err)
			}
			if !proto.Equal(got, tc.want) {
				t.Errorf("VolumeCapability = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVolumeCapabilityDoesNotShareMountOptions(t *testing.T) {
	pv := newPV(withFS("ext4", "noatime"))
	got, err := VolumeCapability(pv, false)
	if err != nil {
		t.Fatalf("VolumeCapability: %v", err)
	}
	got.GetMount().MountFlags[0] = "changed"
	if pv.Spec.MountOptions[0] != "noatime" {
		t.Errorf("changing the capability changed the PV: %v", pv.Spec.MountOptions)
	}
}
