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
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
// It is 100 on every Linux architecture Go supports (sysconf(_SC_CLK_TCK)
// would need cgo).
const clockTicks = 100

// procUsage is what the kernel says about a process's memory and CPU.
type procUsage struct {
	// RSS is VmRSS, the resident set now; Peak is VmHWM, its high-water
	// mark over the process's life. RSS is Anon (heap, stacks) plus File
	// (pages of the binary mapped in) plus a little shared memory. All in
	// bytes.
	RSS, Peak, Anon, File int64
	// CPU is utime+stime: user and system CPU time so far.
	CPU time.Duration
	// Switches are the context switches of the process's live threads
	// (voluntary and not): each is a wake-up of a thread.
	Switches int64
}

// readUsage reads /proc/<pid>/status and /proc/<pid>/stat.
func readUsage(pid int) (procUsage, error) {
	dir := fmt.Sprintf("/proc/%d/", pid)
	status, err := os.ReadFile(dir + "status")
	if err != nil {
		return procUsage{}, err
	}
	stat, err := os.ReadFile(dir + "stat")
	if err != nil {
		return procUsage{}, err
	}
	u, err := parseStatus(string(status))
	if err != nil {
		return procUsage{}, fmt.Errorf("%sstatus: %w", dir, err)
	}
	if u.CPU, err = parseStatCPU(string(stat)); err != nil {
		return procUsage{}, fmt.Errorf("%sstat: %w", dir, err)
	}
	tasks, _ := filepath.Glob(dir + "task/*/status")
	for _, t := range tasks {
		if text, err := os.ReadFile(t); err == nil {
			u.Switches += parseSwitches(string(text))
		}
	}
	return u, nil
}

// parseSwitches adds voluntary_ctxt_switches and
// nonvoluntary_ctxt_switches of a /proc/<pid>/task/<tid>/status.
func parseSwitches(text string) int64 {
	var n int64
	for _, line := range strings.Split(text, "\n") {
		key, value, ok := strings.Cut(line, ":")
		if ok && (key == "voluntary_ctxt_switches" || key == "nonvoluntary_ctxt_switches") {
			v, _ := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			n += v
		}
	}
	return n
}

// parseStatus reads VmRSS, VmHWM, RssAnon and RssFile ("VmHWM:	  12345
// kB") of /proc/<pid>/status.
func parseStatus(text string) (procUsage, error) {
	var u procUsage
	fields := map[string]*int64{"VmRSS": &u.RSS, "VmHWM": &u.Peak, "RssAnon": &u.Anon, "RssFile": &u.File}
	found := 0
	s := bufio.NewScanner(strings.NewReader(text))
	for s.Scan() {
		key, value, ok := strings.Cut(s.Text(), ":")
		field := fields[key]
		if !ok || field == nil {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return u, fmt.Errorf("unexpected %s line %q", key, s.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return u, fmt.Errorf("%s: %w", key, err)
		}
		*field = kb << 10
		found++
	}
	if found != len(fields) {
		return u, fmt.Errorf("VmRSS, VmHWM, RssAnon or RssFile missing (a zombie has none)")
	}
	return u, nil
}

// parseStatCPU reads utime+stime of /proc/<pid>/stat.
func parseStatCPU(text string) (time.Duration, error) {
	_, cpu, err := parseStat(text)
	return cpu, err
}

// parseStat reads the parent pid and utime+stime of /proc/<pid>/stat. The
// command name (field 2) is in parentheses and may hold spaces, so fields
// are counted from the last ')'.
func parseStat(text string) (ppid int, cpu time.Duration, err error) {
	end := strings.LastIndexByte(text, ')')
	if end < 0 {
		return 0, 0, fmt.Errorf("no command name in %q", text)
	}
	// After ")": field 3 (state) is rest[0], so field k is rest[k-3].
	rest := strings.Fields(text[end+1:])
	const parent, utime, stime = 4 - 3, 14 - 3, 15 - 3
	if len(rest) <= stime {
		return 0, 0, fmt.Errorf("only %d fields after the command name", len(rest))
	}
	if ppid, err = strconv.Atoi(rest[parent]); err != nil {
		return 0, 0, fmt.Errorf("field 4: %w", err)
	}
	var ticks int64
	for _, i := range []int{utime, stime} {
		n, err := strconv.ParseInt(rest[i], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("field %d: %w", i+3, err)
		}
		ticks += n
	}
	return ppid, time.Duration(ticks) * time.Second / clockTicks, nil
}

// mib formats bytes as MiB with one decimal.
func mib(b int64) string {
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB"
}
