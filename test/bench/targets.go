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
	"os"
	"path/filepath"
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

// writesTarget is the target of at most floor writes per change (what)
// in run t, events excluded.
func writesTarget(add func(bool, string, string, ...any), t *throughputResult, what string, floor float64) {
	w := t.perResize(classWrite)
	add(w <= floor+1e-9, fmt.Sprintf("%.2f", w), "Writes per %s, events excluded, at %s: %.1f", what, t.Setting.Name, floor)
}

// heldGetsTarget is the target of no GET in run t of the objects the
// informers hold (kinds names them), at where.
func heldGetsTarget(add func(bool, string, string, ...any), t *throughputResult, kinds, where string) {
	gets, other := 0, map[requestKey]int{}
	for k, n := range t.Requests.ByKey {
		switch {
		case k.Verb != "get":
		case informerHeld[k.Resource]:
			gets += n
		default:
			other[k] = n
		}
	}
	measured := fmt.Sprintf("%d GETs of %s; %d reads in all", gets, kinds, t.Requests.ByClass[classRead])
	if len(other) > 0 {
		measured += " (" + strings.Join(counts(other, "%d × `%s`"), ", ") + ")"
	}
	add(gets == 0, measured, "No GET of objects the informers hold, %s", where)
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
		writesTarget(add, t, "controller-only resize", targetWrites)
	}
	for _, t := range r.Throughput {
		heldGetsTarget(add, t, "PVCs, PVs, StorageClasses or pods", "at "+t.Setting.Name)
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
		add(t.Wall.Seconds() <= limit, fmt.Sprintf("%s (token-bucket floor %s)", seconds(t.Wall), seconds(t.Setting.floor(t.N))), "%d resizes at QPS 100 / burst 200 / 50 workers in ≤ %.1f s%s", t.N, limit, scaled(t.N))
	}
	for _, t := range r.Throughput {
		limit := targetCPU * float64(t.N) / targetN
		add(t.CPU.Seconds() <= limit, fmt.Sprintf("%s (whole process: %s)", seconds(t.CPU), seconds(t.CPUTotal)),
			"CPU ≤ %.1f s for %d resizes at %s%s", limit, t.N, t.Setting.Name, scaled(t.N))
	}
	r.modifyTargets(add)
	if m := r.Memory; m != nil {
		note := ""
		if m.Pairs != targetMemoryObjs {
			note = fmt.Sprintf(" (run with %d, not %d)", m.Pairs, targetMemoryObjs)
		}
		empty := m.Phases[0]
		add(empty.RSS <= targetEmptyMiB<<20, mib(empty.RSS), "RSS ≤ %d MiB on %s", targetEmptyMiB, empty.Label)
		for _, ph := range m.Phases[1:] {
			// Only an offline-only driver's resizer caches the pods.
			limit := int64(targetPairsMiB)
			if ph.OfflineOnly && strings.Contains(ph.Label, "pods") {
				limit = targetPodsMiB
			}
			add(ph.RSS <= limit<<20, mib(ph.RSS), "RSS ≤ %d MiB with %s%s", limit, ph.Label, note)
		}
		// The resizer watched pods with an offline-only driver, in no other phase.
		met, seen := true, []string{}
		for _, ph := range m.Phases {
			met = met && ph.PodsWatched == ph.OfflineOnly
			seen = append(seen, fmt.Sprintf("%s: %s", ph.Label, map[bool]string{true: "watched", false: "not watched"}[ph.PodsWatched]))
		}
		add(met, strings.Join(seen, "; "), "Pods watched only with an offline-only driver (audit log, memory run)")
	}
	if n := r.Nodes; n != nil && len(n.PerNode.RSS) > 0 && len(n.Central.RSS) > 0 {
		rss := slices.Sorted(slices.Values(n.PerNode.RSS))
		p50, total, central := rss[(len(rss)+1)/2-1], sum(rss), sum(n.Central.RSS)
		times := float64(total) / float64(central)
		add(p50 <= targetNodeMiB<<20, mib(p50), "RSS of a `--node-deployment` instance ≤ %d MiB at p50 (%d instances)", targetNodeMiB, len(rss))
		add(times <= targetNodesTimes, fmt.Sprintf("%.1f × (%s ÷ %s)", times, mib(total), mib(central)),
			"RSS of all %d instances ≤ %d × the central resizer's", len(rss), targetNodesTimes)
	}
	for _, b := range r.Binaries {
		if limit, ok := binaryLimitMiB[b.Name]; ok {
			add(b.Bytes <= limit<<20, fmt.Sprintf("%s (%d bytes)", mib(b.Bytes), b.Bytes), "Binary `%s` ≤ %d MiB", b.Name, limit)
		}
	}
	for _, l := range r.Latency {
		add(l.Latency.P50 <= targetLatencyMs*time.Millisecond, ms(l.Latency.P50),
			"One resize on an idle cluster, p50 ≤ %d ms, at %s", targetLatencyMs, l.Setting.Name)
	}
	return out
}

// plugin is the kubectl plugin's file name, which `make build` writes next
// to the resizer's.
const plugin = "kubectl-csi_resizer"

// binary is the size of one shipped binary, as `make build` writes it
// (stripped).
type binary struct {
	Name  string
	Bytes int64
}

// measureBinaries stats the resizer binary and the plugin beside it; a
// missing plugin is left out.
func measureBinaries(resizer string) ([]binary, error) {
	var out []binary
	for _, path := range []string{resizer, filepath.Join(filepath.Dir(resizer), plugin)} {
		fi, err := os.Stat(path)
		switch {
		case os.IsNotExist(err) && path != resizer:
			continue
		case err != nil:
			return nil, fmt.Errorf("binary size: %w", err)
		}
		out = append(out, binary{Name: filepath.Base(path), Bytes: fi.Size()})
	}
	return out, nil
}

// binaryLimitMiB is the most each shipped binary may weigh.
var binaryLimitMiB = map[string]int64{"csi-resizer": 35, plugin: 25}
