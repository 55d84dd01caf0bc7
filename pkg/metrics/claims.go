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

package metrics

import (
	"k8s.io/client-go/tools/cache"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/utils/clock"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// Leadership says whether this replica is the one whose caches hold the
// truth.
type Leadership interface {
	// Leading reports whether this replica leads and its caches have
	// synced. A follower watches nothing, and a leader's caches are partial
	// until they sync: counting either would clear alerts wrongly, and two
	// replicas reporting would double them.
	Leading() bool
}

// ClaimsConfig is what the claims collector reads.
type ClaimsConfig struct {
	// Driver is the CSI driver name, the driver_name label.
	Driver string
	// Node is nil unless --node-deployment is on: only the claims whose
	// volumes are pinned to the node are then counted, those the
	// controller handles (ownership.Scope).
	Node *ownership.Watcher
	// Claims holds *slim.Claim and Volumes *slim.Volume by name: the
	// controller's informer caches.
	Claims, Volumes cache.Store
	// Leader says when to report; nil means never.
	Leader Leadership
	// HeldBack tells the claims whose expansion pods hold back; nil when
	// in-use handling is off.
	HeldBack decide.HeldBack
	// Clock is the real clock when nil.
	Clock clock.PassiveClock
}

// claimsCollector computes csi_resizer_claims and
// csi_resizer_claim_oldest_seconds at each scrape, from the caches: no API
// call, and nothing kept between scrapes.
type claimsCollector struct {
	k8smetrics.BaseStableCollector
	ClaimsConfig
	claims, oldest *k8smetrics.Desc
	keys           []decide.Key
	index          map[decide.Key]int
}

// RegisterClaims registers the claims-by-state metrics on registry.
func RegisterClaims(registry k8smetrics.KubeRegistry, cfg ClaimsConfig) {
	registry.CustomMustRegister(newClaimsCollector(cfg))
}

func newClaimsCollector(cfg ClaimsConfig) *claimsCollector {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	labels := []string{"driver_name", "operation", "state"}
	var node k8smetrics.Labels // the owning node's name, with --node-deployment
	if cfg.Node != nil {
		node = k8smetrics.Labels{"node": cfg.Node.Name()}
	}
	c := &claimsCollector{
		ClaimsConfig: cfg,
		claims: k8smetrics.NewDesc("csi_resizer_claims",
			"Claims of this driver with an unfinished expansion or modification, by operation and state, from the informer caches at scrape time. Only the leader reports it; with --node-deployment every instance reports its node's claims, labelled node.",
			labels, node, k8smetrics.ALPHA, ""),
		oldest: k8smetrics.NewDesc("csi_resizer_claim_oldest_seconds",
			"Seconds since the oldest claim of each operation and state entered it, from the transition times its conditions record; 0 when no claim is in it or none records a time. Only the leader reports it; with --node-deployment every instance reports its node's claims, labelled node.",
			labels, node, k8smetrics.ALPHA, ""),
		keys:  decide.KnownStages(),
		index: map[decide.Key]int{},
	}
	for i, k := range c.keys {
		c.index[k] = i
	}
	return c
}

// DescribeWithStability sends the two descriptors.
func (c *claimsCollector) DescribeWithStability(ch chan<- *k8smetrics.Desc) {
	ch <- c.claims
	ch <- c.oldest
}

// CollectWithStability sends both metrics for every known state, 0 when no
// claim is in it (so that alerts clear), and nothing unless this replica
// leads.
func (c *claimsCollector) CollectWithStability(ch chan<- k8smetrics.Metric) {
	if c.Leader == nil || !c.Leader.Leading() {
		return
	}
	t := c.tally()
	now := c.Clock.Now()
	for i, k := range c.keys {
		op, state := string(k.Operation), string(k.State)
		ch <- k8smetrics.NewLazyConstMetric(c.claims, k8smetrics.GaugeValue, float64(t.count[i]), c.Driver, op, state)
		ch <- k8smetrics.NewLazyConstMetric(c.oldest, k8smetrics.GaugeValue, t.age(i, now), c.Driver, op, state)
	}
}

// tally goes once over the cached claims. A claim is classified first, as
// that is cheap and most claims are in no state; only the few in a state
// are looked up for ownership.
func (c *claimsCollector) tally() tally {
	t := newTally(len(c.keys))
	var (
		buf [2]decide.Entry
		own owner
	)
	for _, obj := range c.Claims.List() {
		claim, ok := obj.(*slim.Claim)
		if !ok {
			continue
		}
		entries := decide.AppendUnfinished(buf[:0], claim, c.HeldBack)
		if len(entries) == 0 || !own.owned(claim, c.volume(claim.VolumeName), ownership.Scope{Driver: c.Driver, Node: c.Node}) {
			continue
		}
		for _, e := range entries {
			t.add(c.index[e.Key], e.Since)
		}
	}
	return t
}

// volume returns the cached PV of that name, nil when it is not cached.
func (c *claimsCollector) volume(name string) *slim.Volume {
	if name == "" {
		return nil
	}
	obj, exists, err := c.Volumes.GetByKey(name)
	if err != nil || !exists {
		return nil
	}
	v, _ := obj.(*slim.Volume)
	return v
}
