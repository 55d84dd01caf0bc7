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
	"os"
	"path/filepath"
	"testing"
)

// maxSocketPath keeps socket paths below the unix limit (108 bytes on Linux
// including the terminating NUL, 104 on some BSDs).
const maxSocketPath = 100

// StartForTest serves a driver with cfg in a temporary directory and stops it
// and removes the directory when t ends. It fails t when the driver cannot
// start.
func StartForTest(t testing.TB, cfg Config) *Driver {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "csi.sock")
	if len(socket) > maxSocketPath {
		// t.TempDir embeds the test name and may be too long for a socket.
		dir, err := os.MkdirTemp("", "csi")
		if err != nil {
			t.Fatalf("create short temporary directory for CSI socket: %v", err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		socket = filepath.Join(dir, "csi.sock")
	}
	d, err := Serve(socket, cfg)
	if err != nil {
		t.Fatalf("start test CSI driver: %v", err)
	}
	t.Cleanup(d.Stop)
	return d
}
