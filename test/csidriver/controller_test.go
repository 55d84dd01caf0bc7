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
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestControllerGetCapabilities(t *testing.T) {
	expand := csi.ControllerServiceCapability_RPC_EXPAND_VOLUME
	snmw := csi.ControllerServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER
	modify := csi.ControllerServiceCapability_RPC_MODIFY_VOLUME
	tests := []struct {
		name string
		cfg  Config
		want []csi.ControllerServiceCapability_RPC_Type
	}{
		{name: "none"},
		{name: "expand", cfg: Config{ControllerExpand: true}, want: []csi.ControllerServiceCapability_RPC_Type{expand}},
		{name: "single node multi writer", cfg: Config{SingleNodeMultiWriter: true}, want: []csi.ControllerServiceCapability_RPC_Type{snmw}},
		{name: "both", cfg: Config{ControllerExpand: true, SingleNodeMultiWriter: true}, want: []csi.ControllerServiceCapability_RPC_Type{expand, snmw}},
		{name: "modify", cfg: Config{ControllerModify: true}, want: []csi.ControllerServiceCapability_RPC_Type{modify}},
		{name: "all", cfg: Config{ControllerExpand: true, SingleNodeMultiWriter: true, ControllerModify: true}, want: []csi.ControllerServiceCapability_RPC_Type{expand, snmw, modify}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := dial(t, tc.cfg)
			resp, err := c.controller.ControllerGetCapabilities(testContext(t), &csi.ControllerGetCapabilitiesRequest{})
			if err != nil {
				t.Fatalf("ControllerGetCapabilities: %v", err)
			}
			var got []csi.ControllerServiceCapability_RPC_Type
			for _, c := range resp.GetCapabilities() {
				got = append(got, c.GetRpc().GetType())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("capabilities = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestControllerExpandVolume(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		volumes  map[string]int64 // known before the call
		req      *csi.ControllerExpandVolumeRequest
		wantCode codes.Code
		wantCap  int64
		wantSize int64 // volume size afterwards; 0 = unknown volume
	}{
		{
			name:     "unknown volume is created",
			req:      expandRequest("vol-1", 10),
			wantCap:  10,
			wantSize: 10,
		},
		{
			name:     "known volume grows",
			volumes:  map[string]int64{"vol-1": 5},
			req:      expandRequest("vol-1", 10),
			wantCap:  10,
			wantSize: 10,
		},
		{
			name:     "larger volume keeps its size",
			volumes:  map[string]int64{"vol-1": 20},
			req:      expandRequest("vol-1", 10),
			wantCap:  20,
			wantSize: 20,
		},
		{
			name:     "node expansion required",
			cfg:      Config{NodeExpansionRequired: true},
			req:      expandRequest("vol-1", 10),
			wantCap:  10,
			wantSize: 10,
		},
		{
			name:     "allocation unit: rounded up",
			cfg:      Config{AllocationUnit: 4},
			volumes:  map[string]int64{"vol-1": 5},
			req:      expandRequest("vol-1", 10),
			wantCap:  12,
			wantSize: 12,
		},
		{
			name:     "allocation unit: a multiple stays",
			cfg:      Config{AllocationUnit: 5},
			req:      expandRequest("vol-1", 10),
			wantCap:  10,
			wantSize: 10,
		},
		{
			name: "allocation unit: never beyond the limit",
			cfg:  Config{AllocationUnit: 8},
			req: &csi.ControllerExpandVolumeRequest{
				VolumeId:      "vol-1",
				CapacityRange: &csi.CapacityRange{RequiredBytes: 10, LimitBytes: 12},
			},
			wantCap:  12,
			wantSize: 12,
		},
		{
			name:     "allocation unit: a multiple beyond int64 is not rounded",
			cfg:      Config{AllocationUnit: 1 << 62},
			req:      expandRequest("vol-1", 1<<62+1),
			wantCap:  1<<62 + 1,
			wantSize: 1<<62 + 1,
		},
		{
			name:     "strict: unknown volume",
			cfg:      Config{StrictVolumes: true},
			req:      expandRequest("vol-1", 10),
			wantCode: codes.NotFound,
		},
		{
			name:     "strict: known volume",
			cfg:      Config{StrictVolumes: true},
			volumes:  map[string]int64{"vol-1": 5},
			req:      expandRequest("vol-1", 10),
			wantCap:  10,
			wantSize: 10,
		},
		{
			name:     "no volume id",
			req:      expandRequest("", 10),
			wantCode: codes.InvalidArgument,
		},
		{
			name:     "no capacity range",
			req:      &csi.ControllerExpandVolumeRequest{VolumeId: "vol-1"},
			wantCode: codes.InvalidArgument,
		},
		{
			name:     "negative size",
			req:      expandRequest("vol-1", -1),
			wantCode: codes.InvalidArgument,
		},
		{
			name: "above limit",
			req: &csi.ControllerExpandVolumeRequest{
				VolumeId:      "vol-1",
				CapacityRange: &csi.CapacityRange{RequiredBytes: 10, LimitBytes: 5},
			},
			wantCode: codes.OutOfRange,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, tc.cfg)
			for id, size := range tc.volumes {
				d.AddVolume(id, size)
			}
			resp, err := c.controller.ControllerExpandVolume(testContext(t), tc.req)
			if status.Code(err) != tc.wantCode {
				t.Fatalf("ControllerExpandVolume error = %v, want code %v", err, tc.wantCode)
			}
			if resp.GetCapacityBytes() != tc.wantCap || resp.GetNodeExpansionRequired() != (err == nil && tc.cfg.NodeExpansionRequired) {
				t.Errorf("response = %v, want capacity %d, node expansion %v", resp, tc.wantCap, tc.cfg.NodeExpansionRequired)
			}
			size, known := d.VolumeSize(tc.req.GetVolumeId())
			if size != tc.wantSize || known != (tc.wantSize != 0) {
				t.Errorf("VolumeSize = %d, %v, want %d", size, known, tc.wantSize)
			}
		})
	}
}

func TestControllerModifyVolume(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		volumes   map[string]int64                     // sizes known before the calls
		requests  []*csi.ControllerModifyVolumeRequest // the last one is checked
		wantCode  codes.Code
		wantKnown bool              // VolumeParameters finds the volume afterwards
		want      map[string]string // its parameters
	}{
		{
			name:      "unknown volume is created",
			requests:  []*csi.ControllerModifyVolumeRequest{modifyRequest("vol-1", map[string]string{"iops": "3000"})},
			wantKnown: true,
			want:      map[string]string{"iops": "3000"},
		},
		{
			name:      "known volume, strict",
			cfg:       Config{StrictVolumes: true},
			volumes:   map[string]int64{"vol-1": 10},
			requests:  []*csi.ControllerModifyVolumeRequest{modifyRequest("vol-1", map[string]string{"iops": "3000"})},
			wantKnown: true,
			want:      map[string]string{"iops": "3000"},
		},
		{
			name:     "unknown volume, strict",
			cfg:      Config{StrictVolumes: true},
			requests: []*csi.ControllerModifyVolumeRequest{modifyRequest("vol-1", map[string]string{"iops": "3000"})},
			wantCode: codes.NotFound,
		},
		{
			name:     "empty volume ID",
			requests: []*csi.ControllerModifyVolumeRequest{modifyRequest("", map[string]string{"iops": "3000"})},
			wantCode: codes.InvalidArgument,
		},
		{
			name: "parameters are merged into those applied before",
			requests: []*csi.ControllerModifyVolumeRequest{
				modifyRequest("vol-1", map[string]string{"iops": "1000", "throughput": "125"}),
				modifyRequest("vol-1", map[string]string{"iops": "3000"}),
			},
			wantKnown: true,
			want:      map[string]string{"iops": "3000", "throughput": "125"},
		},
		{
			name: "a failed call changes nothing",
			cfg:  Config{StrictVolumes: true},
			requests: []*csi.ControllerModifyVolumeRequest{
				modifyRequest("vol-2", map[string]string{"iops": "1000"}),
			},
			volumes:  map[string]int64{"vol-1": 10},
			wantCode: codes.NotFound,
		},
		{
			name:      "no parameters",
			requests:  []*csi.ControllerModifyVolumeRequest{modifyRequest("vol-1", nil)},
			wantKnown: true,
			want:      map[string]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, tc.cfg)
			for id, size := range tc.volumes {
				d.AddVolume(id, size)
			}
			var err error
			for _, req := range tc.requests {
				_, err = c.controller.ControllerModifyVolume(testContext(t), req)
			}
			if status.Code(err) != tc.wantCode {
				t.Fatalf("ControllerModifyVolume error = %v, want code %v", err, tc.wantCode)
			}
			id := tc.requests[len(tc.requests)-1].GetVolumeId()
			got, known := d.VolumeParameters(id)
			if known != tc.wantKnown || !maps.Equal(got, tc.want) {
				t.Errorf("VolumeParameters(%q) = %v, %v; want %v, %v", id, got, known, tc.want, tc.wantKnown)
			}
			if size, ok := d.VolumeSize(id); tc.volumes[id] == 0 && ok {
				t.Errorf("modify gave the volume a size %d", size)
			}
		})
	}
}

func TestVolumeParametersAreCopies(t *testing.T) {
	d, c := dial(t, Config{})
	if _, err := c.controller.ControllerModifyVolume(testContext(t), modifyRequest("vol-1", map[string]string{"iops": "3000"})); err != nil {
		t.Fatalf("ControllerModifyVolume: %v", err)
	}
	got, _ := d.VolumeParameters("vol-1")
	got["iops"] = "changed"
	if again, _ := d.VolumeParameters("vol-1"); again["iops"] != "3000" {
		t.Errorf("changing returned parameters changed the volume: %v", again)
	}
}

func TestModifyFailsWhenStateCannotBeSaved(t *testing.T) {
	d, c := dial(t, Config{StateFile: filepath.Join(t.TempDir(), "gone", "state.json")})
	_, err := c.controller.ControllerModifyVolume(testContext(t), modifyRequest("vol-1", map[string]string{"iops": "3000"}))
	if status.Code(err) != codes.Internal {
		t.Fatalf("ControllerModifyVolume with an unwritable state = %v, want Internal", err)
	}
	if params, ok := d.VolumeParameters("vol-1"); ok {
		t.Errorf("volume kept parameters %v that were never saved", params)
	}
}
