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

// nodesTables writes the node-deployment comparison: one column per
// scenario.
func (r *results) nodesTables(p func(string, ...any)) {
	n := r.Nodes
	c, pn := n.Central, n.PerNode
	// The heading's anchor, #node-deployment, is linked from the README.
	p("### Node deployment\n")
	pods := ""
	if n.Pods > 0 {
		pods = fmt.Sprintf(" and %s running pods, each using one claim on the claim's node", thousands(n.Pods))
	}
	p("%s bound claims%s; claim i is on node-(i mod %d), and its PV is pinned there by required node affinity (`kubernetes.io/hostname` In [node-k]). %d Nodes exist (no kubelet). Creating them took %s. "+
		"On the same control plane and objects, one resizer of the whole cluster grows every claim once (1Gi → 2Gi), then %d resizers with `--node-deployment`, each with `NODE_NAME` of its node and a user of its own, grow every claim again (→ 3Gi); all use the same CSI mock driver socket. "+
		"Each scenario: start, wait until every instance is ready with an empty queue; grow every claim (%d goroutines) and wait until each is finished and every event written; watch it idle for %s; stop it.\n",
		thousands(n.N), pods, n.Nodes, n.Nodes, n.Create.Round(time.Second), n.Nodes, n.Creators, c.Idle.Wall.Round(time.Second))
	p("The control plane idle before any resizer ran (the benchmark's own claim watch open): kube-apiserver %s and etcd %s of CPU in %s; %d watches open, the API server's own included.\n",
		seconds(n.Baseline.APIServer), seconds(n.Baseline.Etcd), n.Baseline.Wall.Round(time.Second), n.BaselineWatches)
	p("| | %s | %s |", c.Label, pn.Label)
	p("|---|---|---|")
	row := func(what string, f func(s *nodesScenario) string) { p("| %s | %s | %s |", what, f(c), f(pn)) }
	// phaseRow is a row of what cell says of the start-up, the wave and the idle window.
	phaseRow := func(what string, cell func(ph phase) string) {
		row(what+": start-up / wave / idle", func(s *nodesScenario) string {
			return fmt.Sprintf("%s / %s / %s", cell(s.Startup), cell(s.Wave), cell(s.Idle))
		})
	}
	row("Setting of each instance", func(s *nodesScenario) string { return s.Setting.String() })
	row("RSS per instance (end of the idle window)", func(s *nodesScenario) string { return spread(s.RSS) })
	row("RSS, all instances", func(s *nodesScenario) string { return mib(sum(s.RSS)) })
	row("Anonymous memory (heap, stacks), all instances", func(s *nodesScenario) string { return mib(sum(s.Anon)) })
	row("PSS, all instances (pages of the binary shared among them)", func(s *nodesScenario) string { return mib(sum(s.PSS)) })
	row("Peak RSS per instance", func(s *nodesScenario) string { return spread(s.Peak) })
	row("Start → /readyz per instance", func(s *nodesScenario) string { return durSpread(s.Ready) })
	row("Start → every instance ready and idle", func(s *nodesScenario) string { return seconds(s.Startup.Wall) })
	row("Watches the resizers opened (kube-apiserver `apiserver_longrunning_requests{verb=\"WATCH\"}`, after − before)", func(s *nodesScenario) string {
		return fmt.Sprintf("%d (%s); at the end of the idle window: %d", s.Watches, s.Added, s.IdleWatches)
	})
	row("kube-apiserver CPU: start-up (lists and sync)", func(s *nodesScenario) string { return seconds(s.Startup.APIServer) })
	row("kube-apiserver CPU: resize wave", func(s *nodesScenario) string { return seconds(s.Wave.APIServer) })
	row("kube-apiserver CPU: idle window", func(s *nodesScenario) string {
		return fmt.Sprintf("%s in %s", seconds(s.Idle.APIServer), s.Idle.Wall.Round(time.Second))
	})
	phaseRow("etcd CPU", func(ph phase) string { return seconds(ph.Etcd) })
	phaseRow("Resizers' CPU, all instances", func(ph phase) string { return seconds(ph.Resizers) })
	phaseRow("Watch events sent by kube-apiserver", func(ph phase) string {
		return fmt.Sprintf("%s (%s)", thousands(int(ph.WatchEvents)), mib(int64(ph.WatchBytes)))
	})
	row("kube-apiserver RSS at the end of the idle window (it holds every object and event made so far)", func(s *nodesScenario) string { return mib(s.APIServerRSS) })
	row("Wave: first grow → last claim finished", func(s *nodesScenario) string { return seconds(s.Wave.Wall) })
	row("Token-bucket floor of the wave (3 writes a claim, per instance)", func(s *nodesScenario) string { return seconds(s.floor(n.N)) })
	row("Sending the grows took", func(s *nodesScenario) string { return ms(s.GrowSpan) })
	row("Latency p50 / p95 / max (grow → finished)", func(s *nodesScenario) string {
		return fmt.Sprintf("%s / %s / %s", ms(s.Latency.P50), ms(s.Latency.P95), ms(s.Latency.Max))
	})
	row("ControllerExpandVolume calls of the wave", func(s *nodesScenario) string {
		return fmt.Sprintf("%s for %s volumes", thousands(s.DriverCalls), thousands(s.Volumes))
	})
	row("Claims with ControllerResizeError", func(s *nodesScenario) string { return fmt.Sprint(s.Errors) })
	row("Event writes (2 a resize: "+thousands(2*n.N)+")", func(s *nodesScenario) string { return thousands(s.Requests.ByClass[classEvent]) })
	row("Responses other than 2xx, all requests", func(s *nodesScenario) string { return failedCodes(s.Requests) })
	row("Requests in the idle window", func(s *nodesScenario) string { return requestsCell(s.IdleRequests) })
	row("Fresh node Leases in the idle window", func(s *nodesScenario) string {
		if s.Instances == 1 {
			return "–"
		}
		return fmt.Sprintf("%d of %d", s.Leases, s.Instances)
	})
	row("**Writes by an instance that does not own the object** (claims, PVs, their events, node Leases; audit log)", func(s *nodesScenario) string {
		o := s.Ownership
		if o == nil {
			return "– (one writer)"
		}
		refused := ""
		if len(o.RefusedCodes) > 0 {
			refused = ": " + strings.Join(counts(o.RefusedCodes, "%d × %d"), ", ")
		}
		text := fmt.Sprintf("**%d** of %s writes (%s to their own node's objects, %d to no node's, %d refused before naming an object%s); %s claims written by their owner",
			o.Foreign, thousands(o.Writes), thousands(o.Own), o.Unknown, o.Refused, refused, thousands(o.ClaimsByOwner))
		if len(o.UnknownSamples) > 0 {
			text += "; no node's: " + strings.Join(o.UnknownSamples, "; ")
		}
		return text
	})
	row("Resizer watches closed by kube-apiserver as unresponsive", func(s *nodesScenario) string { return fmt.Sprint(s.ForcedCloses) })
	phaseRow("Other processes' CPU", func(ph phase) string { return ph.Foreign })
	p("")
	p("#### API requests of the resizers, from the audit log\n")
	p("Every instance's requests over its whole life, start-up and idle window included, summed over the instances.\n")
	p("| Request | Class | %s | %s |", c.Label, pn.Label)
	p("|---|---|---|---|")
	for _, k := range kinds(c.Requests, pn.Requests) {
		p("| `%s` | %s | %d | %d |", k, classify(k), c.Requests.ByKey[k], pn.Requests.ByKey[k])
	}
	p("")
}

// failedCodes lists the responses of t that are not 2xx, "count × code".
func failedCodes(t tally) string {
	failed := map[int]int{}
	for code, n := range t.ByCode {
		if code < 200 || code > 299 {
			failed[code] = n
		}
	}
	if len(failed) == 0 {
		return "none"
	}
	return strings.Join(counts(failed, "%d × %d"), ", ")
}

// spread is one value, or "p50 x / max y" of several.
func spread(vs []int64) string {
	if len(vs) < 2 {
		return map[bool]string{true: "–", false: mib(sum(vs))}[len(vs) == 0]
	}
	s := slices.Sorted(slices.Values(vs))
	return fmt.Sprintf("p50 %s / max %s", mib(s[(len(s)+1)/2-1]), mib(s[len(s)-1]))
}

// durSpread is one duration, or "p50 x / max y" of several.
func durSpread(s summary) string {
	if s.N == 1 {
		return seconds(s.Max)
	}
	return fmt.Sprintf("p50 %s / max %s", seconds(s.P50), seconds(s.Max))
}

func sum(vs []int64) int64 {
	var t int64
	for _, v := range vs {
		t += v
	}
	return t
}

// requestsCell lists the requests of t as "count × kind", by kind.
func requestsCell(t tally) string {
	var parts []string
	for _, k := range kinds(t) {
		parts = append(parts, fmt.Sprintf("%d × `%s`", t.ByKey[k], k))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
