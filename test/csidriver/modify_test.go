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
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
