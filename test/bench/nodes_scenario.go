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

package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// scenario starts the resizers of sc (one per node of nodes, or one of the
// whole cluster when nodes is nil), ids[i] the identity of the i-th, waits
// until they are ready, grows every claim to sc.Target, waits until every
// claim is finished and every event written, watches them idle, stops
// them, and reads what they did.
func (n *nodesRun) scenario(ctx context.Context, sc *nodesScenario, w *claimWatch, nodes []string, ids []framework.Identity) error {
	say("== node deployment: %s at %s", sc.Label, sc.Setting)
	closesBefore, _, err := n.r.forcedCloses()
	if err != nil {
		return err
	}
	// The tail starts before the processes: it must see their first
	// requests.
	var users []string
	for _, id := range ids {
		users = append(users, id.User)
	}
	tail, err := newAuditTail(n.r.cluster.AuditLog, users...)
	if err != nil {
		return err
	}
	s0, err := n.takeSample(ctx, nil)
	if err != nil {
		return err
	}
	f, err := startFleet(n.r, sc.Setting, nodes, ids, n.cfg.resizerArgs)
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			f.kill()
		}
	}()
	if err := f.waitReady(ctx, 10*time.Minute); err != nil {
		return err
	}
	s1, err := n.takeSample(ctx, f)
	if err != nil {
		return err
	}
	var ready []time.Duration
	for _, in := range f {
		ready = append(ready, in.ready.Sub(in.started))
	}
	sc.Startup, sc.Ready = phaseBetween(s0, s1, n.cfg.nproc), summarize(ready)
	sc.Watches, sc.Added = s1.Figures.Watches-s0.Figures.Watches, watchesAdded(s0.Figures, s1.Figures)
	say("  %d resizers ready and idle in %s (ready p50 %s, max %s); kube-apiserver %s CPU; %d watches more",
		sc.Instances, sc.Startup.Wall.Round(time.Millisecond), ms(sc.Ready.P50), ms(sc.Ready.Max), seconds(sc.Startup.APIServer), sc.Watches)
	if err := n.wave(ctx, sc, f, w); err != nil {
		return err
	}
	if _, err := drainEvents(ctx, tail, 2*n.cfg.nodesN); err != nil {
		return err
	}
	if err := n.idle(ctx, sc, f, s0); err != nil {
		return err
	}
	stopped = true
	if err := f.stop(); err != nil {
		return err
	}
	if err := settle(ctx, tail); err != nil {
		return err
	}
	return n.collect(ctx, sc, f, tail, closesBefore)
}

// wave grows every claim to sc.Target and waits until each is finished.
func (n *nodesRun) wave(ctx context.Context, sc *nodesScenario, f fleet, w *claimWatch) error {
	var wv wave
	a, b, err := n.around(ctx, f, func() (err error) {
		wv, err = sendWave(ctx, n.cfg, w, n.cfg.nodesN, "grows to "+sc.Target, "resizers", func(ctx context.Context, claim string) error {
			return framework.Grow(ctx, n.r.admin, benchNamespace, claim, sc.Target)
		})
		if err != nil {
			err = fmt.Errorf("%w (logs in %s)", err, n.r.dir)
		}
		return err
	})
	if err != nil {
		return err
	}
	sc.Wave, sc.GrowSpan = phaseBetween(a, b, n.cfg.nproc), wv.span
	// The wave's wall time runs to the last claim seen finished, not to
	// the sample after it.
	sc.Wave.Wall, sc.Latency, sc.Errors = wv.last.Sub(wv.first), wv.latency, wv.errors
	say("  all %d claims finished in %s (floor %s); kube-apiserver %s CPU, the resizers %s",
		n.cfg.nodesN, seconds(sc.Wave.Wall), seconds(sc.floor(n.cfg.nodesN)), seconds(sc.Wave.APIServer), seconds(sc.Wave.Resizers))
	return nil
}

// idle watches the fleet idle for cfg.nodesIdle and reads its memory, the
// API server's and, for per-node instances, their node Leases.
func (n *nodesRun) idle(ctx context.Context, sc *nodesScenario, f fleet, before sample) error {
	a, b, err := n.around(ctx, f, func() error { return sleep(ctx, n.cfg.nodesIdle) })
	if err != nil {
		return err
	}
	sc.Idle, sc.IdleWatches = phaseBetween(a, b, n.cfg.nproc), b.Figures.Watches-before.Figures.Watches
	sc.idleFrom, sc.idleTo = a.At, b.At
	us, pss, err := f.usage()
	if err != nil {
		return err
	}
	for i, u := range us {
		sc.RSS, sc.Anon, sc.Peak, sc.PSS = append(sc.RSS, u.RSS), append(sc.Anon, u.Anon), append(sc.Peak, u.Peak), append(sc.PSS, pss[i])
	}
	if u, err := readUsage(n.apiserver); err == nil {
		sc.APIServerRSS = u.RSS
	}
	leases, err := n.r.admin.CoordinationV1().Leases(resizerNamespace).List(ctx, metav1.ListOptions{
		LabelSelector: options.NodeLeaseLabel + "=" + options.NodeLeaseValue(driverName)})
	if err != nil {
		return err
	}
	for _, l := range leases.Items {
		if r, d := l.Spec.RenewTime, l.Spec.LeaseDurationSeconds; r != nil && d != nil && time.Since(r.Time) < time.Duration(*d)*time.Second {
			sc.Leases++
		}
	}
	say("  idle %s: kube-apiserver %s CPU, the resizers %s; RSS %s in all; %d node Leases fresh",
		sc.Idle.Wall.Round(time.Second), seconds(sc.Idle.APIServer), seconds(sc.Idle.Resizers), mib(sum(sc.RSS)), sc.Leases)
	return nil
}

// collect counts the fleet's requests, the driver's calls and the forced
// watch closes, and checks who wrote what.
func (n *nodesRun) collect(_ context.Context, sc *nodesScenario, f fleet, tail *auditTail, closesBefore map[string]int) error {
	sc.Requests = count(tail.requests)
	sc.IdleRequests = count(between(tail.requests, sc.idleFrom, sc.idleTo))
	calls, err := n.r.driver.Calls(csidriver.MethodExpand)
	if err != nil {
		return err
	}
	target := resource.MustParse(sc.Target)
	toTarget := func(c framework.Call) bool { return c.RequiredBytes == target.Value() }
	for _, c := range calls {
		if toTarget(c) {
			sc.DriverCalls++
		}
	}
	sc.Volumes = distinctVolumes(calls, toTarget)
	closes, _, err := n.r.forcedCloses()
	if err != nil {
		return err
	}
	sc.ForcedCloses = total(closes) - total(closesBefore)
	if sc.Instances > 1 {
		users := map[string]string{}
		for _, in := range f {
			users[in.id.User] = in.node
		}
		lease := func(node string) string { return options.NodeLeaseName(driverName, node) }
		o := checkOwnership(tail.requests, tail.refs, newOwners(n.cfg.nodesN, n.cfg.nodes, users, lease, resizerNamespace))
		sc.Ownership = &o
		say("  writes of the %d instances: %d, %d to their own node's objects, %d to another node's, %d to no node's, %d refused before naming one; %d claims written by their owner",
			sc.Instances, o.Writes, o.Own, o.Foreign, o.Unknown, o.Refused, o.ClaimsByOwner)
	}
	return nil
}
