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

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The node-deployment comparison (issue 19): N claims spread over simulated
// nodes, each PV pinned to its node, resized by one resizer of the whole
// cluster, then by one --node-deployment resizer per node, on the same
// control plane and objects.

// nodesResult is the comparison: Creators goroutines sent the grows, Create
// is how long creating the objects took, Baseline the control plane idle
// with no resizer (the benchmark's claim watch open), with BaselineWatches.
type nodesResult struct {
	N, Nodes, Pods, Creators int
	Create                   time.Duration
	Baseline                 phase
	BaselineWatches          int
	Central, PerNode         *nodesScenario
}

// nodesScenario is one way of running the resizers.
type nodesScenario struct {
	Label     string
	Setting   setting
	Instances int
	Target    string // the size every claim is grown to
	// Startup runs from the start of the processes until every one is
	// ready with an empty queue; Wave from the first grow sent until the
	// last claim was seen finished; Idle over the idle window after the
	// wave's events were written.
	Startup, Wave, Idle phase
	Ready               summary // the instances' times from start to /readyz
	// Watches are the watches the resizers opened (the API server's count
	// once they were ready less the count before), Added them by resource,
	// IdleWatches the same at the end of the idle window.
	Watches, IdleWatches int
	Added                string
	// Each instance's, and the API server's VmRSS, at the end of the idle window.
	RSS, Anon, Peak, PSS []int64
	APIServerRSS         int64
	GrowSpan             time.Duration
	Latency              summary
	// Requests are the instances' requests over their whole life;
	// IdleRequests those of the idle window [idleFrom, idleTo].
	Requests, IdleRequests tally
	// DriverCalls are the ControllerExpandVolume calls to Target; Volumes
	// the distinct volumes among them.
	DriverCalls, Volumes, Errors int
	// Ownership checks the per-node instances' writes; nil for the central
	// resizer. Leases are the driver's node Leases fresh (renewed within
	// their duration) at the end of the idle window.
	Ownership        *ownership
	Leases           int
	ForcedCloses     int
	idleFrom, idleTo time.Time
}

// floor is the token-bucket floor of the wave: each instance makes 3
// writes a resize of its share of the claims.
func (s *nodesScenario) floor(n int) time.Duration {
	return s.Setting.floor((n + s.Instances - 1) / s.Instances)
}

// nodesRun is the comparison being run.
type nodesRun struct {
	cfg             *config
	r               *rig
	apiserver, etcd int // pids
	nodes           []string
	ids             []framework.Identity // of the nodes' resizers
	res             *nodesResult
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
	if n.r, err = newRig(ctx, cfg, "nodes", framework.DriverOptions{}, n.ids...); err != nil {
		return nil, err
	}
	defer n.r.close()
	n.apiserver, n.etcd = n.r.cluster.Pids()
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
	err = n.scenario(ctx, central, w, nil, []framework.Identity{n.r.resizerID})
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
	err = n.scenario(ctx, perNode, w, n.nodes, n.ids)
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
	err = createPairs(ctx, n.r.admin, n.cfg.nodesN, n.cfg.creators, "bound PVC+PV pairs pinned to their node", func(i int) framework.Volume {
		return pinnedVolume(i, "1Gi", handles[i], nodeOfClaim(i, n.cfg.nodes))
	})
	if err != nil {
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

// baseline measures the control plane idle with no resizer, for at most 20s.
func (n *nodesRun) baseline(ctx context.Context) error {
	a, b, err := n.around(ctx, nil, func() error { return sleep(ctx, min(n.cfg.nodesIdle, 20*time.Second)) })
	if err != nil {
		return err
	}
	n.res.Baseline, n.res.BaselineWatches = phaseBetween(a, b, n.cfg.nproc), b.Figures.Watches
	say("  idle control plane, no resizer: kube-apiserver %s CPU in %s, %d watches open", seconds(n.res.Baseline.APIServer), n.res.Baseline.Wall.Round(time.Second), b.Figures.Watches)
	return nil
}

// around samples before and after do.
func (n *nodesRun) around(ctx context.Context, f fleet, do func() error) (a, b sample, err error) {
	if a, err = n.takeSample(ctx, f); err != nil {
		return a, b, err
	}
	if err = do(); err != nil {
		return a, b, err
	}
	b, err = n.takeSample(ctx, f)
	return a, b, err
}
