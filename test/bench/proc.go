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
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux architecture Go supports (sysconf would need cgo).
const clockTicks = 100

// procUsage is what the kernel says about a process's memory and CPU.
type procUsage struct {
	// RSS is VmRSS now, Peak VmHWM over the process's life; RSS is Anon
	// (heap, stacks) plus File (the binary's pages mapped in) plus a little
	// shared memory. All in bytes.
	RSS, Peak, Anon, File int64
	// CPU is utime+stime so far.
	CPU time.Duration
	// Switches are the context switches (voluntary and not) of the live
	// threads: each is a wake-up of a thread.
	Switches int64
}

// readUsage reads /proc/<pid>/status and stat, and its threads' status.
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
	var u procUsage
	fields := map[string]*int64{"VmRSS": &u.RSS, "VmHWM": &u.Peak, "RssAnon": &u.Anon, "RssFile": &u.File}
	if found, err := parseKB(string(status), fields); err != nil || found != len(fields) {
		if err == nil {
			err = fmt.Errorf("VmRSS, VmHWM, RssAnon or RssFile missing (a zombie has none)")
		}
		return procUsage{}, fmt.Errorf("%sstatus: %w", dir, err)
	}
	if _, u.CPU, err = parseStat(string(stat)); err != nil {
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

// parseKB reads the "Key:   12345 kB" lines of a /proc file named in
// fields into them, in bytes, and says how many it found.
func parseKB(text string, fields map[string]*int64) (found int, err error) {
	for _, line := range strings.Split(text, "\n") {
		key, value, ok := strings.Cut(line, ":")
		field := fields[key]
		if !ok || field == nil {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return found, fmt.Errorf("unexpected %s line %q", key, line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return found, fmt.Errorf("%s: %w", key, err)
		}
		*field = kb << 10
		found++
	}
	return found, nil
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

// processCPU is utime+stime of pid.
func processCPU(pid int) (time.Duration, error) {
	text, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	_, cpu, err := parseStat(string(text))
	return cpu, err
}

// parseStat reads the parent pid and utime+stime of /proc/<pid>/stat,
// counting fields from the last ')': the command name may hold spaces.
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

// readPss reads the proportional set size of pid (Pss of smaps_rollup):
// the pages it shares, such as the binary's, divided among their processes.
func readPss(pid int) (int64, error) {
	text, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, err
	}
	return parsePss(string(text))
}

func parsePss(text string) (pss int64, err error) {
	if found, err := parseKB(text, map[string]*int64{"Pss": &pss}); err != nil || found == 0 {
		return 0, cmp.Or(err, fmt.Errorf("no Pss line"))
	}
	return pss, nil
}

// cpuSnapshot is the CPU time the whole machine and the benchmark's own
// processes (this one and its children: etcd, kube-apiserver, the driver,
// the resizer) had spent at one moment. Two tell how much CPU other
// processes took meanwhile: on a shared machine, that explains a slow run.
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
		if pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path))); err == nil && (pid == self || ppid == self) {
			snap.Ours += cpu
		}
	}
	return snap, nil
}

// parseBusy reads the machine's busy time from the "cpu" line of
// /proc/stat: every field but idle and iowait (guest time is in user).
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

// around runs do between two snapshots and describes the other processes'
// CPU meanwhile.
func around(nproc int, do func() error) (string, error) {
	before, err := takeCPUSnapshot()
	if err != nil {
		return "", err
	}
	if err := do(); err != nil {
		return "", err
	}
	after, err := takeCPUSnapshot()
	return foreignLoad(before, after, nproc), err
}

// machine describes where the numbers were measured.
type machine struct {
	CPU, Memory, Kernel, Go, APIServer string
	NProc                              int
}

// describeMachine reads /proc; the API server's version comes later, from
// the first control plane started.
func describeMachine() machine {
	m := machine{NProc: runtime.NumCPU(), Go: runtime.Version(), CPU: "unknown", Memory: "unknown", Kernel: "unknown"}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var total int64
		if found, err := parseKB(string(data), map[string]*int64{"MemTotal": &total}); err == nil && found > 0 {
			m.Memory = fmt.Sprintf("%.1f GiB", float64(total)/(1<<30))
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	return m
}

// serverVersion asks the API server its version.
func serverVersion(c kubernetes.Interface) string {
	v, err := c.Discovery().ServerVersion()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return v.GitVersion
}
