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
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// report collects the figures of a run; they are printed, never asserted
// on time (the machines vary too much).
type report struct {
	title string
	lines []string
}

func (r *report) add(format string, args ...any) {
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

// print writes the report to stdout and to report.txt in dir.
func (r *report) print(t *testing.T, dir string) {
	text := "=== " + r.title + "\n" + strings.Join(r.lines, "\n") + "\n"
	fmt.Print(text)
	if err := os.WriteFile(filepath.Join(dir, r.title+".txt"), []byte(text), 0o644); err != nil {
		t.Logf("write report: %v", err)
	}
}

// saveRuns writes the harness's record of which process ran when to
// runs.json in dir, to read with the call log after a failure.
func saveRuns(t *testing.T, dir string, runs map[string][]framework.Lifetime) {
	data, err := json.MarshalIndent(runs, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "runs.json"), data, 0o644)
	}
	if err != nil {
		t.Logf("write runs: %v", err)
	}
}

// saveClassHistory writes the class changes asked and the claim watch's
// record of class states to classes.json in dir, to read with the call log
// after a failure.
func saveClassHistory(t *testing.T, dir string, asks []classAsk, states map[claim][]classState) {
	type state struct {
		At      time.Time `json:"at"`
		Settled bool      `json:"settled"`
		Class   string    `json:"class"`
		Status  string    `json:"status,omitempty"`
	}
	type history struct {
		Asks   []map[string]any   `json:"asks"`
		States map[string][]state `json:"states"`
	}
	h := history{States: map[string][]state{}}
	for _, a := range asks {
		h.Asks = append(h.Asks, map[string]any{"claim": a.claim.name, "class": a.class, "grown": a.grown, "at": a.at})
	}
	for cl, ss := range states {
		for _, s := range ss {
			h.States[cl.name] = append(h.States[cl.name], state{At: s.at, Settled: s.settled, Class: s.class, Status: string(s.status)})
		}
	}
	data, err := json.MarshalIndent(h, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "classes.json"), data, 0o644)
	}
	if err != nil {
		t.Logf("write class history: %v", err)
	}
}

// codeCounts counts the calls by answer; "cut" are calls that never got
// one (the driver died), "hung" those whose caller gave up first.
func codeCounts(calls []span) string {
	counts := map[string]int{}
	for _, c := range calls {
		switch {
		case !c.Ended():
			counts["cut by the driver's death"]++
		case !c.CallerGone.IsZero():
			counts["caller gone first ("+c.Code+")"]++
		default:
			counts[c.Code]++
		}
	}
	var parts []string
	for code, n := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", code, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// callsPerTarget is the distribution of calls per (volume, size) pair.
func callsPerTarget(calls []span) (pairs int, median, highest int) {
	type target struct {
		volume string
		bytes  int64
	}
	n := map[target]int{}
	for _, c := range calls {
		n[target{c.VolumeID, c.RequiredBytes}]++
	}
	var counts []int
	for _, v := range n {
		counts = append(counts, v)
	}
	if len(counts) == 0 {
		return 0, 0, 0
	}
	sort.Ints(counts)
	return len(counts), counts[len(counts)/2], counts[len(counts)-1]
}

// callsPerClass is the distribution of modify calls per (volume, class)
// pair, the class known by the parameters sent.
func callsPerClass(calls []span) (pairs int, median, highest int) {
	type target struct{ volume, params string }
	n := map[target]int{}
	for _, c := range calls {
		n[target{c.VolumeID, fmt.Sprint(c.Parameters)}]++
	}
	var counts []int
	for _, v := range n {
		counts = append(counts, v)
	}
	if len(counts) == 0 {
		return 0, 0, 0
	}
	sort.Ints(counts)
	return len(counts), counts[len(counts)/2], counts[len(counts)-1]
}

// injected counts the calls the driver answered at once with one of its
// fault codes, and those whose caller left before the answer (hangs past
// --timeout, and callers killed meanwhile).
func injected(calls []span) (failed, gone int) {
	for _, c := range calls {
		switch {
		case !c.Ended():
		case !c.CallerGone.IsZero():
			gone++
		case slices.ContainsFunc(csidriver.DefaultFaultCodes, func(code codes.Code) bool { return code.String() == c.Code }):
			failed++
		}
	}
	return failed, gone
}

// countsOf lays out counts by name (of a class, a code, a run).
func countsOf(n map[string]int) string {
	if len(n) == 0 {
		return "none"
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%s %d", name, n[name]))
	}
	return strings.Join(parts, ", ")
}

// ends counts how the runs of a process ended.
func ends(runs []framework.Lifetime) string {
	counts := map[string]int{}
	for _, r := range runs {
		how := r.Ended
		if how == "" {
			how = "running"
		}
		counts[how]++
	}
	var parts []string
	for how, n := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", how, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// panics lists the logs of runs that show a Go panic.
func panics(runs []framework.Lifetime) []string {
	var found []string
	for _, r := range runs {
		data, err := os.ReadFile(r.Log)
		if err == nil && strings.Contains(string(data), "panic:") {
			found = append(found, r.Log)
		}
	}
	return found
}

// describeCall is a call in a failure message.
func describeCall(c csidriver.LoggedCall) string {
	if c.Method == csidriver.MethodModify {
		return fmt.Sprintf("pid %d modify %s %v %s..%s code %q", c.Pid, c.VolumeID, c.Parameters, clock(c.Start), clock(c.End), c.Code)
	}
	return fmt.Sprintf("pid %d %s %d bytes %s..%s code %q", c.Pid, c.VolumeID, c.RequiredBytes, clock(c.Start), clock(c.End), c.Code)
}
