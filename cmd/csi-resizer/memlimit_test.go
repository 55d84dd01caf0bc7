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

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutomemlimitInACgroup runs the resizer in a memory cgroup of its own
// with a 100 MiB limit, made in the kernel's cgroup file system (root and
// a writable cgroup v1 memory controller, as on CI's machines; skipped
// otherwise), and checks that the Go runtime gets 90 MiB, and none with
// --automemlimit=false.
func TestAutomemlimitInACgroup(t *testing.T) {
	dir := memoryCgroup(t, 100<<20)
	enter := fmt.Sprintf(`echo $$ > %s/cgroup.procs && exec "$0" "$@"`, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{want: `"Set the Go memory limit from the container's" containerLimitBytes=104857600 goMemoryLimitBytes=94371840`},
		{args: []string{"--automemlimit=false"}},
	} {
		out := runShell(t, enter, append([]string{"--version"}, tc.args...)...)
		got := strings.Contains(out, "Set the Go memory limit")
		if tc.want != "" && !strings.Contains(out, tc.want) || tc.want == "" && got {
			t.Errorf("csi-resizer %q in a 100 MiB cgroup: stderr\n%s\nwant %q", tc.args, out, tc.want)
		}
	}
}

// memoryCgroup makes a child of this process's cgroup v1 memory cgroup
// with limit, removed when the test ends.
func memoryCgroup(t *testing.T, limit int64) string {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skipf("no /proc/self/cgroup: %v", err)
	}
	parent := ""
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 && f[1] == "memory" {
			parent = filepath.Join("/sys/fs/cgroup/memory", f[2])
		}
	}
	if os.Geteuid() != 0 || parent == "" {
		t.Skip("needs root and a cgroup v1 memory controller")
	}
	dir, err := os.MkdirTemp(parent, "csi-resizer-test-")
	if err != nil {
		t.Skipf("cannot make a memory cgroup: %v", err)
	}
	t.Cleanup(func() {
		if err := os.Remove(dir); err != nil {
			t.Errorf("remove cgroup %s: %v", dir, err)
		}
	})
	if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(fmt.Sprint(limit)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runShell runs main through sh -c script (with the test binary as $0 and
// args after it) and returns its stderr; it must exit 0.
func runShell(t *testing.T, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", script, os.Args[0]}, args...)...)
	cmd.Env = []string{mainEnv + "=1", "GOCOVERDIR=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("csi-resizer %q: %v; stderr:\n%s", args, err, stderr.String())
	}
	return stderr.String()
}
