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
	"slices"
	"testing"
	"time"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestOverlapKinds checks the call analysis itself, without a cluster.
func TestOverlapKinds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	resizers := []framework.Lifetime{
		{Pid: 10, Start: at(0), End: at(5), Ended: framework.EndedKilled},
		{Pid: 11, Start: at(5), End: at(100)},
		{Pid: 12, Start: at(0), End: at(100)},
	}
	drivers := []framework.Lifetime{{Pid: 1, Start: at(0), End: at(50), Ended: framework.EndedKilled}, {Pid: 2, Start: at(50)}}
	call := func(pid int, vol string, start, end, gone float64) csidriver.LoggedCall {
		c := csidriver.LoggedCall{Driver: 1, Pid: pid, VolumeID: vol, Start: at(start), Deadline: at(start + 2)}
		if end > 0 {
			c.End = at(end)
		}
		if gone > 0 {
			c.CallerGone = at(gone)
		}
		if start >= 50 {
			c.Driver = 2
		}
		return c
	}
	tests := []struct {
		name          string
		calls         []csidriver.LoggedCall
		want          []overlapKind
		wantStrangers int
	}{
		{name: "one after the other", calls: []csidriver.LoggedCall{call(11, "v", 6, 7, 0), call(11, "v", 7.5, 8, 0)}},
		{name: "other volumes at once", calls: []csidriver.LoggedCall{call(11, "a", 6, 8, 0), call(11, "b", 6, 8, 0)}},
		{name: "one process, two calls at once", calls: []csidriver.LoggedCall{call(11, "v", 6, 8, 0), call(11, "v", 7, 9, 0)}, want: []overlapKind{bothWaiting}},
		{name: "two processes at once", calls: []csidriver.LoggedCall{call(11, "v", 6, 8, 0), call(12, "v", 7, 9, 0)}, want: []overlapKind{bothWaiting}},
		{name: "killed caller's call goes on", calls: []csidriver.LoggedCall{call(10, "v", 4, 9, 5), call(11, "v", 6, 7, 0)}, want: []overlapKind{leftByKilled}},
		{name: "killed caller, driver did not notice", calls: []csidriver.LoggedCall{call(10, "v", 4, 9, 0), call(11, "v", 6, 7, 0)}, want: []overlapKind{leftByKilled}},
		{name: "killed caller's call read by the driver after its death", calls: []csidriver.LoggedCall{
			{Driver: 1, Pid: 10, VolumeID: "v", Start: at(6.5), End: at(6.6), CallerGone: at(6.6), Deadline: at(6.9)},
			call(11, "v", 6, 7, 0),
		}, want: []overlapKind{leftByKilled}},
		{name: "timed out and called again", calls: []csidriver.LoggedCall{call(11, "v", 6, 12, 8), call(11, "v", 9, 10, 0)}, want: []overlapKind{leftAfterDeadline}},
		{name: "hang past the deadline, cut by the driver's death before it logged the caller's leaving",
			calls: []csidriver.LoggedCall{call(11, "v", 46, 0, 0), call(11, "v", 48.5, 49, 0)}, want: []overlapKind{leftAfterDeadline}},
		{name: "call cut by the driver's death", calls: []csidriver.LoggedCall{call(11, "v", 49, 0, 0), call(11, "v", 51, 52, 0)}},
		{name: "unknown caller", calls: []csidriver.LoggedCall{call(99, "v", 6, 7, 0)}, wantStrangers: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			known, strangers := spans(tc.calls, resizers, drivers, 2*time.Second, at(200))
			var got []overlapKind
			for _, o := range overlaps(known) {
				got = append(got, o.kind)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("overlaps = %v, want %v", got, tc.want)
			}
			if len(strangers) != tc.wantStrangers {
				t.Errorf("calls from unknown processes = %d, want %d", len(strangers), tc.wantStrangers)
			}
		})
	}
}
