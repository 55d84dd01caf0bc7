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
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// outcome is what a chaos run did and saw, for the checks and the report.
type outcome struct {
	start       time.Time
	sched       schedule
	seed        uint64
	claims      *claims
	driver      *framework.TestDriver
	driverOpts  framework.TestDriverOptions
	resizerRuns []framework.Lifetime
	timeline    []happened
	lastFault   time.Time
	doneAt      time.Time // zero when the claims never all finished
	problems    []string  // unfinished claims

	watched  watchFigures
	behind   []string
	calls    int
	spans    []span
	overlaps map[overlapKind]int
}

// check reads the final state, the PV watch and the call log, and fails t
// on every broken promise.
func (o *outcome) check(t *testing.T, e *env, watch *capacityWatch) {
	ctx, admin := e.ctx, e.cluster.Admin
	volumes, err := o.driver.Volumes()
	must(t, err)
	if o.problems == nil {
		o.problems, err = o.claims.unfinished(ctx, admin, volumes)
		must(t, err)
	}
	for _, p := range o.problems {
		t.Errorf("claim not finished at its requested size: %s", p)
	}

	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		o.behind = watch.caughtUp(ctx, admin)
		return len(o.behind) == 0, nil
	})
	for _, b := range o.behind {
		t.Errorf("the PV watch did not outlive the faults: %s", b)
	}
	o.watched = watch.figures()
	for _, d := range o.watched.decreases {
		t.Errorf("PV capacity went down: %s", d)
	}

	calls, err := o.driver.Calls()
	must(t, err)
	o.calls = len(calls)
	saveRuns(t, e.dir, map[string][]framework.Lifetime{"resizer": o.resizerRuns, "driver": o.driver.Lifetimes()})
	var strangers []csidriver.LoggedCall
	o.spans, strangers = spans(calls, o.resizerRuns, o.driver.Lifetimes(), chaosTimeout, time.Now())
	for _, c := range strangers {
		t.Errorf("call from a process that is no known resizer run: %s", describeCall(c))
	}
	o.overlaps = map[overlapKind]int{}
	for _, ov := range overlaps(o.spans) {
		o.overlaps[ov.kind]++
		if ov.kind == bothWaiting {
			t.Errorf("overlapping ControllerExpandVolume calls: %s", ov)
		}
	}
	for _, log := range panics(o.resizerRuns) {
		t.Errorf("a resizer panicked: see %s", log)
	}
}

// report lays out the figures of the run.
func (o *outcome) report(began time.Time) *report {
	r := &report{title: "chaos"}
	n := len(o.claims.list)
	r.add("seed %d (CHAOS_SEED), %d claims, fault window %s", o.seed, n, o.sched.window)
	r.add("timeline (from the start of the window):")
	for _, h := range o.timeline {
		r.add("  %s  %-24s %s", since(o.start, h.start), h.what, h.detail)
	}
	r.add("resizer runs: %d (%s)", len(o.resizerRuns), ends(o.resizerRuns))
	driverRuns := o.driver.Lifetimes()
	r.add("CSI driver runs: %d (%s); injected: %.0f%% failures (Unavailable, DeadlineExceeded, Internal), %.0f%% hangs of %s past --timeout=%s, until the end of the window",
		len(driverRuns), ends(driverRuns), o.driverOpts.FailRate*100, o.driverOpts.HangRate*100, o.driverOpts.HangFor, chaosTimeout)
	r.add("requests raised: %d; claims finished at their requested size: %d/%d", o.claims.growths(), n-len(o.problems), n)
	r.add("PV capacity decreases: %d (one informer on all PVs for the whole run: %d events; lists and watches started: %d, the first and after each loss; caught up at the end: %v)",
		len(o.watched.decreases), o.watched.events, o.watched.lists+o.watched.watches, len(o.behind) == 0)
	r.add("ControllerExpandVolume calls: %d (%s)", o.calls, codeCounts(o.spans))
	r.add("calls per raised request: %.2f", float64(o.calls)/float64(max(1, o.claims.growths())))
	pairs, median, highest := callsPerTarget(o.spans)
	r.add("calls per (volume, size) pair: %d pairs, median %d, max %d", pairs, median, highest)
	r.add("overlapping calls on one volume: %d with two callers waiting; apart: %d left running by a killed resizer, %d left running after the caller's deadline",
		o.overlaps[bothWaiting], o.overlaps[leftByKilled], o.overlaps[leftAfterDeadline])
	if o.doneAt.IsZero() {
		r.add("drain after the last fault: not finished")
	} else {
		r.add("drain after the last fault: %s", max(o.doneAt.Sub(o.lastFault), 0).Round(10*time.Millisecond))
	}
	r.add("test duration: %s", time.Since(began).Round(time.Second))
	return r
}
