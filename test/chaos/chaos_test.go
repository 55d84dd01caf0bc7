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
	"math/rand/v2"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// chaosTimeout is the resizer's --timeout: short, so that hangs outlast it.
const chaosTimeout = 2 * time.Second

// Resizer settings of the chaos run: a short --timeout, fast retries, and a
// client budget for 200 claims.
var chaosResizerArgs = []string{
	"--timeout=" + chaosTimeout.String(), "--retry-interval-start=200ms", "--retry-interval-max=5s",
	"--kube-api-qps=50", "--kube-api-burst=100", "--v=4",
}

// TestChaos grows claims in waves while the resizer, the CSI driver and the
// API server are killed and restarted at random moments and the driver
// fails or hangs on a share of the calls. Every claim must end at its
// requested size, no PV capacity may ever go down, and no two resizes of
// one volume may run at once.
func TestChaos(t *testing.T) {
	began := time.Now()
	n := envInt(t, "CHAOS_CLAIMS", 200)
	seed := uint64(envInt(t, "CHAOS_SEED", int(began.UnixNano()%1_000_000)))
	sched := schedule{
		window:        envDuration(t, "CHAOS_WINDOW", 3*time.Minute),
		resizerKills:  envInt(t, "CHAOS_RESIZER_KILLS", 12),
		driverKills:   3,
		apiRestarts:   1,
		waves:         4,
		driverMaxDown: 3 * time.Second,
	}
	e := newEnv(t)
	ctx := e.ctx
	admin := e.cluster.Admin

	watch, err := watchCapacities(ctx, admin)
	must(t, err)
	defer watch.close()
	const driverName = "chaos.csi.example.com"
	claims, err := createClaims(ctx, admin, "chaos", driverName, n)
	must(t, err)

	start := time.Now()
	faultsUntil := start.Add(sched.window)
	driverOpts := framework.TestDriverOptions{
		Name: driverName, FailRate: 0.15, HangRate: 0.03, HangFor: 5 * time.Second,
		Seed: seed, FaultsUntil: faultsUntil,
	}
	driver := e.startDriver(driverOpts, claims.list)
	resizer := e.superviseResizer("resizer", driver, chaosResizerArgs...)
	run := &chaosRun{e: e, rnd: rand.New(rand.NewPCG(seed, seed)), driver: driver, resizer: resizer, claims: claims, sched: sched}
	timeline, err := run.execute(ctx, start, sched.plan(run.rnd))
	must(t, err)

	lastFault := faultsUntil
	for _, h := range timeline {
		if h.what.fault() && h.end.After(lastFault) {
			lastFault = h.end
		}
	}
	doneAt, problems := claims.waitFinished(ctx, admin, 5*time.Minute)
	drained := doneAt.Sub(lastFault)

	// The checks, after the drain.
	volumes, err := driver.Volumes()
	must(t, err)
	if problems == nil {
		problems, err = claims.unfinished(ctx, admin, volumes)
		must(t, err)
	}
	for _, p := range problems {
		t.Errorf("claim not finished at its requested size: %s", p)
	}
	var behind []string
	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		behind = watch.caughtUp(ctx, admin)
		return len(behind) == 0, nil
	})
	for _, b := range behind {
		t.Errorf("the PV watch did not outlive the faults: %s", b)
	}
	seen := watch.figures()
	for _, d := range seen.decreases {
		t.Errorf("PV capacity went down: %s", d)
	}
	calls, err := driver.Calls()
	must(t, err)
	resizerRuns := resizer.Lifetimes()
	saveRuns(t, e.dir, map[string][]framework.Lifetime{"resizer": resizerRuns, "driver": driver.Lifetimes()})
	known, strangers := spans(calls, resizerRuns, driver.Lifetimes(), chaosTimeout, time.Now())
	for _, c := range strangers {
		t.Errorf("call from a process that is no known resizer run: %s", describeCall(c))
	}
	byKind := map[overlapKind]int{}
	for _, o := range overlaps(known) {
		byKind[o.kind]++
		if o.kind == bothWaiting {
			t.Errorf("overlapping ControllerExpandVolume calls: %s", o)
		}
	}
	for _, log := range panics(resizerRuns) {
		t.Errorf("a resizer panicked: see %s", log)
	}

	r := &report{title: "chaos"}
	r.add("seed %d (CHAOS_SEED), %d claims, fault window %s", seed, n, sched.window)
	r.add("timeline (from the start of the window):")
	for _, h := range timeline {
		r.add("  %s  %-24s %s", since(start, h.start), h.what, h.detail)
	}
	r.add("resizer runs: %d (%s)", len(resizerRuns), ends(resizerRuns))
	r.add("CSI driver runs: %d (%s); injected: %.0f%% failures (Unavailable, DeadlineExceeded, Internal), %.0f%% hangs of %s past --timeout=%s, until the end of the window",
		len(driver.Lifetimes()), ends(driver.Lifetimes()), driverOpts.FailRate*100, driverOpts.HangRate*100, driverOpts.HangFor, chaosTimeout)
	r.add("requests raised: %d; claims finished at their requested size: %d/%d", claims.growths(), n-len(problems), n)
	r.add("PV capacity decreases: %d (one informer on all PVs for the whole run: %d events; lists and watches started: %d, the first and after each loss; caught up at the end: %v)",
		len(seen.decreases), seen.events, seen.lists+seen.watches, len(behind) == 0)
	r.add("ControllerExpandVolume calls: %d (%s)", len(calls), codeCounts(known))
	r.add("calls per raised request: %.2f", float64(len(calls))/float64(max(1, claims.growths())))
	pairs, median, highest := callsPerTarget(known)
	r.add("calls per (volume, size) pair: %d pairs, median %d, max %d", pairs, median, highest)
	r.add("overlapping calls on one volume: %d with two callers waiting; apart: %d left running by a killed resizer, %d left running after the caller's deadline",
		byKind[bothWaiting], byKind[leftByKilled], byKind[leftAfterDeadline])
	if doneAt.IsZero() {
		r.add("drain after the last fault: not finished")
	} else {
		r.add("drain after the last fault: %s", max(drained, 0).Round(10*time.Millisecond))
	}
	r.add("test duration: %s", time.Since(began).Round(time.Second))
	r.print(t, e.dir)
}
