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
	"math/rand/v2"
	"testing"
	"time"

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

// TestChaos grows claims in waves, and changes the VolumeAttributesClass
// of a third of them, while the resizer, the CSI driver and the API server
// are killed and restarted at random moments and the driver fails or hangs
// on a share of the calls. Every claim must end at its requested size and
// its last requested class (claim, PV and backend), no PV capacity may ever
// go down, no two calls on one volume may run at once (expand and modify
// alike), and no modify call may follow the record of the last class.
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
	// The late class is created between the second wave, which asks for
	// it, and the third.
	sched.lateClassAt = sched.window * 3 / time.Duration(2*sched.waves)
	e := newEnv(t)
	ctx := e.ctx
	admin := e.cluster.Admin

	watch, err := watchCapacities(ctx, admin)
	must(t, err)
	defer watch.close()
	const driverName = "chaos.csi.example.com"
	const ns = "chaos"
	must(t, framework.CreateNamespace(ctx, admin, ns))
	classWatch, err := watchClasses(ctx, admin, ns)
	must(t, err)
	defer classWatch.close()
	claims, err := createClaims(ctx, admin, ns, driverName, n)
	must(t, err)
	for _, ac := range baseClasses {
		must(t, createAttrClass(ctx, admin, driverName, ac))
	}
	classRnd := rand.New(rand.NewPCG(seed, seed^0x5eed))
	var classy []claim
	for _, i := range classRnd.Perm(n)[:n/3] {
		classy = append(classy, claims.list[i])
	}

	start := time.Now()
	faultsUntil := start.Add(sched.window)
	driverOpts := framework.TestDriverOptions{
		Name: driverName, FailRate: 0.15, HangRate: 0.03, HangFor: 5 * time.Second,
		Seed: seed, FaultsUntil: faultsUntil, Modify: true,
	}
	driver := e.startDriver(driverOpts, claims.list)
	resizer := e.superviseResizer("resizer", driver, chaosResizerArgs...)
	run := &chaosRun{e: e, rnd: rand.New(rand.NewPCG(seed, seed)), driver: driver, resizer: resizer, claims: claims, sched: sched,
		classRnd: classRnd, classy: classy}
	timeline, err := run.execute(ctx, start, sched.plan(run.rnd))
	must(t, err)

	o := &outcome{start: start, sched: sched, seed: seed, claims: claims, driver: driver, driverOpts: driverOpts,
		timeline: timeline, lastFault: faultsUntil,
		lateCreated: run.lateCreated, lateAsked: run.lateAsked, latePending: run.latePending}
	for _, h := range timeline {
		if h.what.fault() && h.end.After(o.lastFault) {
			o.lastFault = h.end
		}
	}
	o.sizedAt, o.doneAt, o.waitProblems = claims.waitFinishedAll(ctx, admin, 5*time.Minute)
	o.resizerRuns = resizer.Lifetimes()
	o.check(t, e, watch, classWatch)
	o.report(began).print(t, e.dir)
}
