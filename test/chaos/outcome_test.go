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
	// sizedAt is when every claim was first seen at its requested size;
	// doneAt when, besides, at its last requested class. Zero when that
	// never happened.
	sizedAt time.Time
	doneAt  time.Time
	// waitProblems are the last problems seen when they never all finished.
	waitProblems []string
	problems     []string // claims not finished at their requested size
	// lateCreated is when the late class was created; lateAsked and
	// latePending the claims that had asked for it by then, and those
	// recorded Pending.
	lateCreated            time.Time
	lateAsked, latePending int

	watched  watchFigures
	behind   []string
	calls    int
	spans    []span // ControllerExpandVolume calls
	overlaps map[overlapKind]int

	classProblems  []string // claims not at their last requested class
	classesBehind  []string
	classEvents    int
	modifyCalls    int
	modifySpans    []span
	modifyOverlaps map[overlapKey]int
	afterSettled   []string
	paramsBad      []string
	paramsLate     []string
	took           []time.Duration // class changes, from the ask to the claim at rest
	superseded     int
	neverAtRest    int
	pending        map[claim][]string
	lastAtRest     time.Time
	// lateTook is, for each claim that asked for the late class before it
	// existed, the time from its creation to the claim at rest at it.
	lateTook       []time.Duration
	lateSuperseded int
}

// overlapKey counts the overlaps that involve a ControllerModifyVolume
// call by cause and methods.
type overlapKey struct {
	kind overlapKind
	mix  overlapMix
}

// check reads the final state, the PV and claim watches and the call log,
// and fails t on every broken promise.
func (o *outcome) check(t *testing.T, e *env, watch *capacityWatch, classes *classWatch) {
	ctx, admin := e.ctx, e.cluster.Admin
	if o.doneAt.IsZero() {
		for _, p := range o.waitProblems {
			t.Errorf("claim not finished after the faults: %s", p)
		}
	}
	volumes, err := o.driver.Volumes()
	must(t, err)
	l, err := o.claims.listAll(ctx, admin)
	must(t, err)
	o.problems, o.classProblems = o.claims.sizeProblems(l, volumes), o.claims.classProblems(l)
	for _, p := range o.problems {
		t.Errorf("claim not finished at its requested size: %s", p)
	}
	for _, p := range o.classProblems {
		t.Errorf("claim not at its last requested class: %s", p)
	}

	ns := o.claims.list[0].ns
	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		o.behind = watch.caughtUp(ctx, admin)
		o.classesBehind = classes.caughtUp(ctx, admin, ns)
		return len(o.behind) == 0 && len(o.classesBehind) == 0, nil
	})
	for _, b := range o.behind {
		t.Errorf("the PV watch did not outlive the faults: %s", b)
	}
	for _, b := range o.classesBehind {
		t.Errorf("the claim watch did not outlive the faults: %s", b)
	}
	o.watched = watch.figures()
	for _, d := range o.watched.decreases {
		t.Errorf("PV capacity went down: %s", d)
	}

	calls, err := o.driver.Calls()
	must(t, err)
	for _, c := range calls {
		if c.Method == csidriver.MethodModify {
			o.modifyCalls++
		} else {
			o.calls++
		}
	}
	saveRuns(t, e.dir, map[string][]framework.Lifetime{"resizer": o.resizerRuns, "driver": o.driver.Lifetimes()})
	all, strangers := spans(calls, o.resizerRuns, o.driver.Lifetimes(), chaosTimeout, time.Now())
	for _, c := range strangers {
		t.Errorf("call from a process that is no known resizer run: %s", describeCall(c))
	}
	for _, s := range all {
		if s.modify() {
			o.modifySpans = append(o.modifySpans, s)
		} else {
			o.spans = append(o.spans, s)
		}
	}
	// One volume, one call at a time: expand and modify calls together.
	o.overlaps, o.modifyOverlaps = map[overlapKind]int{}, map[overlapKey]int{}
	for _, ov := range overlaps(all) {
		mix := ov.mix()
		if mix == expandExpand {
			o.overlaps[ov.kind]++
		} else {
			o.modifyOverlaps[overlapKey{ov.kind, mix}]++
		}
		switch {
		case ov.kind != bothWaiting:
		case mix == expandExpand:
			t.Errorf("overlapping ControllerExpandVolume calls: %s", ov)
		default:
			t.Errorf("overlapping calls on one volume (%s): %s", mix, ov)
		}
	}
	for _, log := range panics(o.resizerRuns) {
		t.Errorf("a resizer panicked: see %s", log)
	}
	o.checkClasses(t, e, classes)
}

// checkClasses holds the run to the promises of volume modification: no
// call once the claim recorded its last class, and the backend at that
// class.
func (o *outcome) checkClasses(t *testing.T, e *env, classes *classWatch) {
	states, events := classes.history()
	o.classEvents = events
	wanted, asks := o.claims.classes(), o.claims.classAsks()
	settled := settledTimes(o.claims.list, wanted, asks, states)
	o.afterSettled = callsAfterSettled(o.modifySpans, settled)
	for _, c := range o.afterSettled {
		t.Errorf("ControllerModifyVolume call after the claim recorded its last class: %s", c)
	}
	applied, err := csidriver.ReadVolumeParameters(o.driver.StateFile)
	must(t, err)
	params := classParams()
	want := map[string]map[string]string{}
	for _, cl := range o.claims.list {
		want[cl.handle()] = params[wanted[cl]]
	}
	o.paramsBad, o.paramsLate = backendParams(want, applied, o.modifySpans, settled)
	for _, b := range o.paramsBad {
		t.Errorf("backend volume not at its claim's last class: %s", b)
	}
	for _, l := range o.paramsLate {
		t.Logf("backend volume left at another class by a call nobody waited for: %s", l)
	}
	o.took, o.superseded, o.neverAtRest = finishTimes(asks, states)
	o.pending = seenPending(states)
	if !o.lateCreated.IsZero() {
		var stuck []string
		o.lateTook, o.lateSuperseded, stuck = lateAtRest(asks, states, lateClass.name, o.lateCreated)
		for _, s := range stuck {
			t.Errorf("a claim Pending on a class did not follow its creation: %s", s)
		}
	}
	saveClassHistory(t, e.dir, asks, states)
	for _, cl := range o.claims.list {
		if _, asked := wanted[cl]; asked && settled[cl.handle()].After(o.lastAtRest) {
			o.lastAtRest = settled[cl.handle()]
		}
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
	o.reportClasses(r)
	if o.sizedAt.IsZero() {
		r.add("drain after the last fault: not finished")
	} else {
		r.add("drain after the last fault: %s", max(o.sizedAt.Sub(o.lastFault), 0).Round(10*time.Millisecond))
	}
	if o.doneAt.IsZero() {
		r.add("drain after the last fault, sizes and classes: not finished")
	} else {
		r.add("drain after the last fault, sizes and classes: %s (the last claim seen at rest at its class by the claim watch: %s)",
			max(o.doneAt.Sub(o.lastFault), 0).Round(10*time.Millisecond), max(o.lastAtRest.Sub(o.lastFault), 0).Round(10*time.Millisecond))
	}
	r.add("test duration: %s", time.Since(began).Round(time.Second))
	return r
}

// reportClasses adds the figures of volume modification.
func (o *outcome) reportClasses(r *report) {
	n := len(o.claims.list)
	asks := o.claims.classAsks()
	changed, both := map[claim]bool{}, 0
	perClass := map[string]int{}
	for _, a := range asks {
		changed[a.claim] = true
		perClass[a.class]++
		if a.grown {
			both++
		}
	}
	r.add("class changes asked: %d on %d of %d claims (%d in the same patch as a growth), by class: %s",
		len(asks), len(changed), n, both, classCounts(perClass))
	if !o.lateCreated.IsZero() {
		r.add("late class %s created at %s: %d claims had asked for it, %d of them recorded Pending by then; claims seen Pending during the run: %d",
			lateClass.name, since(o.start, o.lateCreated), o.lateAsked, o.latePending, len(o.pending))
		r.add("claims that asked for %s before it existed, at rest at it after its creation: %d (median %s, max %s after the creation); %d asked for another class first",
			lateClass.name, len(o.lateTook), percentile(o.lateTook, 0.5).Round(10*time.Millisecond), percentile(o.lateTook, 1).Round(10*time.Millisecond), o.lateSuperseded)
	}
	r.add("claims at their last requested class (claim status and PV): %d/%d; backend parameters at the class: %d/%d (%d left at another class by a call nobody waited for)",
		n-len(o.classProblems), n, n-len(o.paramsBad)-len(o.paramsLate), n, len(o.paramsLate))
	r.add("ControllerModifyVolume calls: %d (%s)", o.modifyCalls, codeCounts(o.modifySpans))
	failed, gone := injected(o.modifySpans)
	r.add("modify failures injected: %d answered at once with an error, %d hangs or calls whose caller left first", failed, gone)
	pairs, median, highest := callsPerClass(o.modifySpans)
	r.add("modify calls per class change: %.2f; per (volume, class) pair: %d pairs, median %d, max %d",
		float64(o.modifyCalls)/float64(max(1, len(asks))), pairs, median, highest)
	r.add("modify calls after the claim recorded its last class: %d; claim watch: %d events, caught up at the end: %v",
		len(o.afterSettled), o.classEvents, len(o.classesBehind) == 0)
	ov := o.modifyOverlaps
	r.add("overlapping calls on one volume with a modify call: %d with two callers waiting (modify+modify %d, expand+modify %d); apart: %d left running by a killed resizer, %d left running after the caller's deadline (expand+modify: %d)",
		ov[overlapKey{bothWaiting, modifyModify}]+ov[overlapKey{bothWaiting, expandModify}],
		ov[overlapKey{bothWaiting, modifyModify}], ov[overlapKey{bothWaiting, expandModify}],
		ov[overlapKey{leftByKilled, modifyModify}]+ov[overlapKey{leftByKilled, expandModify}],
		ov[overlapKey{leftAfterDeadline, modifyModify}]+ov[overlapKey{leftAfterDeadline, expandModify}],
		ov[overlapKey{leftByKilled, expandModify}]+ov[overlapKey{leftAfterDeadline, expandModify}])
	r.add("class change to the claim at rest at it: median %s, p90 %s, max %s over %d changes; %d asked again before, %d never",
		percentile(o.took, 0.5).Round(10*time.Millisecond), percentile(o.took, 0.9).Round(10*time.Millisecond),
		percentile(o.took, 1).Round(10*time.Millisecond), len(o.took), o.superseded, o.neverAtRest)
}
