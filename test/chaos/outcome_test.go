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
	"maps"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// outcome is what a chaos run did and saw, for the checks and the report.
type outcome struct {
	start      time.Time
	sched      schedule
	seed       uint64
	claims     *claims
	driver     *framework.Driver
	driverOpts framework.DriverOptions
	share      *nodeShare
	// resizerRuns are the runs of both resizers: of driver and of the node
	// share's driver.
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

	classProblems []string // claims not at their last requested class
	classesBehind []string
	classEvents   int
	classLists    int
	classSources  classSources
	// claimWrites are the audited writes of claims; reachedUnseen the
	// capacities of claims only the audit log saw.
	claimWrites, reachedUnseen int
	modifyCalls                int
	modifySpans                []span
	modifyOverlaps             map[overlapKey]int
	afterSettled               []string
	paramsBad                  []string
	paramsLate                 []string
	took                       []time.Duration // class changes, from the ask to the claim at rest
	superseded                 int
	neverAtRest                int
	pending                    map[claim][]string
	lastAtRest                 time.Time
	// lateTook is, for each claim that asked for the late class before it
	// existed, the time from its creation to the claim at rest at it.
	lateTook       []time.Duration
	lateSuperseded int

	sizes    sizeFigures
	node     nodeOutcome
	recovery recoveryOutcome
}

// overlapKey counts the overlaps that involve a ControllerModifyVolume
// call by cause and methods.
type overlapKey struct {
	kind overlapKind
	mix  overlapMix
}

// drivers are the run's two drivers.
func (o *outcome) drivers() []*framework.Driver {
	return []*framework.Driver{o.driver, o.share.driver}
}

// check reads the final state, the PV and claim watches and the call logs,
// and fails t on every broken promise.
func (o *outcome) check(t *testing.T, e *env, watch *capacityWatch, classes *classWatch, sizes *sizeWatch) {
	ctx, admin := e.ctx, e.cluster.Admin
	if o.doneAt.IsZero() {
		for _, p := range o.waitProblems {
			t.Errorf("claim not finished after the faults: %s", p)
		}
	}
	volumes := map[string]int64{}
	var calls []csidriver.LoggedCall
	var driverRuns []framework.Lifetime
	for _, d := range o.drivers() {
		v, err := d.Volumes()
		must(t, err)
		maps.Copy(volumes, v)
		c, err := d.ControllerCalls()
		must(t, err)
		calls = append(calls, c...)
		driverRuns = append(driverRuns, d.Lifetimes()...)
	}
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
	o.sizes = sizes.figures()
	for _, d := range o.sizes.decreases {
		t.Errorf("claim capacity went down: %s", d)
	}
	// The watches miss what changed while they were away; the audit log
	// records every write of a claim (see claimWrites).
	audited, err := e.cluster.AuditEvents(time.Time{}, time.Now(), isClaimWrite(ns))
	must(t, err)
	writes, err := claimWrites(audited)
	must(t, err)
	o.claimWrites = len(audited)
	o.reachedUnseen = mergeReached(o.sizes.reached, writes)
	if len(o.sizes.decreases) == 0 {
		o.sizes.decreases = writtenDecreases(writes)
		for _, d := range o.sizes.decreases {
			t.Errorf("claim capacity went down, in the audit log: %s", d)
		}
	}

	for _, c := range calls {
		if c.Method == csidriver.MethodModify {
			o.modifyCalls++
		} else {
			o.calls++
		}
	}
	saveRuns(t, e.dir, map[string][]framework.Lifetime{"resizer": o.resizerRuns, "driver": driverRuns, "kubelet": o.share.kubelets})
	// Pids are not reused within a run: the runs of both drivers, and of
	// both resizers, go together.
	all, strangers := spans(calls, o.resizerRuns, driverRuns, chaosTimeout, time.Now())
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
	o.checkClasses(t, e, classes, auditedStates(writes))
	o.checkNode(t, e, l, o.sizes)
	o.checkRecovery(t, l, slices.DeleteFunc(slices.Clone(calls), func(c csidriver.LoggedCall) bool { return c.Method != csidriver.MethodExpand }))
}

// checkClasses holds the run to the promises of volume modification: no
// call once the claim recorded its last class, and the backend at that
// class.
func (o *outcome) checkClasses(t *testing.T, e *env, classes *classWatch, written map[claim][]classState) {
	seen, events := classes.history()
	o.classEvents, o.classLists = events, classes.listed()
	var states map[claim][]classState
	states, o.classSources = mergeHistories(seen, written)
	wanted, asks := o.claims.classes(), o.claims.classAsks()
	settled := settledTimes(o.claims.list, wanted, asks, states)
	o.afterSettled = callsAfterSettled(o.modifySpans, settled)
	for _, c := range o.afterSettled {
		t.Errorf("ControllerModifyVolume call after the claim recorded its last class: %s", c)
	}
	applied := map[string]map[string]string{}
	for _, d := range o.drivers() {
		a, err := csidriver.ReadVolumeParameters(d.StateFile)
		must(t, err)
		maps.Copy(applied, a)
	}
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
		for _, class := range lateClasses() {
			took, superseded, stuck := lateAtRest(asks, states, class, o.lateCreated)
			o.lateTook, o.lateSuperseded = append(o.lateTook, took...), o.lateSuperseded+superseded
			for _, s := range stuck {
				t.Errorf("a claim Pending on a class did not follow its creation: %s", s)
			}
		}
		slices.Sort(o.lateTook)
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
	r.add("resizer runs: %d of both resizers (%s)", len(o.resizerRuns), ends(o.resizerRuns))
	driverRuns := o.driver.Lifetimes()
	r.add("CSI driver runs: %d (%s); injected, in both drivers: %.0f%% failures (Unavailable, DeadlineExceeded, Internal), %.0f%% hangs of %s past --timeout=%s, until the end of the window",
		len(driverRuns), ends(driverRuns), o.driverOpts.FailRate*100, o.driverOpts.HangRate*100, o.driverOpts.HangFor, chaosTimeout)
	r.add("requests raised: %d, lowered: %d (the node share's recovery); claims finished at their requested size: %d/%d", o.claims.growths(), o.claims.lowers(), n-len(o.problems), n)
	r.add("PV capacity decreases: %d (one informer on all PVs for the whole run: %d events; lists and watches started: %d, the first and after each loss; caught up at the end: %v)",
		len(o.watched.decreases), o.watched.events, o.watched.lists+o.watched.watches, len(o.behind) == 0)
	r.add("ControllerExpandVolume calls: %d (%s)", o.calls, codeCounts(o.spans))
	r.add("calls per raised request: %.2f", float64(o.calls)/float64(max(1, o.claims.growths())))
	pairs, median, highest := callsPerTarget(o.spans)
	r.add("calls per (volume, size) pair: %d pairs, median %d, max %d", pairs, median, highest)
	r.add("overlapping calls on one volume: %d with two callers waiting; apart: %d left running by a killed resizer, %d left running after the caller's deadline",
		o.overlaps[bothWaiting], o.overlaps[leftByKilled], o.overlaps[leftAfterDeadline])
	o.reportClasses(r)
	o.reportNode(r, o.sizes)
	if o.sizedAt.IsZero() {
		r.add("drain after the last fault: not finished")
	} else {
		r.add("drain after the last fault: %s", max(o.sizedAt.Sub(o.lastFault), 0).Round(10*time.Millisecond))
	}
	if o.doneAt.IsZero() {
		r.add("drain after the last fault, sizes and classes: not finished")
	} else {
		r.add("drain after the last fault, sizes and classes: %s (the last claim recorded at rest at its class, by the claim watch or the audit log: %s)",
			max(o.doneAt.Sub(o.lastFault), 0).Round(10*time.Millisecond), max(o.lastAtRest.Sub(o.lastFault), 0).Round(10*time.Millisecond))
	}
	r.add("test duration: %s", time.Since(began).Round(time.Second))
	return r
}
