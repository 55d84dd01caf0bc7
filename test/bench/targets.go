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
	"fmt"
	"slices"
	"strings"
	"time"
)

// The performance targets (docs/benchmarks.md#targets), for 500 resizes
// and 10,000 objects; runs with another N scale the per-run limits
// linearly and say so.
const (
	targetWrites    = 3.0
	targetRateShare = 0.95
	targetFastWall  = 13.0 // seconds for 500 resizes at QPS 100
	targetCPU       = 2.0  // seconds for 500 resizes
	targetEmptyMiB  = 25
	targetPairsMiB  = 60
	targetPodsMiB   = 70
	// targetNodeMiB is the p50 RSS of a --node-deployment instance, and
	// targetNodesTimes the most all instances may take together, in
	// times the one central resizer's RSS.
	targetNodeMiB    = 40
	targetNodesTimes = 15
	targetLatencyMs  = 50
	targetN          = 500
	targetMemoryObjs = 10000
)

// informerHeld are the resources the resizer keeps in informers: a GET of
// one of them is a wasted request.
var informerHeld = map[string]bool{
	"persistentvolumeclaims": true, "persistentvolumes": true,
	"storageclasses.storage.k8s.io": true, "pods": true,
	"volumeattributesclasses.storage.k8s.io": true,
}

// heldGets counts the GETs of objects the informers hold, and lists the
// other GETs.
func heldGets(t tally) (gets int, other []string) {
	for k, n := range t.ByKey {
		if k.Verb != "get" {
			continue
		}
		if informerHeld[k.Resource] {
			gets += n
		} else {
			other = append(other, fmt.Sprintf("%d × `%s`", n, k))
		}
	}
	slices.Sort(other)
	return gets, other
}

// writesTarget is the target of at most floor writes per change (what)
// in run t, events excluded.
func writesTarget(t *throughputResult, what string, floor float64) target {
	w := t.perResize(classWrite)
	return target{Goal: fmt.Sprintf("Writes per %s, events excluded, at %s: %.1f", what, t.Setting.Name, floor),
		Measured: fmt.Sprintf("%.2f", w), Met: w <= floor+1e-9}
}

// heldGetsTarget is the target of no GET in run t of the objects the
// informers hold (kinds names them), at where.
func heldGetsTarget(t *throughputResult, kinds, where string) target {
	gets, other := heldGets(t.Requests)
	measured := fmt.Sprintf("%d GETs of %s; %d reads in all", gets, kinds, t.Requests.ByClass[classRead])
	if len(other) > 0 {
		measured += " (" + strings.Join(other, ", ") + ")"
	}
	return target{Goal: "No GET of objects the informers hold, " + where, Measured: measured, Met: gets == 0}
}

func scaled(n int) string {
	if n == targetN {
		return ""
	}
	return fmt.Sprintf(" (scaled to N=%d)", n)
}

func (r *results) targets() []target {
	var out []target
	add := func(met bool, measured, goal string, args ...any) {
		out = append(out, target{Goal: fmt.Sprintf(goal, args...), Measured: measured, Met: met})
	}
	for _, t := range r.Throughput {
		out = append(out, writesTarget(t, "controller-only resize", targetWrites))
	}
	for _, t := range r.Throughput {
		out = append(out, heldGetsTarget(t, "PVCs, PVs, StorageClasses or pods", "at "+t.Setting.Name))
	}
	for _, t := range r.Throughput {
		if t.Setting.Name != "default" {
			continue
		}
		q := float64(t.Setting.QPS)
		add(t.WorkRate <= q*1.1 && t.WorkRate+t.EventRate > q*1.1,
			fmt.Sprintf("work %.2f/s + events %.2f/s = %.2f/s on a %d QPS budget", t.WorkRate, t.EventRate, t.WorkRate+t.EventRate, t.Setting.QPS),
			"Events through their own client (the work client stays within its QPS while events are written beside it)")
		want := targetRateShare * q / targetWrites
		add(t.rate() >= want, fmt.Sprintf("%.3f resizes/s (%s for %d)", t.rate(), seconds(t.Wall), t.N),
			"Throughput at defaults ≥ %.2f × (%d QPS ÷ %.0f writes) = %.3f resizes/s", targetRateShare, t.Setting.QPS, targetWrites, want)
	}
	for _, t := range r.Throughput {
		if t.Setting.Name != "fast" {
			continue
		}
		limit := targetFastWall * float64(t.N) / targetN
		add(t.Wall.Seconds() <= limit, fmt.Sprintf("%s (token-bucket floor %s)", seconds(t.Wall), seconds(t.floor())), "%d resizes at QPS 100 / burst 200 / 50 workers in ≤ %.1f s%s", t.N, limit, scaled(t.N))
	}
	for _, t := range r.Throughput {
		limit := targetCPU * float64(t.N) / targetN
		add(t.CPU.Seconds() <= limit, fmt.Sprintf("%s (whole process: %s)", seconds(t.CPU), seconds(t.CPUTotal)),
			"CPU ≤ %.1f s for %d resizes at %s%s", limit, t.N, t.Setting.Name, scaled(t.N))
	}
	out = append(out, r.modifyTargets()...)
	if m := r.Memory; m != nil {
		note := ""
		if m.Pairs != targetMemoryObjs {
			note = fmt.Sprintf(" (run with %d, not %d)", m.Pairs, targetMemoryObjs)
		}
		empty := m.Phases[0]
		add(empty.RSS <= targetEmptyMiB<<20, mib(empty.RSS), "RSS ≤ %d MiB on %s", targetEmptyMiB, empty.Label)
		for _, ph := range m.Phases[1:] {
			// Only an offline-only driver's resizer caches the pods:
			// with any other, pods weigh nothing and the pairs' limit
			// holds.
			limit := int64(targetPairsMiB)
			if ph.OfflineOnly && strings.Contains(ph.Label, "pods") {
				limit = targetPodsMiB
			}
			add(ph.RSS <= limit<<20, mib(ph.RSS), "RSS ≤ %d MiB with %s%s", limit, ph.Label, note)
		}
		out = append(out, podWatchTarget(m.Phases))
	}
	out = append(out, nodesTargets(r.Nodes)...)
	out = append(out, binaryTargets(r.Binaries)...)
	for _, l := range r.Latency {
		add(l.Latency.P50 <= targetLatencyMs*time.Millisecond, ms(l.Latency.P50),
			"One resize on an idle cluster, p50 ≤ %d ms, at %s", targetLatencyMs, l.Setting.Name)
	}
	return out
}

// modifyTargets are the checks of the modify runs: the floor of
// writes, no GET of what the informers hold, every PV at the class its
// claim reports, and at the default budget a rate that only the budget
// limits.
func (r *results) modifyTargets() []target {
	var out []target
	add := func(met bool, measured, goal string, args ...any) {
		out = append(out, target{Goal: fmt.Sprintf(goal, args...), Measured: measured, Met: met})
	}
	for _, m := range r.Modify {
		out = append(out, writesTarget(&m.throughputResult, "modify", modifyWrites))
	}
	for _, m := range r.Modify {
		out = append(out, heldGetsTarget(&m.throughputResult, "PVCs, PVs, StorageClasses, VolumeAttributesClasses or pods", "modify at "+m.Setting.Name))
	}
	for _, m := range r.Modify {
		add(m.PVsAtTarget == m.N && m.DriverCalls == m.N && m.Volumes == m.N,
			fmt.Sprintf("%d of %d PVs at class %s; %d ControllerModifyVolume calls for %d volumes", m.PVsAtTarget, m.N, m.To, m.DriverCalls, m.Volumes),
			"Every PV at its claim's new class, one driver call per volume, modify at %s", m.Setting.Name)
	}
	for _, m := range r.Modify {
		if m.Setting.Name != "default" {
			continue
		}
		q := float64(m.Setting.QPS)
		want := targetRateShare * q / modifyWrites
		add(m.rate() >= want, fmt.Sprintf("%.3f modifies/s (%s for %d)", m.rate(), seconds(m.Wall), m.N),
			"Modify throughput at defaults ≥ %.2f × (%d QPS ÷ %.0f writes) = %.3f modifies/s", targetRateShare, m.Setting.QPS, modifyWrites, want)
	}
	return out
}

// podWatchTarget checks, from the audit log, that the resizer watched pods
// in the memory phases with an offline-only driver and in no other.
func podWatchTarget(phases []memoryPhase) target {
	met := true
	var seen []string
	for _, ph := range phases {
		met = met && ph.PodsWatched == ph.OfflineOnly
		seen = append(seen, fmt.Sprintf("%s: %s", ph.Label, map[bool]string{true: "watched", false: "not watched"}[ph.PodsWatched]))
	}
	return target{Goal: "Pods watched only with an offline-only driver (audit log, memory run)", Measured: strings.Join(seen, "; "), Met: met}
}

// binaryLimitMiB is the most each shipped binary may weigh.
var binaryLimitMiB = map[string]int64{"csi-resizer": 35, plugin: 25}

// binaryTargets check the size of each binary measured.
func binaryTargets(bins []binary) []target {
	var out []target
	for _, b := range bins {
		limit, ok := binaryLimitMiB[b.Name]
		if !ok {
			continue
		}
		out = append(out, target{Goal: fmt.Sprintf("Binary `%s` ≤ %d MiB", b.Name, limit),
			Measured: fmt.Sprintf("%s (%d bytes)", mib(b.Bytes), b.Bytes), Met: b.Bytes <= limit<<20})
	}
	return out
}

// nodesTargets check the node-deployment comparison: each instance's RSS
// at p50, and all instances' against the central resizer's.
func nodesTargets(n *nodesResult) []target {
	if n == nil || len(n.PerNode.RSS) == 0 || len(n.Central.RSS) == 0 {
		return nil
	}
	rss := slices.Clone(n.PerNode.RSS)
	slices.Sort(rss)
	p50, total, central := medianOf(rss), sum(rss), sum(n.Central.RSS)
	times := float64(total) / float64(central)
	return []target{
		{Goal: fmt.Sprintf("RSS of a `--node-deployment` instance ≤ %d MiB at p50 (%d instances)", targetNodeMiB, len(rss)),
			Measured: mib(p50), Met: p50 <= targetNodeMiB<<20},
		{Goal: fmt.Sprintf("RSS of all %d instances ≤ %d × the central resizer's", len(rss), targetNodesTimes),
			Measured: fmt.Sprintf("%.1f × (%s ÷ %s)", times, mib(total), mib(central)), Met: times <= targetNodesTimes},
	}
}
