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
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
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
