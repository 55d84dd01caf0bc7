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
	"strconv"
	"strings"
	"time"
)

// countsList is "10,000 and 50,000".
func countsList(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, thousands(n))
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// thousands writes n with a comma every three digits, as the docs do.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fineMs formats a short duration in milliseconds with one decimal: a
// scrape takes a few.
func fineMs(d time.Duration) string {
	if d >= 10*time.Second {
		return ms(d)
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// sizeCell is the response's size as text and on the wire.
func sizeCell(row scrapeRow) string {
	kib := func(b int) string { return strconv.FormatFloat(float64(b)/1024, 'f', 1, 64) + " KiB" }
	return fmt.Sprintf("%s (%s gzipped)", kib(row.Bytes), kib(row.Gzipped))
}

func (r *results) scrapeTable(p func(string, ...any)) {
	p("### Scrape cost: GET /metrics with N claims, 1 in %d in a state\n", scrapeEvery)
	p("Bound PVC+PV pairs of the driver; one claim in %d is in node_pending, node_in_progress or node_infeasible in turn (the volume expanded, the file system not yet), which the resizer leaves to kubelet. A fresh resizer (QPS 5 / burst 10, no leader election) per line, once its queue is empty and `%s` has been checked to count every such claim; then %d scrapes after %d untimed ones, one after the other, gzip accepted as Prometheus does. Scrape times are the client's, request to last byte; the resizer's CPU (utime+stime) over the %d scrapes is divided by %d.\n",
		scrapeEvery, claimsMetric, scrapeTimed, scrapeWarmup, scrapeTimed, scrapeTimed)
	p("| Claims | In a state | Series of %s | Scrape p50 / p95 / max | Resizer CPU per scrape | Response size | Writes |", claimsMetric)
	p("|---|---|---|---|---|---|---|")
	for _, row := range r.Scrape.Rows {
		p("| %s | %s | %d | %s / %s / %s | %s | %s | %d |", thousands(row.Claims), thousands(row.Stated), row.Series,
			fineMs(row.Latency.P50), fineMs(row.Latency.P95), fineMs(row.Latency.Max), fineMs(row.CPU), sizeCell(row), row.Writes)
	}
	p("")
	var load []string
	for _, row := range r.Scrape.Rows {
		if row.Foreign != "" {
			load = append(load, fmt.Sprintf("%s with %s claims", row.Foreign, thousands(row.Claims)))
		}
	}
	if len(load) > 0 {
		p("Other processes' CPU during the timed scrapes: %s.\n", strings.Join(load, ", "))
	}
}
