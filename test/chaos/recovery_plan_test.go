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
	"math/rand/v2"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// mi is a MiB: the recovery's sizes are whole MiB, as a user writes them.
const mi = int64(1) << 20

// recoveryPlan is a wave's part of the node share's recovery.
type recoveryPlan struct {
	// held are the claims refused in an earlier wave: the wave does not
	// grow them.
	held map[claim]bool
	// refuse are the claims whose growth in this wave the node refuses.
	refuse []claim
	// raises are the lowered claims raised in this wave, to that size;
	// within those whose size the PV holds.
	raises map[claim]int64
	within map[claim]bool
}

// planRecovery draws the wave's part of the recovery from the node share's
// source: in the waves between the first and the last, refusals of claims
// of the node share that the wave grows and that are at rest (their next
// NodeExpandVolume is then the wave's); in the last wave, raises of the
// claims lowered and at rest at the lowered size, which the drain then
// finishes. The candidates are the seed's; which of them are at rest is
// the cluster's.
func (s *nodeShare) planRecovery(wave int, sched schedule, grown []claim, cs *claims) recoveryPlan {
	p := recoveryPlan{held: s.recovery.held(), raises: map[claim]int64{}, within: map[claim]bool{}}
	want := cs.sizes()
	switch {
	case wave >= 1 && wave < sched.waves:
		var candidates []claim
		for _, cl := range grown {
			if s.member[cl] && !p.held[cl] {
				candidates = append(candidates, cl)
			}
		}
		p.refuse = pickFew(s.rnd, candidates, sched.nodeRefusals, func(cl claim) bool { return s.recovery.restsAt(cl, want[cl]) })
		for _, cl := range p.refuse {
			s.recovery.arm(cl)
		}
	case wave == sched.waves:
		recovered := func(cl claim) bool { _, ok := s.recovery.recovered(cl); return ok }
		pvs := cs.highestSizes() // a lowered claim's PV is at the largest size it asked for
		for i, cl := range pickFew(s.rnd, s.recovery.refused(), sched.recoveryRaises, recovered) {
			lowered, _ := s.recovery.recovered(cl)
			size, within := raiseTarget(i, lowered, pvs[cl])
			p.raises[cl], p.within[cl] = size, within
			s.recovery.raise(cl, size, within)
		}
	}
	return p
}

// describe says what the plan does, for the timeline; "" when nothing.
func (p recoveryPlan) describe() string {
	var parts []string
	if len(p.refuse) > 0 {
		var names []string
		for _, cl := range p.refuse {
			names = append(names, cl.name)
		}
		parts = append(parts, "refused on the node: "+strings.Join(names, ", "))
	}
	if len(p.raises) > 0 {
		var raises []string
		for _, cl := range slices.SortedFunc(maps.Keys(p.raises), byName) {
			where := "above the PV"
			if p.within[cl] {
				where = "within the PV"
			}
			raises = append(raises, fmt.Sprintf("%s to %s (%s)", cl.name, quantity(p.raises[cl]), where))
		}
		parts = append(parts, "raised after their recovery: "+strings.Join(raises, ", "))
	}
	if n := len(p.held) - len(p.raises); n > 0 {
		parts = append(parts, fmt.Sprintf("%d held since their refusal", n))
	}
	return strings.Join(parts, "; ")
}

// pickFew draws up to k of from for which ok holds, in the order drawn.
// It draws one permutation of from whatever ok says, so that the source
// goes on as the seed has it when the cluster's timing differs; and where
// the claims ok leaves out are not among the first drawn, the picks are
// the seed's too.
func pickFew(rnd *rand.Rand, from []claim, k int, ok func(claim) bool) []claim {
	var out []claim
	for _, i := range rnd.Perm(len(from)) {
		if len(out) >= k {
			break
		}
		if ok(from[i]) {
			out = append(out, from[i])
		}
	}
	return out
}

// midway is the size halfway between low and high, rounded down to a MiB;
// false when no whole MiB lies strictly between them. A refused request is
// lowered to midway between the claim's capacity and the refused size: a
// size the volume holds (the PV was grown for the refused one) and the
// file system does not.
func midway(low, high int64) (int64, bool) {
	m := (low + (high-low)/2) / mi * mi
	return m, low < m && m < high
}

// raiseTarget is the size of the i-th raise of a claim lowered to lowered,
// its PV at pv: every other one within the PV, midway from the lowered
// size (kubelet's alone, no driver call: R12's then), the others, and
// those with no room within, half a GiB above the PV (the driver's
// ControllerExpandVolume first).
func raiseTarget(i int, lowered, pv int64) (size int64, within bool) {
	if i%2 == 0 {
		if size, ok := midway(lowered, pv); ok {
			return size, true
		}
	}
	return pv + gi(1)/2, false
}

// holdBack fits the recovery into a wave's changes: a held claim is not
// grown (its class may change), a raised one is set to its size, and a
// raised claim that the wave did not pick gets a change of its own.
func holdBack(changes []change, held map[claim]bool, raises map[claim]int64) []change {
	var out []change
	seen := map[claim]bool{}
	for _, ch := range changes {
		seen[ch.claim] = true
		if held[ch.claim] {
			ch.grow = false
		}
		if size, ok := raises[ch.claim]; ok {
			ch.to = size
		}
		if ch.grow || ch.to > 0 || ch.class != "" {
			out = append(out, ch)
		}
	}
	for _, cl := range slices.SortedFunc(maps.Keys(raises), byName) {
		if !seen[cl] {
			out = append(out, change{claim: cl, to: raises[cl]})
		}
	}
	return out
}

// quantity writes bytes as a user does ("2560Mi", "3Gi").
func quantity(bytes int64) string {
	return resource.NewQuantity(bytes, resource.BinarySI).String()
}
