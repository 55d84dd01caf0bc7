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
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// leadership is a term of one resizer run as leader: from its "Became the
// leader" log line until it ended or another run became the leader,
// whichever came first.
type leadership struct {
	run      framework.Lifetime
	identity string
	from, to time.Time // to is zero while it leads
}

func (l leadership) holds(t time.Time) bool {
	return !t.Before(l.from) && (l.to.IsZero() || !t.After(l.to))
}

// becameLeader matches the resizer's log line, in klog's text format:
// I0102 15:04:05.000000   12345 leader.go:84] "Became the leader" lease="ns/name" identity="host_1a2b"
var becameLeader = regexp.MustCompile(`^I(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6})\s+\d+ \S+\] "Became the leader".* identity="([^"]+)"`)

// leaderships reads the terms of every run from the runs' logs, in order.
func leaderships(runs []framework.Lifetime) ([]leadership, error) {
	var terms []leadership
	for _, r := range runs {
		l, ok, err := becameLeaderIn(r)
		if err != nil {
			return nil, err
		}
		if ok {
			terms = append(terms, l)
		}
	}
	slices.SortFunc(terms, func(a, b leadership) int { return a.from.Compare(b.from) })
	for i := range terms {
		terms[i].to = terms[i].run.End
		if i+1 < len(terms) && (terms[i].to.IsZero() || terms[i+1].from.Before(terms[i].to)) {
			terms[i].to = terms[i+1].from
		}
	}
	return terms, nil
}

// becameLeaderIn finds the "Became the leader" line of a run, if any.
func becameLeaderIn(r framework.Lifetime) (leadership, bool, error) {
	f, err := os.Open(r.Log)
	if err != nil {
		return leadership{}, false, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		m := becameLeader.FindStringSubmatch(s.Text())
		if m == nil {
			continue
		}
		at, err := klogTime(m[1:7], r.Start)
		if err != nil {
			return leadership{}, false, fmt.Errorf("%s: %w", r.Log, err)
		}
		return leadership{run: r, identity: m[7], from: at}, true, nil
	}
	return leadership{}, false, s.Err()
}

// klogTime turns klog's month, day, hour, minute, second and microsecond
// (local time, no year) into a time near ref.
func klogTime(parts []string, ref time.Time) (time.Time, error) {
	var n [6]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return time.Time{}, err
		}
		n[i] = v
	}
	ref = ref.Local()
	t := time.Date(ref.Year(), time.Month(n[0]), n[1], n[2], n[3], n[4], n[5]*1000, time.Local)
	if t.Sub(ref) > 180*24*time.Hour { // the run began on the 31st of December
		t = t.AddDate(-1, 0, 0)
	}
	return t, nil
}

// leaderAt is the term that held at t, if any.
func leaderAt(terms []leadership, t time.Time) (leadership, bool) {
	for _, l := range terms {
		if l.holds(t) {
			return l, true
		}
	}
	return leadership{}, false
}

// callsOutsideTerms checks that only the leader called the driver: each
// call must be sent, and its caller stop waiting, within a term of its own
// run. A killed leader's call that the driver went on with is no breach:
// its caller stopped waiting when it died.
func callsOutsideTerms(calls []span, terms []leadership) []string {
	var bad []string
	for _, c := range calls {
		ok := false
		for _, l := range terms {
			if l.run.Pid == c.Pid && l.holds(c.sent) && l.holds(c.callerEnd) {
				ok = true
				break
			}
		}
		if !ok {
			who := "nobody"
			if l, found := leaderAt(terms, c.sent); found {
				who = fmt.Sprintf("pid %d", l.run.Pid)
			}
			bad = append(bad, fmt.Sprintf("%s sent at %s (caller waited until %s) while %s led", describeCall(c.LoggedCall), clock(c.sent), clock(c.callerEnd), who))
		}
	}
	return bad
}

// firstTermAfter is the first term of another run that began after t.
func firstTermAfter(terms []leadership, t time.Time, pid int) (leadership, bool) {
	for _, l := range terms {
		if l.run.Pid != pid && l.from.After(t) {
			return l, true
		}
	}
	return leadership{}, false
}
