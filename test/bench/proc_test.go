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
	"os"
	"testing"
	"time"
)

const statusText = `Name:	csi-resizer
Umask:	0022
State:	S (sleeping)
Pid:	4242
VmPeak:	 1300000 kB
VmSize:	 1290000 kB
VmHWM:	   51200 kB
VmRSS:	   40960 kB
RssAnon:	   10240 kB
RssFile:	   30720 kB
RssShmem:	       0 kB
Threads:	12
`

// statusFields are the fields readUsage reads of a status into u.
func statusFields(u *procUsage) map[string]*int64 {
	return map[string]*int64{"VmRSS": &u.RSS, "VmHWM": &u.Peak, "RssAnon": &u.Anon, "RssFile": &u.File}
}

func TestParseKB(t *testing.T) {
	var u procUsage
	if found, err := parseKB(statusText, statusFields(&u)); err != nil || found != 4 {
		t.Fatalf("found %d, %v; want 4", found, err)
	}
	if want := (procUsage{RSS: 40 << 20, Peak: 50 << 20, Anon: 10 << 20, File: 30 << 20}); u != want {
		t.Errorf("got %+v, want %+v", u, want)
	}
	if found, err := parseKB("Name:\tzombie\nState:\tZ (zombie)\n", statusFields(&u)); err != nil || found != 0 {
		t.Errorf("a status without VmRSS: found %d, %v", found, err)
	}
	if _, err := parseKB("VmRSS:\t12 MB\nVmHWM:\t12 kB\nRssAnon:\t1 kB\nRssFile:\t1 kB\n", statusFields(&u)); err == nil {
		t.Error("a unit other than kB parsed")
	}
}

func TestParseStatCPU(t *testing.T) {
	// The command name may hold spaces and parentheses: fields count from
	// the last ')'. utime (14) = 150 ticks, stime (15) = 25 ticks.
	stat := "4242 (csi (re) sizer) S 1 4242 4242 0 -1 4194560 1000 0 0 0 150 25 0 0 20 0 12 0 100 1000000 10000 18446744073709551615"
	_, got, err := parseStat(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1750 * time.Millisecond; got != want {
		t.Errorf("CPU = %v, want %v", got, want)
	}
	for _, bad := range []string{"4242 csi-resizer S 1", "4242 (x) S 1 2 3"} {
		if _, _, err := parseStat(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestReadUsageOfThisProcess(t *testing.T) {
	u, err := readUsage(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if u.RSS <= 0 || u.Peak < u.RSS {
		t.Errorf("usage %+v: want 0 < RSS <= peak", u)
	}
}

func TestParseStatParent(t *testing.T) {
	ppid, _, err := parseStat("77 (etcd) S 4242 77 77 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 1 1 1 1")
	if err != nil || ppid != 4242 {
		t.Errorf("ppid = %d, %v; want 4242", ppid, err)
	}
}

func TestParseSwitches(t *testing.T) {
	text := "Name:\tcsi-resizer\nvoluntary_ctxt_switches:\t120\nnonvoluntary_ctxt_switches:\t7\n"
	if got := parseSwitches(text); got != 127 {
		t.Errorf("switches = %d, want 127", got)
	}
}

func TestParsePss(t *testing.T) {
	text := "55d0c0a4e000-7ffd1c9f3000 ---p 00000000 00:00 0    [rollup]\nRss:               48712 kB\nPss:               20113 kB\nPss_Dirty:         12000 kB\n"
	got, err := parsePss(text)
	if err != nil || got != 20113<<10 {
		t.Errorf("parsePss = %d, %v; want %d", got, err, 20113<<10)
	}
	for _, bad := range []string{"Rss: 1 kB\n", "Pss: 1 MB\n", "Pss: x kB\n"} {
		if _, err := parsePss(bad); err == nil {
			t.Errorf("parsePss(%q) did not fail", bad)
		}
	}
}

func TestParseBusy(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	stat := "cpu  1000 10 300 99999 555 5 20 7 0 0\ncpu0 500 5 150 50000 300 3 10 3 0 0\n"
	got, err := parseBusy(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1342 * time.Second / 100; got != want {
		t.Errorf("busy = %v, want %v (idle and iowait left out)", got, want)
	}
	if _, err := parseBusy("intr 1 2 3\n"); err == nil {
		t.Error("a file without the cpu line parsed")
	}
}

func TestForeignLoad(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	from := cpuSnapshot{At: t0, Busy: 100 * time.Second, Ours: 40 * time.Second}
	to := cpuSnapshot{At: t0.Add(10 * time.Second), Busy: 115 * time.Second, Ours: 50 * time.Second}
	if got := to.foreignSince(from); got != 5*time.Second {
		t.Errorf("foreign = %v, want 5s", got)
	}
	if got := foreignLoad(from, to, 2); got != "5.0 s (25%)" {
		t.Errorf("foreignLoad = %q", got)
	}
}

func TestTakeCPUSnapshotCountsThisProcess(t *testing.T) {
	s, err := takeCPUSnapshot()
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if s.Busy <= 0 || s.Ours < 0 || s.Ours > s.Busy {
		t.Errorf("snapshot %+v: want 0 <= ours <= busy", s)
	}
}
