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

package options

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   fstest.MapFS
		want    Limit
		ok      bool
		wantErr string
	}{
		{name: "v2 in a cgroup namespace", files: fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("134217728\n"),
		}, want: Limit{Bytes: 134217728, File: "/sys/fs/cgroup/memory.max"}, ok: true},
		{name: "v2 without a limit", files: fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("max\n"),
		}},
		{name: "v2, the parent's limit is tighter", files: fstest.MapFS{
			"proc/self/cgroup":               file("0::/pod/c\n"),
			"sys/fs/cgroup/pod/c/memory.max": file("max\n"),
			"sys/fs/cgroup/pod/memory.max":   file("67108864\n"),
			"sys/fs/cgroup/memory.max":       file("134217728\n"),
		}, want: Limit{Bytes: 67108864, File: "/sys/fs/cgroup/pod/memory.max"}, ok: true},
		{name: "v2, the host path is not mounted: the root is the container's", files: fstest.MapFS{
			"proc/self/cgroup":         file("0::/kubepods/burstable/pod1/c1\n"),
			"sys/fs/cgroup/memory.max": file("52428800\n"),
		}, want: Limit{Bytes: 52428800, File: "/sys/fs/cgroup/memory.max"}, ok: true},
		{name: "v1", files: fstest.MapFS{
			"proc/self/cgroup":                           file("12:pids:/x\n11:memory:/x\n1:name=systemd:/x\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("104857600\n"),
		}, want: Limit{Bytes: 104857600, File: "/sys/fs/cgroup/memory/memory.limit_in_bytes"}, ok: true},
		{name: "v1 unlimited", files: fstest.MapFS{
			"proc/self/cgroup":                           file("11:memory:/\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n"),
		}},
		{name: "hybrid: v1's memory controller counts", files: fstest.MapFS{
			"proc/self/cgroup":                           file("11:memory:/\n0::/\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("104857600\n"),
			"sys/fs/cgroup/memory.max":                   file("max\n"),
		}, want: Limit{Bytes: 104857600, File: "/sys/fs/cgroup/memory/memory.limit_in_bytes"}, ok: true},
		{name: "no cgroup files", files: fstest.MapFS{
			"proc/self/cgroup": file("0::/\n"),
		}},
		{name: "garbage in the limit", files: fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("lots\n"),
		}, wantErr: `/sys/fs/cgroup/memory.max: "lots" is not a byte count`},
		{name: "no /proc", files: fstest.MapFS{}, wantErr: "memory limit: open proc/self/cgroup"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := Find(tc.files)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Find() error = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || ok != tc.ok {
				t.Errorf("Find() = %+v, %v, want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestSoftLimit(t *testing.T) {
	if got := (Limit{Bytes: 100 << 20}).SoftLimit(); got != 90<<20 {
		t.Errorf("SoftLimit() = %d, want %d", got, 90<<20)
	}
}

// TestFindHere reads this machine's cgroup: whatever it says, no error.
func TestFindHere(t *testing.T) {
	if _, err := os.Stat("/proc/self/cgroup"); err != nil {
		t.Skip("no /proc/self/cgroup")
	}
	l, ok, err := Find(os.DirFS("/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("limit %+v, set %v", l, ok)
}
