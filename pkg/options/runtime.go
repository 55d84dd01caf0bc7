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
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/kubernetes-csi/csi-lib-utils/standardflags"
	"k8s.io/klog/v2"
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

// memLimitEnv is the Go runtime's own setting, which wins over the
// container's limit.
const memLimitEnv = "GOMEMLIMIT"

// applyMemLimit gives the Go runtime a soft memory limit of Ratio of the
// container's, read from root's cgroup files, unless GOMEMLIMIT is set, so
// that it collects harder before the kernel kills the process: Go reads a
// cgroup's CPU quota itself (since Go 1.25), not its memory limit. It
// returns the limit set, 0 for none.
func applyMemLimit(root fs.FS) int64 {
	if v, ok := os.LookupEnv(memLimitEnv); ok {
		klog.InfoS("Go memory limit from the environment", memLimitEnv, v)
		return 0
	}
	l, ok, err := Find(root)
	switch {
	case err != nil:
		klog.InfoS("No Go memory limit: the container's memory limit could not be read", "err", err)
		return 0
	case !ok:
		klog.V(2).InfoS("No Go memory limit: the container has none")
		return 0
	}
	debug.SetMemoryLimit(l.SoftLimit())
	klog.InfoS("Set the Go memory limit from the container's", "containerLimitBytes", l.Bytes,
		"goMemoryLimitBytes", l.SoftLimit(), "from", l.File)
	return l.SoftLimit()
}

// gcPercentEnv is the Go runtime's own setting, which wins.
const gcPercentEnv = "GOGC"

// defaultGCPercent is the collector's target unless GOGC says otherwise:
// between two collections the heap may grow by half of what was live,
// instead of Go's default of doubling. The resizer's heap is mostly its
// caches, which change little, so this costs little CPU: with 10,000
// claims it took the resizer at rest from 74 to 59 MiB, and 500 resizes
// at QPS 100 cost no measurably more CPU (docs/benchmarks.md).
const defaultGCPercent = 50

// applyGCPercent sets the collector's target to defaultGCPercent unless
// GOGC is set. It returns the target set, 0 when GOGC decides.
func applyGCPercent() int {
	if v, ok := os.LookupEnv(gcPercentEnv); ok {
		klog.InfoS("Go collector target from the environment", gcPercentEnv, v)
		return 0
	}
	debug.SetGCPercent(defaultGCPercent)
	klog.V(2).InfoS("Set the Go collector target", gcPercentEnv, defaultGCPercent)
	return defaultGCPercent
}

// automaxprocsOnce guards the registration of csi-lib-utils' automaxprocs
// flag, which lives on the global flag.CommandLine and panics if added twice.
var automaxprocsOnce sync.Once

// enableAutomaxprocs sets GOMAXPROCS from the container CPU quota with
// csi-lib-utils, the same code path as upstream's --automaxprocs.
func enableAutomaxprocs() {
	automaxprocsOnce.Do(func() {
		if flag.CommandLine.Lookup("automaxprocs") == nil {
			standardflags.AddAutomaxprocs(klog.Infof)
		}
	})
	standardflags.EnableAutomaxprocs()
}
