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

func TestParseStatus(t *testing.T) {
	u, err := parseStatus(statusText)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procUsage{RSS: 40 << 20, Peak: 50 << 20, Anon: 10 << 20, File: 30 << 20}); u != want {
		t.Errorf("got %+v, want %+v", u, want)
	}
	if _, err := parseStatus("Name:\tzombie\nState:\tZ (zombie)\n"); err == nil {
		t.Error("a status without VmRSS parsed")
	}
	if _, err := parseStatus("VmRSS:\t12 MB\nVmHWM:\t12 kB\nRssAnon:\t1 kB\nRssFile:\t1 kB\n"); err == nil {
		t.Error("a unit other than kB parsed")
	}
}

func TestParseStatCPU(t *testing.T) {
	// The command name may hold spaces and parentheses: fields count from
	// the last ')'. utime (14) = 150 ticks, stime (15) = 25 ticks.
	stat := "4242 (csi (re) sizer) S 1 4242 4242 0 -1 4194560 1000 0 0 0 150 25 0 0 20 0 12 0 100 1000000 10000 18446744073709551615"
	got, err := parseStatCPU(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1750 * time.Millisecond; got != want {
		t.Errorf("CPU = %v, want %v", got, want)
	}
	for _, bad := range []string{"4242 csi-resizer S 1", "4242 (x) S 1 2 3"} {
		if _, err := parseStatCPU(bad); err == nil {
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
