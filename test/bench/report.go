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
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// results are everything one `bench` run measured.
type results struct {
	Machine    machine
	Command    string
	Throughput []*throughputResult
	Modify     []*modifyResult
	Latency    []*latencyResult
	Memory     *memoryResult
	Scrape     *scrapeResult
	Nodes      *nodesResult
	// Binaries are the sizes of the resizer and the plugin measured.
	Binaries []binary
}

// ms formats a duration in milliseconds, or seconds above ten seconds.
func ms(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// writeMarkdown writes the report as markdown, ready for
// docs/benchmarks.md.
func (r *results) writeMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("### Machine\n")
	p("| CPU | nproc | memory | kernel | Go | kube-apiserver |")
	p("|---|---|---|---|---|---|")
	m := r.Machine
	p("| %s | %d | %s | %s | %s | %s |\n", m.CPU, m.NProc, m.Memory, m.Kernel, m.Go, m.APIServer)
	p("Command: `%s`\n", r.Command)
	if len(r.Throughput) > 0 {
		r.throughputTables(p)
	}
	if len(r.Modify) > 0 {
		r.modifyTables(p)
	}
	if len(r.Latency) > 0 {
		r.latencyTable(p)
	}
	if r.Memory != nil {
		r.memoryTable(p)
	}
	if r.Scrape != nil {
		r.scrapeTable(p)
	}
	if r.Nodes != nil {
		r.nodesTables(p)
	}
	r.targetsTable(p)
}

func (r *results) throughputTables(p func(string, ...any)) {
	p("### Throughput: N claims grown at once, controller-only driver\n")
	p("| Setting | N | Wall time | Token-bucket floor | Resizes/s | Latency p50 / p95 / max | Writes/resize | Event writes/resize | Reads/resize | Driver calls/resize | Peak RSS | CPU for the resizes | CPU, whole process |")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, t := range r.Throughput {
		p("| %s | %d | %s | %s | %.2f | %s / %s / %s | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |",
			t.Setting, t.N, seconds(t.Wall), seconds(t.floor()), t.rate(), ms(t.Latency.P50), ms(t.Latency.P95), ms(t.Latency.Max),
			t.perResize(classWrite), t.perResize(classEvent), t.perResize(classRead),
			float64(t.DriverCalls)/float64(t.N), mib(t.Peak), seconds(t.CPU), seconds(t.CPUTotal))
	}
	p("")
	p("The token-bucket floor is (N × 3 writes − burst) ÷ QPS: no resizer making 3 writes a resize can finish sooner. Sending the N grows took %s. While claims were being resized:\n", growSpans(r.Throughput))
	whileTable(p, r.Throughput, "ControllerResizeError", "resize", "grows")
	requestsTable(p, r.Throughput, "resize")
	for _, t := range r.Throughput {
		p("Response codes at %s: %s. Driver calls: %d for %d volumes.\n", t.Setting.Name, codesCell(t.Requests), t.DriverCalls, t.Volumes)
	}
}

// whileTable writes what the resizer did while the claims of runs were
// being changed: its rates, the claims with the condition failed, its CPU
// and context switches per unit, and the watches the API server closed.
func whileTable(p func(string, ...any), runs []*throughputResult, failed, unit, changes string) {
	p("| Setting | Work requests/s (budget: QPS) | Event writes/s (own client) | Last event after last finished claim | Claims with %s | Resizer watches closed by the API server as unresponsive | Resizer's CPU per %s | Resizer's context switches per %s | Resizer's idle CPU before the %s | Other processes' CPU meanwhile |", failed, unit, unit, changes)
	p("|---|---|---|---|---|---|---|---|---|---|")
	for _, t := range runs {
		p("| %s | %.2f | %.2f | %s | %d | %s | %s | %.0f | %s per s | %s |", t.Setting, t.WorkRate, t.EventRate, ms(t.EventLag), t.Errors,
			closesCell(t.ForcedCloses), fmt.Sprintf("%.1f ms", float64(t.CPU)/float64(time.Millisecond)/float64(t.N)),
			float64(t.Switches)/float64(t.N), ms(t.IdleCPU), t.Foreign)
	}
	p("")
	for _, t := range runs {
		if t.OwnCloses > 0 {
			p("At %s the API server also closed the benchmark's own claim watch %d times: some finish times may be late by the time it took to watch again.\n", t.Setting.Name, t.OwnCloses)
		}
	}
}

// requestsTable writes the resizer's requests of each run by kind, in all
// and per operation (unit: "resize", "modify").
func requestsTable(p func(string, ...any), runs []*throughputResult, unit string) {
	p("#### API requests of the resizer, from the audit log\n")
	p("User `system:serviceaccount:%s:csi-resizer`, stage ResponseComplete, over the resizer's whole life (start-up included). Per-%s figures leave list and watch out.\n", resizerNamespace, unit)
	header, sep := "| Request | Class |", "|---|---|"
	for _, t := range runs {
		header += fmt.Sprintf(" %s: count | per %s |", t.Setting.Name, unit)
		sep += "---|---|"
	}
	p("%s\n%s", header, sep)
	var all tally
	all.ByKey = map[requestKey]int{}
	for _, t := range runs {
		for k, n := range t.Requests.ByKey {
			all.ByKey[k] += n
		}
	}
	for _, k := range all.keys() {
		row := fmt.Sprintf("| `%s` | %s |", k, classify(k))
		for _, t := range runs {
			n := t.Requests.ByKey[k]
			per := "–"
			if classify(k) != classListWatch {
				per = fmt.Sprintf("%.2f", float64(n)/float64(t.N))
			}
			row += fmt.Sprintf(" %d | %s |", n, per)
		}
		p("%s", row)
	}
	p("")
}

// codesCell lists the response codes of t, "count × code".
func codesCell(t tally) string {
	var codes []string
	for c, n := range t.ByCode {
		codes = append(codes, fmt.Sprintf("%d × %d", n, c))
	}
	slices.Sort(codes)
	return strings.Join(codes, ", ")
}

func (r *results) modifyTables(p func(string, ...any)) {
	m0 := r.Modify[0]
	p("### Modify: N claims change VolumeAttributesClass at once\n")
	p("Every claim starts in class `%s` (PV spec, claim spec and status) and its spec is switched to `%s`; the driver advertises MODIFY_VOLUME and answers at once. A claim is finished when it shows currentVolumeAttributesClassName = `%s`, no modifyVolumeStatus and no modify condition.\n", m0.From, m0.To, m0.To)
	p("| Setting | N | Wall time | Token-bucket floor | Modifies/s | Latency p50 / p95 / max | Writes/modify | Event writes/modify | Reads/modify | Driver calls/modify | PVs at the new class | Peak RSS | CPU for the modifies | CPU, whole process |")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, m := range r.Modify {
		p("| %s | %d | %s | %s | %.2f | %s / %s / %s | %.2f | %.2f | %.2f | %.2f | %d of %d | %s | %s | %s |",
			m.Setting, m.N, seconds(m.Wall), seconds(m.floor()), m.rate(), ms(m.Latency.P50), ms(m.Latency.P95), ms(m.Latency.Max),
			m.perResize(classWrite), m.perResize(classEvent), m.perResize(classRead),
			float64(m.DriverCalls)/float64(m.N), m.PVsAtTarget, m.N, mib(m.Peak), seconds(m.CPU), seconds(m.CPUTotal))
	}
	p("")
	p("The token-bucket floor is (N × %.0f writes − burst) ÷ QPS: no resizer making %.0f writes a modification can finish sooner. Writes per modification by kind (the floor is %.0f: the intent, the PV, the final claim status):\n", modifyWrites, modifyWrites, modifyWrites)
	header, sep := "| Setting |", "|---|"
	for _, k := range modifyKinds {
		header += fmt.Sprintf(" %s/modify (`%s`) |", strings.ToUpper(k.Label[:1])+k.Label[1:], k.Key)
		sep += "---|"
	}
	p("%s Other writes/modify | Writes/modify, events excluded |\n%s---|---|", header, sep)
	for _, m := range r.Modify {
		row := fmt.Sprintf("| %s |", m.Setting)
		for _, k := range modifyKinds {
			row += fmt.Sprintf(" %.2f |", float64(m.Requests.ByKey[k.Key])/float64(m.N))
		}
		p("%s %.2f | %.2f |", row, float64(otherWrites(m.Requests))/float64(m.N), m.perResize(classWrite))
	}
	p("")
	var runs []*throughputResult
	for _, m := range r.Modify {
		runs = append(runs, &m.throughputResult)
	}
	p("Sending the N class changes took %s. While claims were being modified:\n", growSpans(runs))
	whileTable(p, runs, "ModifyVolumeError", "modify", "changes")
	requestsTable(p, runs, "modify")
	for _, m := range r.Modify {
		p("Response codes at %s: %s. ControllerModifyVolume calls: %d for %d volumes.\n", m.Setting.Name, codesCell(m.Requests), m.DriverCalls, m.Volumes)
	}
}

func closesCell(closes map[string]int) string {
	var s []string
	for key, n := range closes {
		s = append(s, fmt.Sprintf("%d × `%s`", n, key))
	}
	if len(s) == 0 {
		return "0"
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}

func growSpans(ts []*throughputResult) string {
	var s []string
	for _, t := range ts {
		s = append(s, fmt.Sprintf("%s at %s", ms(t.GrowSpan), t.Setting.Name))
	}
	return strings.Join(s, ", ")
}

func (r *results) latencyTable(p func(string, ...any)) {
	p("### Single-resize latency on an idle cluster\n")
	p("Sequential resizes, each after the previous one finished and a pause that refills the token bucket; the driver answers at once.\n")
	p("| Setting | Resizes | p50 | p95 | max | Grow → driver call, p50 | Driver answer → claim finished, p50 | Resizer RSS with %d claims | Other processes' CPU meanwhile |", r.Latency[0].Latency.N)
	p("|---|---|---|---|---|---|---|---|---|")
	for _, l := range r.Latency {
		p("| %s | %d | %s | %s | %s | %s | %s | %s | %s |", l.Setting, l.Latency.N, ms(l.Latency.P50), ms(l.Latency.P95), ms(l.Latency.Max),
			ms(l.ToDriver.P50), ms(l.AfterDriver.P50), mib(l.Idle.RSS), l.Foreign)
	}
	p("")
}

func (r *results) memoryTable(p func(string, ...any)) {
	p("### Memory: the resizer's caches at rest\n")
	p("A fresh resizer (QPS 5 / burst 10) per line. RSS is VmRSS once three reads a second apart agree within 1%%: anonymous memory (heap, stacks) plus the pages of the binary mapped in (RssFile). Peak is VmHWM; Go heap is go_memstats_heap_inuse_bytes at that moment (live objects and garbage not yet collected); live heap is go_gc_heap_live_bytes, what the last collection found alive.\n")
	p("| Objects | Extra flags | Driver expands | Pods watched | Ready after | RSS | Anon / file | Go heap | Live heap | Peak RSS | CPU to sync | Writes |")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, ph := range r.Memory.Phases {
		p("| %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s | %d |", ph.Label, flagsCell(ph.Args),
			map[bool]string{true: "offline only", false: "online"}[ph.OfflineOnly], map[bool]string{true: "yes", false: "no"}[ph.PodsWatched],
			seconds(ph.Ready), mib(ph.RSS), mib(ph.Anon), mib(ph.File), mib(ph.HeapInuse), mib(ph.HeapLive), mib(ph.Peak), seconds(ph.CPU), ph.Writes)
	}
	p("")
}

func flagsCell(args []string) string {
	if len(args) == 0 {
		return "–"
	}
	return "`" + strings.Join(args, " ") + "`"
}

// target is one goal the benchmark checks (docs/benchmarks.md#targets) and
// what was measured.
type target struct {
	Goal, Measured string
	Met            bool
}

func (r *results) targetsTable(p func(string, ...any)) {
	ts := r.targets()
	if len(ts) == 0 {
		return
	}
	p("### Targets\n")
	p("| Target | Measured | Met |")
	p("|---|---|---|")
	for _, t := range ts {
		met := "yes"
		if !t.Met {
			met = "**no**"
		}
		p("| %s | %s | %s |", t.Goal, t.Measured, met)
	}
	p("")
}

// say prints a progress line on stderr; stdout carries the report.
func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%8s  %s\n", fmt.Sprintf("+%.1fs", time.Since(processStart).Seconds()), fmt.Sprintf(format, args...))
}

var processStart = time.Now()

// since is the time since start, rounded for printing.
func since(start time.Time) time.Duration { return time.Since(start).Round(time.Millisecond) }
