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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cpuSnapshot is the CPU time the whole machine and the benchmark's own
// processes (this one and its children: etcd, kube-apiserver, the driver,
// the resizer) had spent at one moment. Two snapshots tell how much CPU
// other processes took meanwhile: on a shared machine, that explains a
// slow run.
type cpuSnapshot struct {
	At         time.Time
	Busy, Ours time.Duration
}

// foreignSince is the CPU time that processes outside the benchmark used
// since an earlier snapshot. A child that exited in between makes it an
// overestimate, so take both snapshots while the same children run.
func (s cpuSnapshot) foreignSince(earlier cpuSnapshot) time.Duration {
	return max((s.Busy-earlier.Busy)-(s.Ours-earlier.Ours), 0)
}

// takeCPUSnapshot reads /proc/stat and the stat files of this process and
// its children.
func takeCPUSnapshot() (cpuSnapshot, error) {
	snap := cpuSnapshot{At: time.Now()}
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return snap, err
	}
	if snap.Busy, err = parseBusy(string(data)); err != nil {
		return snap, err
	}
	self := os.Getpid()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		text, err := os.ReadFile(path)
		if err != nil {
			continue // it exited meanwhile
		}
		ppid, cpu, err := parseStat(string(text))
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if pid == self || ppid == self {
			snap.Ours += cpu
		}
	}
	return snap, nil
}

// parseBusy reads the machine's busy time from the "cpu" line of
// /proc/stat: every field but idle and iowait (guest time is already in
// user).
func parseBusy(text string) (time.Duration, error) {
	line, _, _ := strings.Cut(text, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("unexpected first line of /proc/stat: %q", line)
	}
	var ticks int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat field %d: %w", i+1, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// foreignLoad describes the other processes' CPU between two snapshots,
// as CPU seconds and as a share of the machine.
func foreignLoad(from, to cpuSnapshot, nproc int) string {
	wall := to.At.Sub(from.At)
	f := to.foreignSince(from)
	if wall <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f s (%.0f%%)", f.Seconds(), 100*f.Seconds()/(wall.Seconds()*float64(nproc)))
}
