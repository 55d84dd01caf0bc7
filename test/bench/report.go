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
	"math"
	"os"
	"slices"
	"strconv"
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
	Scrape     []scrapeRow // one per number of claims
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

// fineMs is ms with one decimal: a scrape takes a few.
func fineMs(d time.Duration) string {
	if d >= 10*time.Second {
		return ms(d)
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// mib formats bytes as MiB with one decimal.
func mib(b int64) string {
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB"
}

// thousands writes n with a comma every three digits, as the docs do.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// counts lists m as format of each count and key ("%d × %d"), sorted.
func counts[K comparable](m map[K]int, format string) []string {
	var s []string
	for k, n := range m {
		s = append(s, fmt.Sprintf(format, n, k))
	}
	slices.Sort(s)
	return s
}

// writeMarkdown writes the report as markdown, ready for docs/benchmarks.md.
func (r *results) writeMarkdown(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("### Machine\n")
	p("| CPU | nproc | memory | kernel | Go | kube-apiserver |")
	p("|---|---|---|---|---|---|")
	m := r.Machine
	p("| %s | %d | %s | %s | %s | %s |\n", m.CPU, m.NProc, m.Memory, m.Kernel, m.Go, m.APIServer)
	p("Command: `%s`\n", r.Command)
	if len(r.Throughput) > 0 {
		p("### Throughput: N claims grown at once, controller-only driver\n")
		batchTable(p, r.Throughput, "Resizes", "resize", "resizes", "", nil)
		batchDetails(p, r.Throughput, "The token-bucket floor is (N × 3 writes − burst) ÷ QPS: no resizer making 3 writes a resize can finish sooner. ",
			"grows", "resized", "ControllerResizeError", "resize", "grows", "Driver calls")
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
	if len(r.Scrape) > 0 {
		r.scrapeTable(p)
	}
	if r.Nodes != nil {
		r.nodesTables(p)
	}
	if ts := r.targets(); len(ts) > 0 {
		p("### Targets\n")
		p("| Target | Measured | Met |")
		p("|---|---|---|")
		for _, t := range ts {
			p("| %s | %s | %s |", t.Goal, t.Measured, map[bool]string{true: "yes", false: "**no**"}[t.Met])
		}
		p("")
	}
}

// batchTable writes the main table of batch runs: Rate is the rate's
// column ("Resizes"), unit one change ("resize"), units several; extra is
// a column more, whose cells cell(i) gives.
func batchTable(p func(string, ...any), runs []*throughputResult, rate, unit, units, extra string, cell func(i int) string) {
	p("| Setting | N | Wall time | Token-bucket floor | %s/s | Latency p50 / p95 / max | Writes/%s | Event writes/%s | Reads/%s | Driver calls/%s |%s Peak RSS | CPU for the %s | CPU, whole process |",
		rate, unit, unit, unit, unit, extra, units)
	p("|---|---|---|---|---|---|---|---|---|---|%s---|---|---|", strings.Repeat("---|", strings.Count(extra, "|")))
	for i, t := range runs {
		c := ""
		if cell != nil {
			c = cell(i)
		}
		p("| %s | %d | %s | %s | %.2f | %s / %s / %s | %.2f | %.2f | %.2f | %.2f |%s %s | %s | %s |",
			t.Setting, t.N, seconds(t.Wall), seconds(t.Setting.floor(t.N)), t.rate(), ms(t.Latency.P50), ms(t.Latency.P95), ms(t.Latency.Max),
			t.perResize(classWrite), t.perResize(classEvent), t.perResize(classRead),
			float64(t.DriverCalls)/float64(t.N), c, mib(t.Peak), seconds(t.CPU), seconds(t.CPUTotal))
	}
	p("")
}

// batchDetails writes what follows: how long sending the changes (sent)
// took after intro, what the resizer did while claims were being changed
// (done) with the claims with the condition failed, its requests per unit,
// and the response codes and driver calls.
func batchDetails(p func(string, ...any), runs []*throughputResult, intro, sent, done, failed, unit, changes, calls string) {
	var spans []string
	for _, t := range runs {
		spans = append(spans, fmt.Sprintf("%s at %s", ms(t.GrowSpan), t.Setting.Name))
	}
	p("%sSending the N %s took %s. While claims were being %s:\n", intro, sent, strings.Join(spans, ", "), done)
	p("| Setting | Work requests/s (budget: QPS) | Event writes/s (own client) | Last event after last finished claim | Claims with %s | Resizer watches closed by the API server as unresponsive | Resizer's CPU per %s | Resizer's context switches per %s | Resizer's idle CPU before the %s | Other processes' CPU meanwhile |", failed, unit, unit, changes)
	p("|---|---|---|---|---|---|---|---|---|---|")
	for _, t := range runs {
		closes := "0"
		if len(t.ForcedCloses) > 0 {
			closes = strings.Join(counts(t.ForcedCloses, "%d × `%s`"), ", ")
		}
		p("| %s | %.2f | %.2f | %s | %d | %s | %s | %.0f | %s per s | %s |", t.Setting, t.WorkRate, t.EventRate, ms(t.EventLag), t.Errors,
			closes, fmt.Sprintf("%.1f ms", float64(t.CPU)/float64(time.Millisecond)/float64(t.N)),
			float64(t.Switches)/float64(t.N), ms(t.IdleCPU), t.Foreign)
	}
	p("")
	for _, t := range runs {
		if t.OwnCloses > 0 {
			p("At %s the API server also closed the benchmark's own claim watch %d times: some finish times may be late by the time it took to watch again.\n", t.Setting.Name, t.OwnCloses)
		}
	}
	p("#### API requests of the resizer, from the audit log\n")
	p("User `system:serviceaccount:%s:csi-resizer`, stage ResponseComplete, over the resizer's whole life (start-up included). Per-%s figures leave list and watch out.\n", resizerNamespace, unit)
	header, sep, tallies := "| Request | Class |", "|---|---|", []tally{}
	for _, t := range runs {
		header += fmt.Sprintf(" %s: count | per %s |", t.Setting.Name, unit)
		sep += "---|---|"
		tallies = append(tallies, t.Requests)
	}
	p("%s\n%s", header, sep)
	for _, k := range kinds(tallies...) {
		row := fmt.Sprintf("| `%s` | %s |", k, classify(k))
		for _, t := range runs {
			n, per := t.Requests.ByKey[k], "–"
			if classify(k) != classListWatch {
				per = fmt.Sprintf("%.2f", float64(n)/float64(t.N))
			}
			row += fmt.Sprintf(" %d | %s |", n, per)
		}
		p("%s", row)
	}
	p("")
	for _, t := range runs {
		p("Response codes at %s: %s. %s: %d for %d volumes.\n", t.Setting.Name, strings.Join(counts(t.Requests.ByCode, "%d × %d"), ", "), calls, t.DriverCalls, t.Volumes)
	}
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
		flags := "–"
		if len(ph.Args) > 0 {
			flags = "`" + strings.Join(ph.Args, " ") + "`"
		}
		p("| %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s | %d |", ph.Label, flags,
			map[bool]string{true: "offline only", false: "online"}[ph.OfflineOnly], map[bool]string{true: "yes", false: "no"}[ph.PodsWatched],
			seconds(ph.Ready), mib(ph.RSS), mib(ph.Anon), mib(ph.File), mib(ph.HeapInuse), mib(ph.HeapLive), mib(ph.Peak), seconds(ph.CPU), ph.Writes)
	}
	p("")
}

// target is one goal the benchmark checks (docs/benchmarks.md#targets) and
// what was measured.
type target struct {
	Goal, Measured string
	Met            bool
}

// say prints a progress line on stderr; stdout carries the report.
func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%8s  %s\n", fmt.Sprintf("+%.1fs", time.Since(processStart).Seconds()), fmt.Sprintf(format, args...))
}

var processStart = time.Now()

// since is the time since start, rounded for printing.
func since(start time.Time) time.Duration { return time.Since(start).Round(time.Millisecond) }

// summary is the distribution of a set of durations.
type summary struct {
	N             int
	P50, P95, Max time.Duration
}

// summarize describes ds; ds itself is left unsorted.
func summarize(ds []time.Duration) summary {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return summary{}
	}
	return summary{N: len(s), P50: percentile(s, 50), P95: percentile(s, 95), Max: s[len(s)-1]}
}

// percentile is the nearest-rank percentile p (0 < p <= 100) of sorted: the
// smallest value with at least p% of the values at or below it.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// p*n is exact for whole p, so 95% of 20 is rank 19, not 20.
	rank := int(math.Ceil(p * float64(len(sorted)) / 100))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}
