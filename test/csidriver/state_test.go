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
