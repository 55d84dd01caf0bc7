//go:build chaos

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

package chaos

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestLeaderships checks the reading of terms and the leader check itself,
// without a cluster.
func TestLeaderships(t *testing.T) {
	dir := t.TempDir()
	log := func(name, text string) string {
		path := filepath.Join(dir, name)
		must(t, os.WriteFile(path, []byte(text), 0o600))
		return path
	}
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.Local)
	at := func(s float64) time.Time { return day.Add(2*time.Hour + time.Duration(s*float64(time.Second))) }
	runs := []framework.Lifetime{
		{Pid: 10, Start: at(0), End: at(20), Ended: framework.EndedKilled, Log: log("a-1.log",
			"I1123 02:00:01.000000      10 leader.go:84] \"Became the leader\" lease=\"default/l\" identity=\"host_a\"\n")},
		{Pid: 11, Start: at(0), End: at(60), Ended: framework.EndedTerminated, Log: log("b-1.log",
			"I1123 02:00:00.500000      11 leaderelection.go:257] \"Attempting to acquire leader lease...\"\n"+
				"I1123 02:00:35.000000      11 leader.go:84] \"Became the leader\" lease=\"default/l\" identity=\"host_b\"\n")},
		{Pid: 12, Start: at(0), Log: log("c-1.log",
			"I1123 02:00:59.000000      12 leader.go:84] \"Became the leader\" lease=\"default/l\" identity=\"host_c\"\n")},
	}
	terms, err := leaderships(runs)
	must(t, err)
	if len(terms) != 3 || terms[0].identity != "host_a" || !terms[0].from.Equal(at(1)) || !terms[0].to.Equal(at(20)) ||
		!terms[1].to.Equal(at(59)) || !terms[2].to.IsZero() {
		t.Fatalf("terms = %+v", terms)
	}

	call := func(pid int, sent, start, end float64) span {
		return span{LoggedCall: csidriver.LoggedCall{Pid: pid, Start: at(start), End: at(end)}, sent: at(sent), end: at(end), callerEnd: at(end)}
	}
	tests := []struct {
		name string
		call span
		bad  bool
	}{
		{name: "the leader", call: call(10, 2, 2, 3)},
		{name: "a killed leader's call, read after its death", call: span{
			LoggedCall: csidriver.LoggedCall{Pid: 10, Start: at(20.1), End: at(20.2)}, sent: at(19.99), end: at(20.2), callerEnd: at(20)}},
		{name: "a follower", call: call(11, 2, 2, 3), bad: true},
		{name: "the old leader after the new one began", call: call(11, 58.9, 58.9, 59.5), bad: true},
		{name: "nobody led", call: call(11, 30, 30, 31), bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if bad := callsOutsideTerms([]span{tc.call}, terms); (len(bad) > 0) != tc.bad {
				t.Errorf("callsOutsideTerms = %v, want a breach: %v", bad, tc.bad)
			}
		})
	}
}
