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
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestStateSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := WriteState(path, map[string]int64{"vol-1": 5}); err != nil {
		t.Fatal(err)
	}
	d, c := dial(t, Config{StateFile: path})
	if size, ok := d.VolumeSize("vol-1"); !ok || size != 5 {
		t.Fatalf("loaded size of vol-1 = %d, %v; want 5", size, ok)
	}
	if _, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 10)); err != nil {
		t.Fatalf("ControllerExpandVolume: %v", err)
	}
	d.AddVolume("vol-2", 7)
	d.Stop()

	restarted := StartForTest(t, Config{StateFile: path})
	for id, want := range map[string]int64{"vol-1": 10, "vol-2": 7} {
		if size, ok := restarted.VolumeSize(id); !ok || size != want {
			t.Errorf("after a restart %s = %d, %v; want %d", id, size, ok, want)
		}
	}
}

func TestReadState(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(garbage, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    map[string]int64
		wantErr bool
	}{
		{name: "no state file", path: "", want: map[string]int64{}},
		{name: "missing file", path: filepath.Join(dir, "missing.json"), want: map[string]int64{}},
		{name: "malformed", path: garbage, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadState(tc.path)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ReadState: %v", err)
			}
			if !tc.wantErr && !maps.Equal(got, tc.want) {
				t.Errorf("ReadState = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExpandFailsWhenStateCannotBeSaved(t *testing.T) {
	dir := t.TempDir()
	d, c := dial(t, Config{StateFile: filepath.Join(dir, "gone", "state.json")})
	_, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 10))
	if status.Code(err) != codes.Internal {
		t.Fatalf("ControllerExpandVolume with an unwritable state = %v, want Internal", err)
	}
	if size, ok := d.VolumeSize("vol-1"); ok {
		t.Errorf("volume kept size %d that was never saved", size)
	}
}

func TestParametersSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	d, c := dial(t, Config{StateFile: path})
	d.AddVolume("vol-1", 5)
	if _, err := c.controller.ControllerModifyVolume(testContext(t), modifyRequest("vol-1", map[string]string{"iops": "3000"})); err != nil {
		t.Fatalf("ControllerModifyVolume: %v", err)
	}
	d.Stop()

	restarted := StartForTest(t, Config{StateFile: path})
	if params, ok := restarted.VolumeParameters("vol-1"); !ok || !maps.Equal(params, map[string]string{"iops": "3000"}) {
		t.Errorf("after a restart the parameters of vol-1 = %v, %v; want iops=3000", params, ok)
	}
	if size, ok := restarted.VolumeSize("vol-1"); !ok || size != 5 {
		t.Errorf("after a restart vol-1 = %d, %v; want 5", size, ok)
	}
	saved, err := ReadVolumeParameters(path)
	if err != nil || saved["vol-1"]["iops"] != "3000" {
		t.Errorf("ReadVolumeParameters = %v, %v; want vol-1 with iops=3000", saved, err)
	}
}

// TestReadStateFiles reads state files as drivers of each version wrote them.
func TestReadStateFiles(t *testing.T) {
	tests := []struct {
		name        string
		content     string
		wantVolumes map[string]int64
		wantParams  map[string]map[string]string
	}{
		{
			name:        "written before modify was served",
			content:     `{"volumes":{"vol-1":5,"vol-2":7}}`,
			wantVolumes: map[string]int64{"vol-1": 5, "vol-2": 7},
			wantParams:  map[string]map[string]string{},
		},
		{
			name:        "with parameters",
			content:     `{"volumes":{"vol-1":5},"parameters":{"vol-1":{"iops":"3000"},"vol-3":{}}}`,
			wantVolumes: map[string]int64{"vol-1": 5},
			wantParams:  map[string]map[string]string{"vol-1": {"iops": "3000"}, "vol-3": {}},
		},
		{
			name:        "empty object",
			content:     `{}`,
			wantVolumes: map[string]int64{},
			wantParams:  map[string]map[string]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			volumes, err := ReadState(path)
			if err != nil || !maps.Equal(volumes, tc.wantVolumes) {
				t.Errorf("ReadState = %v, %v; want %v", volumes, err, tc.wantVolumes)
			}
			params, err := ReadVolumeParameters(path)
			if err != nil || !maps.EqualFunc(params, tc.wantParams, maps.Equal) {
				t.Errorf("ReadVolumeParameters = %v, %v; want %v", params, err, tc.wantParams)
			}
			// A driver starts on it.
			d := StartForTest(t, Config{StateFile: path})
			for id, want := range tc.wantParams {
				if got, ok := d.VolumeParameters(id); !ok || !maps.Equal(got, want) {
					t.Errorf("VolumeParameters(%s) = %v, %v; want %v", id, got, ok, want)
				}
			}
		})
	}
}

func TestStateWithoutParametersKeepsItsFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	d := StartForTest(t, Config{StateFile: path})
	d.AddVolume("vol-1", 5)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), `{"volumes":{"vol-1":5}}`; got != want {
		t.Errorf("state file = %s, want %s as before modify was served", got, want)
	}
}
