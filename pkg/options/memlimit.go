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

// This file finds the memory limit of the container the process
// runs in, from its cgroup, so that the Go runtime can be told to collect
// harder before the kernel kills the process (GOMEMLIMIT). Go reads the
// CPU quota of a cgroup by itself (GOMAXPROCS, since Go 1.25) but not its
// memory limit.

package options

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"
)

// Ratio is the part of the container's limit given to the Go runtime as
// its soft limit: the rest is for what the runtime does not count (the
// binary's mapped pages, thread stacks outside the heap, page tables).
const Ratio = 0.9

// Limit is a cgroup's memory limit and where it was read.
type Limit struct {
	Bytes int64
	File  string // relative to the root of the file system given to Find
}

// SoftLimit is the limit the Go runtime gets: Ratio of the cgroup's.
func (l Limit) SoftLimit() int64 {
	return int64(float64(l.Bytes) * Ratio)
}

// errNoLimit means the cgroup sets no memory limit.
var errNoLimit = errors.New("no memory limit")

// Find returns the tightest memory limit on the process's cgroup and its
// parents, read from root (the host's "/"): /proc/self/cgroup names the
// cgroup, /sys/fs/cgroup holds its files (cgroup v2: memory.max; v1:
// memory/.../memory.limit_in_bytes). ok is false when no limit is set.
func Find(root fs.FS) (limit Limit, ok bool, err error) {
	f, err := root.Open("proc/self/cgroup")
	if err != nil {
		return Limit{}, false, fmt.Errorf("memory limit: %w", err)
	}
	defer f.Close()
	v2, v1, err := parseCgroups(bufio.NewScanner(f))
	if err != nil {
		return Limit{}, false, fmt.Errorf("memory limit: /proc/self/cgroup: %w", err)
	}
	switch {
	case v1 != "":
		return tightest(root, "sys/fs/cgroup/memory", v1, "memory.limit_in_bytes")
	case v2 != "":
		return tightest(root, "sys/fs/cgroup", v2, "memory.max")
	}
	return Limit{}, false, nil
}

// parseCgroups returns the cgroup v2 path ("0::/path") and the v1 memory
// controller's path ("N:...memory...:/path") of /proc/self/cgroup.
func parseCgroups(s *bufio.Scanner) (v2, v1 string, err error) {
	for s.Scan() {
		id, rest, ok1 := strings.Cut(s.Text(), ":")
		controllers, p, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 {
			continue
		}
		if id == "0" && controllers == "" {
			v2 = p
		}
		for _, c := range strings.Split(controllers, ",") {
			if c == "memory" {
				v1 = p
			}
		}
	}
	return v2, v1, s.Err()
}

// tightest reads file in the cgroup at mount+cgroup and in each of its
// parents up to mount, and returns the lowest limit set. In a container
// with a cgroup namespace the path is "/" and mount is the container's own
// cgroup.
func tightest(root fs.FS, mount, cgroup, file string) (Limit, bool, error) {
	var best Limit
	found := false
	for dir := path.Clean("/" + cgroup); ; dir = path.Dir(dir) {
		name := path.Join(mount, dir, file)
		b, err := read(root, name)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, errNoLimit):
		case err != nil:
			return Limit{}, false, err
		case !found || b < best.Bytes:
			best, found = Limit{Bytes: b, File: "/" + name}, true
		}
		if dir == "/" {
			return best, found, nil
		}
	}
}

// read parses a limit file: a byte count, or "max" (v2) or a value near
// the largest int64 (v1's "unlimited") for no limit.
func read(root fs.FS, name string) (int64, error) {
	raw, err := fs.ReadFile(root, name)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(raw))
	if s == "max" {
		return 0, errNoLimit
	}
	b, err := strconv.ParseInt(s, 10, 64)
	if err != nil || b <= 0 {
		return 0, fmt.Errorf("memory limit: /%s: %q is not a byte count", name, s)
	}
	// cgroup v1 says "unlimited" with the largest page-aligned int64.
	if b >= math.MaxInt64/2 {
		return 0, errNoLimit
	}
	return b, nil
}
