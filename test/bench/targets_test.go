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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTargets(t *testing.T) {
	requests := func(writes, events, secretGets, claimGets int) tally {
		return count(append(append(append(
			repeat(request{requestKey: requestKey{"patch", "persistentvolumes", ""}}, writes),
			repeat(request{requestKey: requestKey{"create", "events", ""}}, events)...),
			repeat(request{requestKey: requestKey{"get", "secrets", ""}}, secretGets)...),
			repeat(request{requestKey: requestKey{"get", "persistentvolumeclaims", ""}}, claimGets)...))
	}
	r := &results{
		Throughput: []*throughputResult{
			{Setting: knownSettings["default"], N: 500, Wall: 310 * time.Second, Requests: requests(1500, 1000, 500, 0),
				WorkRate: 4.9, EventRate: 3.2, CPU: 1500 * time.Millisecond},
			{Setting: knownSettings["fast"], N: 500, Wall: 14 * time.Second, Requests: requests(1600, 1000, 0, 3),
				CPU: 2500 * time.Millisecond},
		},
		Memory: &memoryResult{Pairs: 10000, Phases: []memoryPhase{
			{Label: "empty cluster", RSS: 26 << 20}, {Label: "10000 PVC+PV pairs", RSS: 59 << 20},
			{Label: "10000 PVC+PV pairs + 10000 running pods, online driver", RSS: 59 << 20},
			{Label: "10000 PVC+PV pairs + 10000 running pods, offline-only driver", RSS: 71 << 20, OfflineOnly: true, PodsWatched: true},
		}},
		Latency: []*latencyResult{{Setting: knownSettings["default"], Latency: summary{P50: 20 * time.Millisecond}}},
		Nodes: &nodesResult{Central: &nodesScenario{RSS: []int64{50 << 20}},
			PerNode: &nodesScenario{RSS: []int64{41 << 20, 39 << 20, 40 << 20, 30 << 20, 45 << 20}}},
		Binaries: []binary{{Name: "csi-resizer", Bytes: 35 << 20}, {Name: "kubectl-csi_resizer", Bytes: 25<<20 + 1}},
	}
	got := map[string]bool{}
	for _, tg := range r.targets() {
		got[tg.Goal] = tg.Met
	}
	want := map[string]bool{
		"Writes per controller-only resize, events excluded, at default: 3.0":            true,
		"Writes per controller-only resize, events excluded, at fast: 3.0":               false,
		"No GET of objects the informers hold, at default":                               true,
		"No GET of objects the informers hold, at fast":                                  false,
		"500 resizes at QPS 100 / burst 200 / 50 workers in ≤ 13.0 s":                    false,
		"CPU ≤ 2.0 s for 500 resizes at default":                                         true,
		"CPU ≤ 2.0 s for 500 resizes at fast":                                            false,
		"RSS ≤ 25 MiB on empty cluster":                                                  false,
		"RSS ≤ 60 MiB with 10000 PVC+PV pairs":                                           true,
		"RSS ≤ 60 MiB with 10000 PVC+PV pairs + 10000 running pods, online driver":       true,
		"RSS ≤ 70 MiB with 10000 PVC+PV pairs + 10000 running pods, offline-only driver": false,
		"Pods watched only with an offline-only driver (audit log, memory run)":          true,
		"One resize on an idle cluster, p50 ≤ 50 ms, at default":                         true,
		// p50 of 30, 39, 40, 41, 45 is 40; all five 195 MiB, 3.9 × 50.
		"RSS of a `--node-deployment` instance ≤ 40 MiB at p50 (5 instances)": true,
		"RSS of all 5 instances ≤ 15 × the central resizer's":                 true,
		"Binary `csi-resizer` ≤ 35 MiB":                                       true,
		"Binary `kubectl-csi_resizer` ≤ 25 MiB":                               false,
	}
	for goal, met := range want {
		if g, ok := got[goal]; !ok || g != met {
			t.Errorf("%q: met=%v (present: %v), want met=%v", goal, g, ok, met)
		}
	}
	for goal, met := range got {
		if strings.HasPrefix(goal, "Throughput at defaults") && !met {
			t.Errorf("%q not met at 500 in 310 s", goal)
		}
		if strings.HasPrefix(goal, "Events through their own client") && !met {
			t.Errorf("%q not met with 4.9 + 3.2 requests/s at 5 QPS", goal)
		}
	}
}

func repeat(r request, n int) []request {
	out := make([]request, n)
	for i := range out {
		out[i] = r
	}
	return out
}

func TestPodWatchTarget(t *testing.T) {
	tests := []struct {
		name   string
		phases []memoryPhase
		want   bool
	}{
		{name: "online not watched, offline-only watched", phases: []memoryPhase{{}, {OfflineOnly: true, PodsWatched: true}}, want: true},
		{name: "online driver watched", phases: []memoryPhase{{PodsWatched: true}, {OfflineOnly: true, PodsWatched: true}}},
		{name: "offline-only driver not watched", phases: []memoryPhase{{}, {OfflineOnly: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, got := range (&results{Memory: &memoryResult{Phases: tc.phases}}).targets() {
				if strings.HasPrefix(got.Goal, "Pods watched") && got.Met != tc.want {
					t.Errorf("met = %v, want %v (%s)", got.Met, tc.want, got.Measured)
				}
			}
		})
	}
}

func TestNodesTargetTotal(t *testing.T) {
	n := &nodesResult{Central: &nodesScenario{RSS: []int64{10 << 20}},
		PerNode: &nodesScenario{RSS: []int64{39 << 20, 39 << 20, 39 << 20, 39 << 20}}}
	for _, tg := range (&results{Nodes: n}).targets() {
		if strings.HasPrefix(tg.Goal, "RSS of all") && tg.Met {
			t.Errorf("%q met with 156 MiB against 10 MiB (%s)", tg.Goal, tg.Measured)
		}
	}
	if got := (&results{}).targets(); got != nil {
		t.Errorf("the targets of no run = %v, want none", got)
	}
}

func TestMeasureBinaries(t *testing.T) {
	dir := t.TempDir()
	resizer := filepath.Join(dir, "csi-resizer")
	if err := os.WriteFile(resizer, make([]byte, 1000), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := measureBinaries(resizer)
	if err != nil || len(got) != 1 || got[0] != (binary{Name: "csi-resizer", Bytes: 1000}) {
		t.Fatalf("measureBinaries without a plugin = %v, %v; want the resizer's 1000 bytes only", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, plugin), make([]byte, 10), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err = measureBinaries(resizer); err != nil || len(got) != 2 || got[1].Bytes != 10 {
		t.Fatalf("measureBinaries = %v, %v; want the plugin's 10 bytes too", got, err)
	}
	if _, err := measureBinaries(filepath.Join(dir, "missing")); err == nil {
		t.Error("measureBinaries of a missing resizer: no error")
	}
}
