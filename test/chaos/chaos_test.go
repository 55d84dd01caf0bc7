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
	"os"
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

// The drivers of the chaos run: the node share's claims are volumes of
// nodeDriver, which needs kubelet's node step; the others of chaosDriver.
const (
	chaosDriver = "chaos.csi.example.com"
	nodeDriver  = "node.chaos.csi.example.com"
)

// TestChaos grows claims in waves, and changes the VolumeAttributesClass
// of a third of them, while the resizers, the CSI drivers, kubelet and the
// API server are killed and restarted at random moments and the drivers
// fail or hang on a share of the calls. A quarter of the claims, the node
// share, are volumes of a driver that needs the node step, mounted by pods
// on a real kubelet, which expands them online. Every claim must end at its
// requested size and its last requested class (claim, PV and backend), the
// node share's with the capacity written by kubelet after a successful
// NodeExpandVolume; no PV or claim capacity may ever go down, no claim may
// be found infeasible on the node but those the node is made to refuse
// (each of which must recover at the request lowered for it, and finish
// on the node when raised later: see recovery), no two calls on one volume
// may run at once (expand and modify alike), and no modify call may follow
// the record of the last class.
func TestChaos(t *testing.T) {
	if os.Geteuid() != 0 && os.Getenv("CI") == "" {
		t.Skip(framework.ErrNotRoot)
	}
	began := time.Now()
	n := envInt(t, "CHAOS_CLAIMS", 200)
	seed := uint64(envInt(t, "CHAOS_SEED", int(began.UnixNano()%1_000_000)))
	sched := schedule{
		window:           envDuration(t, "CHAOS_WINDOW", 3*time.Minute),
		resizerKills:     envInt(t, "CHAOS_RESIZER_KILLS", 12),
		driverKills:      3,
		apiRestarts:      1,
		waves:            4,
		driverMaxDown:    3 * time.Second,
		nodeResizerKills: envInt(t, "CHAOS_NODE_RESIZER_KILLS", 6),
		nodeDriverKills:  2,
		kubeletRestarts:  envInt(t, "CHAOS_KUBELET_RESTARTS", 4),
		nodeRefusals:     envInt(t, "CHAOS_NODE_REFUSALS", 2),
		recoveryRaises:   3,
	}
	// The late class is created between the second wave, which asks for
	// it, and the third.
	sched.lateClassAt = sched.window * 3 / time.Duration(2*sched.waves)
	// The node share and its faults are drawn apart from the rest, so that
	// a seed still gives the growths, faults and class changes it gave
	// before the node share existed.
	nodeRnd := rand.New(rand.NewPCG(seed, seed^0x6b75626574))
	onNode := pickNodeShare(nodeRnd, n, envInt(t, "CHAOS_NODE_CLAIMS", n/4))
	e := newEnv(t)
	ctx := e.ctx
	admin := e.cluster.Admin

	watch, err := watchCapacities(ctx, admin)
	must(t, err)
	defer watch.close()
	const ns = "chaos"
	must(t, framework.CreateNamespace(ctx, admin, ns))
	sizes, recov := newSizeWatch(), newRecovery()
	classWatch, err := watchClasses(ctx, admin, ns, sizes.see, recov.see)
	must(t, err)
	defer classWatch.close()
	claims, err := createClaimsOn(ctx, admin, ns, n, func(i int) string {
		if onNode[i] {
			return nodeDriver
		}
		return chaosDriver
	})
	must(t, err)
	for _, ac := range baseClasses {
		for _, driver := range []string{chaosDriver, nodeDriver} {
			must(t, createAttrClass(ctx, admin, driver, ac.forDriver(driver)))
		}
	}
	classRnd := rand.New(rand.NewPCG(seed, seed^0x5eed))
	var classy []claim
	for _, i := range classRnd.Perm(n)[:n/3] {
		classy = append(classy, claims.list[i])
	}
	nodeOpts := framework.DriverOptions{
		Name: nodeDriver, FailRate: 0.15, HangRate: 0.03, HangFor: 5 * time.Second,
		Seed: seed + 1_000_000, Modify: true, NodeExpand: true, NodeExpansionRequired: true, NodeID: nodeName,
	}
	share := e.startNodeShare(nodeOpts, claims.of(nodeDriver), nodeRnd, recov)

	start := time.Now()
	faultsUntil := start.Add(sched.window)
	driverOpts := framework.DriverOptions{
		Name: chaosDriver, FailRate: 0.15, HangRate: 0.03, HangFor: 5 * time.Second,
		Seed: seed, FaultsUntil: faultsUntil, Modify: true,
	}
	driver := e.startDriver(driverOpts, claims.of(chaosDriver))
	resizer := e.superviseResizer("resizer", driver, chaosResizerArgs...)
	must(t, share.begin(ctx, faultsUntil))
	recov.start(ctx, func(ctx context.Context, cl claim, size int64) error {
		return claims.apply(ctx, admin, []change{{claim: cl, to: size}})
	})
	defer recov.close()
	run := &chaosRun{e: e, rnd: rand.New(rand.NewPCG(seed, seed)), driver: driver, resizer: resizer, claims: claims, sched: sched,
		classRnd: classRnd, classy: classy, share: share}
	timeline, err := run.execute(ctx, start, mergeSteps(sched.plan(run.rnd), sched.planNode(nodeRnd)))
	must(t, err)

	o := &outcome{start: start, sched: sched, seed: seed, claims: claims, driver: driver, driverOpts: driverOpts, share: share,
		timeline: timeline, lastFault: faultsUntil,
		lateCreated: run.lateCreated, lateAsked: run.lateAsked, latePending: run.latePending}
	for _, h := range timeline {
		if h.what.fault() && h.end.After(o.lastFault) {
			o.lastFault = h.end
		}
	}
	o.sizedAt, o.doneAt, o.waitProblems = claims.waitFinishedAll(ctx, admin, 5*time.Minute)
	recov.close()
	o.resizerRuns = append(resizer.Lifetimes(), share.resizer.Lifetimes()...)
	o.check(t, e, watch, classWatch, sizes)
	o.report(began).print(t, e.dir)
}
