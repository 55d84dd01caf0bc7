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
	"time"

	v1 "k8s.io/api/core/v1"
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
	Driver string // the driver_name label
	// Node, with --node-deployment only, limits the count to the claims the
	// controller handles, those pinned to the node (ownership.Scope).
	Node *ownership.Watcher
	// Claims holds *slim.Claim and Volumes *slim.Volume by name: the
	// controller's informer caches.
	Claims, Volumes cache.Store
	Leader          Leadership // says when to report; nil means never
	// HeldBack tells the claims whose expansion pods hold back; nil when
	// in-use handling is off.
	HeldBack decide.HeldBack
	Clock    clock.PassiveClock // the real clock when nil
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
	registry.CustomMustRegister(c)
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

// owner answers ownership.Check, as the controller asks it, for cached
// claims and PVs. For a CSI volume it fills objects it reuses with what
// Check reads (identity, phase, volume name, claimRef, the CSI driver and
// handle, the node affinity when the cache keeps it) instead of rebuilding
// whole ones, which would allocate for every claim a scrape counts. In-tree volumes, rare, are rebuilt whole: the
// migration translation reads their source and labels, and the claim's
// annotations.
type owner struct {
	pvc      v1.PersistentVolumeClaim
	pv       v1.PersistentVolume
	ref      v1.ObjectReference
	csi      v1.CSIPersistentVolumeSource
	affinity v1.VolumeNodeAffinity
}

// owned reports whether c, bound to v (nil when not cached), is in scope:
// its driver's, and with --node-deployment pinned to the node.
func (o *owner) owned(c *slim.Claim, v *slim.Volume, scope ownership.Scope) bool {
	driver := scope.Driver
	var pv *v1.PersistentVolume
	pvc := o.claim(c)
	switch {
	case v == nil:
	case v.CSI == nil:
		pvc, pv = c.PVC(), v.PV()
	case v.CSI.Driver != driver:
		// Check would say Ignore, after formatting why.
		return false
	default:
		pv = o.volume(v)
	}
	verdict, _ := scope.Check(pvc, pv)
	return verdict == ownership.Owned
}

func (o *owner) claim(c *slim.Claim) *v1.PersistentVolumeClaim {
	o.pvc.Name, o.pvc.Namespace, o.pvc.UID = c.Name, c.Namespace, c.UID
	o.pvc.Spec.VolumeName = c.VolumeName
	o.pvc.Status.Phase = c.Phase
	return &o.pvc
}

func (o *owner) volume(v *slim.Volume) *v1.PersistentVolume {
	o.pv.Name = v.Name
	o.pv.Spec.ClaimRef = nil
	if v.Bound {
		o.ref = v1.ObjectReference{Namespace: v.ClaimNamespace, Name: v.ClaimName, UID: v.ClaimUID}
		o.pv.Spec.ClaimRef = &o.ref
	}
	o.csi = v1.CSIPersistentVolumeSource{Driver: v.CSI.Driver, VolumeHandle: v.CSI.VolumeHandle}
	o.pv.Spec.CSI = &o.csi
	o.pv.Spec.NodeAffinity = nil
	if v.NodeAffinity != nil {
		o.affinity.Required = v.NodeAffinity
		o.pv.Spec.NodeAffinity = &o.affinity
	}
	return &o.pv
}

// tally is the count and the oldest transition time of each state, by the
// index of its key.
type tally struct {
	count  []int
	oldest []time.Time // zero: no claim of the state recorded a time
}

func newTally(states int) tally {
	return tally{count: make([]int, states), oldest: make([]time.Time, states)}
}

// add counts one claim in state i, in it since since (zero when unknown).
func (t tally) add(i int, since time.Time) {
	t.count[i]++
	if !since.IsZero() && (t.oldest[i].IsZero() || since.Before(t.oldest[i])) {
		t.oldest[i] = since
	}
}

// age returns the seconds from the oldest time of state i to now: 0 when
// no time is known, and never below 0 (a time from a clock ahead of ours).
func (t tally) age(i int, now time.Time) float64 {
	if t.oldest[i].IsZero() {
		return 0
	}
	return max(now.Sub(t.oldest[i]).Seconds(), 0)
}
