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
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// A claim at rest for restWindow or longer may be read by kubelet at most
// maxReadRate times a second. kubelet reads each claim of a pod at every
// sync of the pod (every 5s here); one that it thinks unfinished, about
// ten times a second.
const (
	restWindow  = 20 * time.Second
	maxReadRate = 1.0
)

// nodeOutcome is what the node share did and saw.
type nodeOutcome struct {
	calls []csidriver.LoggedCall // node calls
	// The node share's claims whose status.capacity kubelet did not write;
	// with no successful NodeExpandVolume at their size before they showed
	// it; whose file system is not at their size. And the other claims
	// whose capacity kubelet wrote, or the resizer did not.
	notKubelet, notExpanded, fsBad, notResizer []string
	strangers                                  []string // node calls from no kubelet run
	// rates are kubelet's reads a second of each claim at rest long enough.
	rates         map[claim]float64
	reads, writes int // kubelet's GETs and status patches of the claims
	// belowRates are the rates of the claims at rest below their PV (after
	// a recovery), which kubelet re-reads as long as that lasts (its cost
	// of the recovery, docs/design.md); belowWrites its status patches of
	// them meanwhile, which must be none.
	belowRates  map[claim]float64
	belowWrites map[claim]int
	steps       []time.Duration
	// lastAtSize and othersAtSize are when the last claim of the node share,
	// and of the others, was first seen with its final capacity.
	lastAtSize, othersAtSize time.Time
}

// checkNode holds the node share to its promises: every claim finished by
// kubelet after a successful NodeExpandVolume at its size, its file system
// at that size, and kubelet quiet about claims at rest. l is the final
// listing, sizes the claim size watch's record.
func (o *outcome) checkNode(t *testing.T, e *env, l *listing, sizes sizeFigures) {
	s, n := o.share, &o.node
	var err error
	n.calls, err = s.driver.NodeCalls()
	must(t, err)
	isKubelet := func(pid int) bool { _, ok := s.kubeletOf(pid); return ok }
	for _, c := range n.calls {
		if !isKubelet(c.Pid) {
			n.strangers = append(n.strangers, describeNodeCall(c))
		}
	}
	fs, err := s.driver.NodeVolumes()
	must(t, err)
	want := o.claims.sizes()
	rested, restedBelow, below := map[claim]time.Time{}, map[claim]time.Time{}, belowPV(l)
	for i := range l.pvcs {
		pvc := &l.pvcs[i]
		cl := claim{ns: pvc.Namespace, name: pvc.Name}
		size, ours := want[cl]
		if !ours {
			continue
		}
		managers := capacityManagers(pvc)
		at, seen := sizes.reached[cl][size]
		if !seen {
			at = time.Now() // the size check tells whether it is at its size
		}
		if !s.member[cl] {
			if at.After(n.othersAtSize) {
				n.othersAtSize = at
			}
			if slices.Contains(managers, kubeletManager) || !slices.Contains(managers, resizerManager) {
				n.notResizer = append(n.notResizer, fmt.Sprintf("%s: status.capacity managed by %v", pvc.Name, managers))
			}
			continue
		}
		if !slices.Equal(managers, []string{kubeletManager}) {
			n.notKubelet = append(n.notKubelet, fmt.Sprintf("%s: status.capacity managed by %v; %s", pvc.Name, managers, framework.Describe(pvc)))
		}
		if below[cl] {
			restedBelow[cl] = at
		} else {
			rested[cl] = at
		}
		if at.After(n.lastAtSize) {
			n.lastAtSize = at
		}
		if _, ok := nodeExpandedBefore(n.calls, cl.handle(), size, at, isKubelet); !ok {
			n.notExpanded = append(n.notExpanded, fmt.Sprintf("%s: no successful NodeExpandVolume of %d bytes by kubelet before %s", pvc.Name, size, clock(at)))
		}
		if got := fs[cl.handle()].FileSystemBytes; got != size {
			n.fsBad = append(n.fsBad, fmt.Sprintf("%s: file system of %d bytes, want %d", pvc.Name, got, size))
		}
	}
	for _, p := range n.notKubelet {
		t.Errorf("node share claim whose capacity kubelet did not write: %s", p)
	}
	for _, p := range n.notExpanded {
		t.Errorf("node share claim finished without kubelet's NodeExpandVolume: %s", p)
	}
	for _, p := range n.fsBad {
		t.Errorf("node share claim whose file system is not at its size: %s", p)
	}
	for _, p := range n.notResizer {
		t.Errorf("claim without a node step whose capacity the resizer did not write: %s", p)
	}
	for _, c := range n.strangers {
		t.Errorf("node call from a process that is no kubelet run: %s", c)
	}
	if s.node.Kubelet.Exited() {
		t.Errorf("kubelet exited on its own; see %s", s.node.Kubelet.Log)
	}

	end := time.Now()
	events, err := e.cluster.AuditEvents(o.start, end, func(a framework.AuditEvent) bool {
		return a.FromKubelet() && a.ObjectRef.Resource == "persistentvolumeclaims" && a.ObjectRef.Namespace == o.claims.list[0].ns
	})
	must(t, err)
	for _, a := range events {
		switch {
		case a.Verb == "get" && a.ObjectRef.Subresource == "":
			n.reads++
		case a.Verb == "patch" && a.ObjectRef.Subresource == "status":
			n.writes++
		}
	}
	n.rates = readRates(events, rested, end, restWindow)
	for _, cl := range slices.SortedFunc(maps.Keys(n.rates), func(a, b claim) int { return strings.Compare(a.name, b.name) }) {
		if rate := n.rates[cl]; rate > maxReadRate {
			t.Errorf("kubelet read claim %s %.1f times a second while it was at rest (since %s), want at most %.1f",
				cl.name, rate, clock(rested[cl]), maxReadRate)
		}
	}
	n.belowRates, n.belowWrites = readRates(events, restedBelow, end, restWindow), writesAtRest(events, restedBelow, end)
	for _, cl := range slices.SortedFunc(maps.Keys(n.belowWrites), byName) {
		t.Errorf("kubelet patched the status of claim %s %d times while it was at rest below its PV (since %s), want none",
			cl.name, n.belowWrites[cl], clock(restedBelow[cl]))
	}
	// A refused claim's sizes are the recovery's, timed there: its PV was
	// at the lowered or raised size long before the claim.
	held := s.recovery.held()
	n.steps = nodeSteps(slices.DeleteFunc(slices.Clone(s.claims), func(cl claim) bool { return held[cl] }), o.watched.reached, sizes.reached)
}

// checkRecovery holds the node share's recovery to its promises (see
// judgeRecovery); expands are the ControllerExpandVolume calls of both
// drivers.
func (o *outcome) checkRecovery(t *testing.T, l *listing, expands []csidriver.LoggedCall) {
	s := o.share
	isKubelet := func(pid int) bool { _, ok := s.kubeletOf(pid); return ok }
	o.recovery = judgeRecovery(s.recovery.snapshot(), l, expands, o.node.calls, o.sizes, isKubelet)
	for _, u := range o.recovery.unexpected {
		t.Errorf("claim found infeasible on the node with no refusal scripted: %s", u)
	}
	for _, p := range o.recovery.problems {
		t.Errorf("node recovery: %s", p)
	}
}

// reportNode adds the figures of the node share.
func (o *outcome) reportNode(r *report, sizes sizeFigures) {
	s, n := o.share, &o.node
	grown := o.claims.raisesOf(s.claims)
	r.add("node share: %d of %d claims, volumes of %s (node_expansion_required), mounted by %d pods (%d claims each) on a real kubelet (node %s), all running %s after their creation; %d requests raised",
		len(s.claims), len(o.claims.list), nodeDriver, s.pods, claimsPerPod, nodeName, s.podsUp.Round(100*time.Millisecond), grown)
	r.add("kubelet runs: %d (%s); node CSI driver runs: %d (%s; the first mounted the pods' volumes before the window); node resizer runs: %d (%s)",
		len(s.kubelets), ends(s.kubelets), len(s.driver.Lifetimes()), ends(s.driver.Lifetimes()), len(s.resizer.Lifetimes()), ends(s.resizer.Lifetimes()))
	byMethod, expandCodes, perRun, perDriver := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	driverRuns := s.driver.Lifetimes()
	for _, c := range n.calls {
		byMethod[c.Method]++
		if d, ok := runOf(driverRuns, c.Driver, c.Start); ok {
			perDriver[d.Name]++
		}
		if c.Method != csidriver.MethodNodeExpand {
			continue
		}
		code := c.Code
		if !c.Ended() {
			code = "cut by the driver's death"
		}
		expandCodes[code]++
		if k, ok := s.kubeletOf(c.Pid); ok {
			perRun[k.Name]++
		}
	}
	r.add("NodeExpandVolume calls: %d (%s); per raised request: %.2f; by kubelet run: %s",
		byMethod[csidriver.MethodNodeExpand], countsOf(expandCodes), float64(byMethod[csidriver.MethodNodeExpand])/float64(max(1, grown)), countsOf(perRun))
	r.add("NodeExpandVolume answers scripted: %s (a driver restart drops those not taken yet)", countsOf(s.armed))
	r.add("other node calls: NodeStageVolume %d, NodePublishVolume %d, NodeUnpublishVolume %d, NodeUnstageVolume %d; node calls by driver run (kubelet reaches each new one on the same socket): %s",
		byMethod[csidriver.MethodNodeStage], byMethod[csidriver.MethodNodePublish], byMethod[csidriver.MethodNodeUnpublish], byMethod[csidriver.MethodNodeUnstage],
		countsOf(perDriver))
	m := len(s.claims)
	r.add("node share claims with status.capacity written by kubelet (managedFields): %d/%d, after a successful NodeExpandVolume at their size: %d/%d, file system at their size: %d/%d; other claims' capacity written by the resizer: %d/%d",
		m-len(n.notKubelet), m, m-len(n.notExpanded), m, m-len(n.fsBad), m, len(o.claims.list)-m-len(n.notResizer), len(o.claims.list)-m)
	r.add("claims seen by resize status: %s; by condition: %s; claim events with NodeResizeInfeasible: %d; claim capacity decreases: %d (%d claim events)",
		countsOf(sizes.statuses), countsOf(sizes.conditions), len(sizes.infeasible), len(sizes.decreases), sizes.events)
	r.add("kubelet's node step, from the PV at a size to the claim at it: median %s, p90 %s, max %s over %d expansions",
		percentile(n.steps, 0.5).Round(10*time.Millisecond), percentile(n.steps, 0.9).Round(10*time.Millisecond), percentile(n.steps, 1).Round(10*time.Millisecond), len(n.steps))
	rates := slices.Sorted(maps.Values(n.rates))
	median, highest := 0.0, 0.0
	if len(rates) > 0 {
		median, highest = rates[len(rates)/2], rates[len(rates)-1]
	}
	r.add("kubelet on the claims (audit log): %d reads, %d status patches; reads of a claim at rest for %s or more: median %.2f/s, max %.2f/s over %d claims",
		n.reads, n.writes, restWindow, median, highest, len(rates))
	below := slices.Sorted(maps.Values(n.belowRates))
	median, highest = 0, 0
	if len(below) > 0 {
		median, highest = below[len(below)/2], below[len(below)-1]
	}
	r.add("claims at rest below their PV after a recovery for %s or more: %d, kubelet's reads of them (its cost, until a resize reaches the PV): median %.2f/s, max %.2f/s; its status patches of them: %d",
		restWindow, len(below), median, highest, sum(maps.Values(n.belowWrites)))
	o.recovery.report(r, s.armed[refusalKind])
	r.add("drain after the last fault, sizes: node share %s, the other claims %s",
		max(n.lastAtSize.Sub(o.lastFault), 0).Round(10*time.Millisecond), max(n.othersAtSize.Sub(o.lastFault), 0).Round(10*time.Millisecond))
}

// describeNodeCall is a node call in a failure message.
func describeNodeCall(c csidriver.LoggedCall) string {
	return fmt.Sprintf("pid %d %s %s %d bytes %s..%s code %q", c.Pid, c.Method, c.VolumeID, c.RequiredBytes, clock(c.Start), clock(c.End), c.Code)
}
