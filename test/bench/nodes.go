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
	"path/filepath"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The node-deployment comparison (issue 19): N claims spread over simulated
// nodes, each PV pinned to its node, resized by one resizer of the whole
// cluster, then by one --node-deployment resizer per node, on the same
// control plane and objects.

// nodesResult is the comparison.
type nodesResult struct {
	N, Nodes, Pods int
	// Creators are the goroutines that sent the grows.
	Creators int
	// Create is how long creating the objects took.
	Create time.Duration
	// Baseline is the control plane idle with no resizer (the benchmark's
	// claim watch open), over BaselineWindow.
	Baseline phase
	// BaselineWatches are the watches open then.
	BaselineWatches  int
	Central, PerNode *nodesScenario
}

// nodesScenario is one way of running the resizers.
type nodesScenario struct {
	Label     string
	Setting   setting
	Instances int
	// Target is the size every claim is grown to.
	Target string
	// Startup runs from the start of the processes until every one is
	// ready with an empty queue; Wave from the first grow sent until the
	// last claim was seen finished; Idle over the idle window after the
	// wave's events were written.
	Startup, Wave, Idle phase
	// Ready are the instances' times from start to /readyz.
	Ready summary
	// Watches are the watches the resizers opened (the API server's count
	// once they were ready, less the count before they started); Added
	// describes them by resource. IdleWatches is the same at the end of
	// the idle window.
	Watches, IdleWatches int
	Added                string
	// RSS, Anon, Peak and PSS are each instance's at the end of the idle
	// window.
	RSS, Anon, Peak, PSS []int64
	// APIServerRSS is the API server's VmRSS at the end of the idle window.
	APIServerRSS int64
	GrowSpan     time.Duration
	Latency      summary
	// Requests are the instances' requests over their whole life;
	// IdleRequests those of the idle window.
	Requests, IdleRequests tally
	// DriverCalls are the ControllerExpandVolume calls to Target; Volumes
	// the distinct volumes among them.
	DriverCalls, Volumes int
	Errors               int
	// Ownership is the check of the per-node instances' writes; nil for
	// the central resizer.
	Ownership *ownership
	// Leases are the fresh node Leases of the driver at the end of the
	// idle window (renewed within their duration).
	Leases       int
	ForcedCloses int
	// idleFrom and idleTo bound the idle window.
	idleFrom, idleTo time.Time
}

// floor is the token-bucket floor of the wave: each instance makes 3
// writes a resize of its share of the claims.
func (s *nodesScenario) floor(n int) time.Duration {
	per := (n + s.Instances - 1) / s.Instances
	secs := (float64(per)*targetWrites - float64(s.Setting.Burst)) / float64(s.Setting.QPS)
	return time.Duration(max(secs, 0) * float64(time.Second))
}

// nodesRun is the comparison being run.
type nodesRun struct {
	cfg   *config
	r     *rig
	cp    controlPlane
	nodes []string
	// ids are the identities of the nodes' resizers.
	ids []framework.Identity
	res *nodesResult
}

// runNodes creates the nodes, claims and PVs (and pods), measures the
// control plane idle, then each scenario in turn.
func runNodes(ctx context.Context, cfg *config) (*nodesResult, error) {
	say("== node deployment: %d claims on %d nodes, one resizer at %s, then one per node at %s",
		cfg.nodesN, cfg.nodes, cfg.nodesCentral, cfg.nodesSetting)
	n := &nodesRun{cfg: cfg, res: &nodesResult{N: cfg.nodesN, Nodes: cfg.nodes, Creators: cfg.creators}}
	for i := 0; i < cfg.nodes; i++ {
		n.nodes = append(n.nodes, nodeName(i))
		n.ids = append(n.ids, nodeResizer(nodeName(i)))
	}
	var err error
	if n.r, err = newRigWith(ctx, cfg, "nodes", framework.DriverOptions{Name: driverName}, n.ids...); err != nil {
		return nil, err
	}
	defer n.r.close()
	if n.cp, err = findControlPlane(); err != nil {
		return nil, err
	}
	if err := n.create(ctx); err != nil {
		return nil, err
	}
	w, err := watchClaims(ctx, n.r.admin, "2Gi")
	if err != nil {
		return nil, err
	}
	if err := n.baseline(ctx); err != nil {
		w.close()
		return nil, err
	}
	central := &nodesScenario{Label: "one resizer", Setting: cfg.nodesCentral, Instances: 1, Target: "2Gi"}
	err = n.scenario(ctx, central, w, []string{n.r.resizerID.User}, func() (*fleet, error) {
		return startCentral(n.r, cfg.nodesCentral, cfg.resizerArgs)
	})
	w.close()
	if err != nil {
		return nil, fmt.Errorf("one resizer: %w", err)
	}
	n.res.Central = central
	if w, err = watchClaims(ctx, n.r.admin, "3Gi"); err != nil {
		return nil, err
	}
	defer w.close()
	perNode := &nodesScenario{Label: fmt.Sprintf("one per node (%d)", cfg.nodes), Setting: cfg.nodesSetting, Instances: cfg.nodes, Target: "3Gi"}
	var users []string
	for _, id := range n.ids {
		users = append(users, id.User)
	}
	err = n.scenario(ctx, perNode, w, users, func() (*fleet, error) {
		return startPerNode(n.r, cfg.nodesSetting, n.nodes, n.ids, cfg.resizerArgs)
	})
	n.res.PerNode = perNode
	if err != nil {
		return nil, fmt.Errorf("one resizer per node: %w", err)
	}
	if o := perNode.Ownership; o.Foreign > 0 {
		return nil, fmt.Errorf("OWNERSHIP VIOLATED: %d writes by an instance to another node's claim, PV, event or Lease, e.g. %v (logs in %s)", o.Foreign, o.ForeignSamples, n.r.dir)
	}
	return n.res, nil
}

// create makes the Nodes, the RBAC of the per-node resizers, the volumes
// in the driver, the pinned pairs and, with cfg.nodesPods, one running pod
// per claim on its claim's node.
func (n *nodesRun) create(ctx context.Context) error {
	start := time.Now()
	if err := bindNodeResizers(ctx, n.r.admin, n.cfg.rbac, n.ids); err != nil {
		return err
	}
	if err := createNodes(ctx, n.r.admin, n.cfg.nodes, n.cfg.creators); err != nil {
		return err
	}
	handles, err := n.r.driver.CreateVolumes(ctx, "vol", n.cfg.nodesN, 1<<30, 8)
	if err != nil {
		return err
	}
	if err := createPinnedPairs(ctx, n.r.admin, n.cfg.nodesN, n.cfg.nodes, "1Gi", handles, n.cfg.creators); err != nil {
		return err
	}
	if n.cfg.nodesPods {
		node := func(i int) string { return nodeOfClaim(i, n.cfg.nodes) }
		if err := createPods(ctx, n.r.admin, n.cfg.nodesN, node, n.cfg.creators); err != nil {
			return err
		}
		n.res.Pods = n.cfg.nodesN
	}
	n.res.Create = since(start)
	say("  %d nodes, %d pinned pairs and %d pods created in %s", n.cfg.nodes, n.cfg.nodesN, n.res.Pods, n.res.Create)
	return nil
}

// baselineWindow is how long the control plane is watched idle before any
// resizer runs.
func (n *nodesRun) baselineWindow() time.Duration { return min(n.cfg.nodesIdle, 20*time.Second) }

// baseline measures the control plane idle with no resizer.
func (n *nodesRun) baseline(ctx context.Context) error {
	a, err := n.takeSample(ctx, nil)
	if err != nil {
		return err
	}
	if err := sleep(ctx, n.baselineWindow()); err != nil {
		return err
	}
	b, err := n.takeSample(ctx, nil)
	if err != nil {
		return err
	}
	n.res.Baseline, n.res.BaselineWatches = phaseBetween(a, b, n.cfg.nproc), b.Figures.Watches
	say("  idle control plane, no resizer: kube-apiserver %s CPU in %s, %d watches open", seconds(n.res.Baseline.APIServer), n.res.Baseline.Wall.Round(time.Second), b.Figures.Watches)
	return nil
}

// scenario starts the fleet that start makes, whose instances are users,
// waits until it is ready, grows every claim to sc.Target, waits until
// every claim is finished and every event written, watches it idle, stops
// it, and reads what it did.
func (n *nodesRun) scenario(ctx context.Context, sc *nodesScenario, w *claimWatch, users []string, start func() (*fleet, error)) error {
	say("== node deployment: %s at %s", sc.Label, sc.Setting)
	closesBefore, err := n.forcedCloses()
	if err != nil {
		return err
	}
	// The tail starts before the processes: it must see their first
	// requests.
	tail, err := newAuditTailOf(n.r.cluster.AuditLog, users...)
	if err != nil {
		return err
	}
	s0, err := n.takeSample(ctx, nil)
	if err != nil {
		return err
	}
	f, err := start()
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
	sc.Startup, sc.Ready = phaseBetween(s0, s1, n.cfg.nproc), summarize(f.readyTimes())
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
func (n *nodesRun) wave(ctx context.Context, sc *nodesScenario, f *fleet, w *claimWatch) error {
	a, err := n.takeSample(ctx, f)
	if err != nil {
		return err
	}
	names := claimNames(n.cfg.nodesN)
	sent := make([]time.Time, len(names))
	err = framework.Parallel(ctx, len(names), n.cfg.creators, func(ctx context.Context, i int) error {
		sent[i] = time.Now()
		return framework.Grow(ctx, n.r.admin, benchNamespace, names[i], sc.Target)
	}, nil)
	if err != nil {
		return err
	}
	sc.GrowSpan = since(a.At)
	say("  %d grows to %s sent in %s; waiting for the resizers", len(names), sc.Target, sc.GrowSpan)
	if err := waitWithProgress(ctx, n.cfg.timeout, w, names); err != nil {
		return fmt.Errorf("%w (logs in %s)", err, n.r.dir)
	}
	b, err := n.takeSample(ctx, f)
	if err != nil {
		return err
	}
	first := slices.MinFunc(sent, time.Time.Compare)
	var last time.Time
	lat := make([]time.Duration, len(names))
	for i, name := range names {
		at := w.finishedAt(name)
		lat[i] = at.Sub(sent[i])
		if at.After(last) {
			last = at
		}
	}
	sc.Wave = phaseBetween(a, b, n.cfg.nproc)
	// The wave's wall time runs to the last claim seen finished, not to
	// the sample after it.
	sc.Wave.Wall, sc.Latency, sc.Errors = last.Sub(first), summarize(lat), w.errors()
	say("  all %d claims finished in %s (floor %s); kube-apiserver %s CPU, the resizers %s",
		len(names), seconds(sc.Wave.Wall), seconds(sc.floor(n.cfg.nodesN)), seconds(sc.Wave.APIServer), seconds(sc.Wave.Resizers))
	return nil
}

// idle watches the fleet idle for cfg.nodesIdle and reads its memory, the
// API server's and, for per-node instances, their node Leases.
func (n *nodesRun) idle(ctx context.Context, sc *nodesScenario, f *fleet, before sample) error {
	a, err := n.takeSample(ctx, f)
	if err != nil {
		return err
	}
	if err := sleep(ctx, n.cfg.nodesIdle); err != nil {
		return err
	}
	b, err := n.takeSample(ctx, f)
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
	if u, err := readUsage(n.cp.apiserver); err == nil {
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
	sum := int64(0)
	for _, r := range sc.RSS {
		sum += r
	}
	say("  idle %s: kube-apiserver %s CPU, the resizers %s; RSS %s in all; %d node Leases fresh",
		sc.Idle.Wall.Round(time.Second), seconds(sc.Idle.APIServer), seconds(sc.Idle.Resizers), mib(sum), sc.Leases)
	return nil
}

// collect counts the fleet's requests, the driver's calls and the forced
// watch closes, and checks who wrote what.
func (n *nodesRun) collect(_ context.Context, sc *nodesScenario, f *fleet, tail *auditTail, closesBefore int) error {
	sc.Requests = count(tail.requests)
	sc.IdleRequests = count(between(tail.requests, sc.idleFrom, sc.idleTo))
	calls, err := n.r.driver.Calls()
	if err != nil {
		return err
	}
	target := resource.MustParse(sc.Target)
	volumes := map[string]bool{}
	for _, c := range calls {
		if c.RequiredBytes == target.Value() {
			sc.DriverCalls++
			volumes[c.VolumeID] = true
		}
	}
	sc.Volumes = len(volumes)
	closes, err := n.forcedCloses()
	if err != nil {
		return err
	}
	sc.ForcedCloses = closes - closesBefore
	if sc.Instances > 1 {
		users := map[string]string{}
		for _, in := range f.instances {
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

// forcedCloses counts the watches of all namespaces that the API server
// closed as unresponsive so far.
func (n *nodesRun) forcedCloses() (int, error) {
	closes, err := forcedCloses(filepath.Join(n.r.cluster.Dir, "kube-apiserver.log"))
	total := 0
	for key, c := range closes {
		if allNamespaces(key) {
			total += c
		}
	}
	return total, err
}
