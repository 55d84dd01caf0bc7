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
	"testing"
	"time"
)

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
