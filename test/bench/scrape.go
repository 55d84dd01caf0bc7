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
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The scrape mode measures one GET /metrics of a resizer whose caches hold
// many claims: csi_resizer_claims and csi_resizer_claim_oldest_seconds go
// over every cached claim at each scrape, so its cost grows with them.
const (
	// One claim in scrapeEvery is put in a state, the mix of
	// BenchmarkScrape's "typical" case in pkg/metrics.
	scrapeEvery = 10
	// scrapeWarmup scrapes are not timed: the first ones after start-up
	// grow the buffers the handler then reuses. scrapeTimed are, in turn.
	scrapeWarmup, scrapeTimed = 3, 50
	claimsMetric              = "csi_resizer_claims" // the family checked and counted
	// The size every claim is bound at, and that a claim in a state has
	// been expanded to.
	scrapeSize, scrapeGrown = "1Gi", "2Gi"
	// handedOverAgo is how long ago the claims in a state entered it, so
	// that csi_resizer_claim_oldest_seconds has an age to report.
	handedOverAgo = 10 * time.Minute
)

// scrapeRow is the cost of a scrape with one number of claims.
type scrapeRow struct {
	Claims, Stated int
	Series         int // csi_resizer_claims series
	// Latency is the client's time of each timed scrape, request sent to
	// last byte read; CPU the resizer's (utime+stime) over them divided by
	// their number, its idle CPU included (about 1 ms a second).
	Latency summary
	CPU     time.Duration
	// Bytes is the size of the text, Gzipped what went over the wire.
	Bytes, Gzipped int
	Writes         int // what the resizer wrote (no claim has work, so 0)
	// Foreign is the other processes' CPU during the timed scrapes: a busy
	// machine slows them.
	Foreign string
}

// record fills the timing columns from the timed scrapes and the resizer's
// usage before and after them.
func (row *scrapeRow) record(times []time.Duration, before, after procUsage) {
	row.Latency = summarize(times)
	if len(times) > 0 {
		row.CPU = (after.CPU - before.CPU) / time.Duration(len(times))
	}
}

// runScrape creates cfg.scrapeN[0] bound pairs, measures a fresh resizer's
// scrapes, then adds pairs up to each next count and measures again. The
// claims in a state entered it handedOverAgo before the first pair.
func runScrape(ctx context.Context, cfg *config) ([]scrapeRow, error) {
	start := time.Now()
	say("== scrape: GET /metrics with %s claims, 1 in %d in a state", countsList(cfg.scrapeN), scrapeEvery)
	r, err := newRig(ctx, cfg, "scrape", framework.DriverOptions{})
	if err != nil {
		return nil, err
	}
	defer r.close()
	var rows []scrapeRow
	handedOver := time.Now().Add(-handedOverAgo)
	have := 0
	for _, n := range cfg.scrapeN {
		if err := createScrapePairs(ctx, r.admin, have, n, cfg.creators, handedOver); err != nil {
			return nil, err
		}
		have = n
		row, err := measureScrape(ctx, r, cfg, n)
		if err != nil {
			return nil, fmt.Errorf("%d claims: %w", n, err)
		}
		rows = append(rows, row)
	}
	say("  scrape mode took %s", since(start))
	return rows, nil
}

// measureScrape starts a resizer (default settings, no leader election, so
// it reports the claims once its caches synced), waits until it idles,
// checks that csi_resizer_claims counts every claim put in a state, times
// scrapeTimed scrapes after scrapeWarmup, and stops it.
func measureScrape(ctx context.Context, r *rig, cfg *config, n int) (scrapeRow, error) {
	want := expectedStates(n)
	row := scrapeRow{Claims: n, Stated: total(want)}
	tail, err := r.auditTail()
	if err != nil {
		return row, err
	}
	if err := r.startIdle(ctx, knownSettings["default"], cfg.resizerArgs...); err != nil {
		return row, err
	}
	if row.Series, err = r.checkClaims(ctx, want); err != nil {
		return row, err
	}
	if err := r.timeScrapes(ctx, &row, cfg.nproc); err != nil {
		return row, err
	}
	if err := r.stopResizer(); err != nil {
		return row, err
	}
	if err := settle(ctx, tail); err != nil {
		return row, err
	}
	t := count(tail.requests)
	row.Writes = t.ByClass[classWrite] + t.ByClass[classEvent]
	say("  %d claims, %d in a state: scrape p50 %s, p95 %s, max %s; resizer CPU %s a scrape; %s; %d writes; other processes' CPU meanwhile %s",
		n, row.Stated, fineMs(row.Latency.P50), fineMs(row.Latency.P95), fineMs(row.Latency.Max), fineMs(row.CPU), sizeCell(row), row.Writes, row.Foreign)
	return row, nil
}

// timeScrapes scrapes scrapeWarmup times, then times scrapeTimed scrapes
// and reads the resizer's CPU around them, and the other processes'.
func (r *rig) timeScrapes(ctx context.Context, row *scrapeRow, nproc int) (err error) {
	for range scrapeWarmup {
		if _, _, _, err := r.scrape(ctx); err != nil {
			return err
		}
	}
	row.Foreign, err = around(max(1, nproc), func() error {
		before, err := r.resizer.usage()
		if err != nil {
			return err
		}
		times := make([]time.Duration, 0, scrapeTimed)
		for range scrapeTimed {
			took, wire, text, err := r.scrape(ctx)
			if err != nil {
				return err
			}
			times = append(times, took)
			row.Bytes, row.Gzipped = len(text), wire
		}
		after, err := r.resizer.usage()
		row.record(times, before, after)
		return err
	})
	return err
}

// scrape fetches /metrics once as Prometheus does, with gzip accepted (the
// handler then compresses, which is part of the cost), and returns the
// time from request to last byte, the bytes on the wire and the text.
// Asking for the encoding ourselves keeps the transport from decompressing
// it, so that the wire size is known.
func (r *rig) scrape(ctx context.Context) (time.Duration, int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.resizer.addr+"/metrics", nil)
	if err != nil {
		return 0, 0, nil, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return 0, 0, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, nil, fmt.Errorf("/metrics answered %d", resp.StatusCode)
	}
	text, err := decode(body, resp.Header.Get("Content-Encoding"))
	return took, len(body), text, err
}

// decode returns the text of a response body in encoding.
func decode(body []byte, encoding string) ([]byte, error) {
	switch encoding {
	case "", "identity":
		return body, nil
	case "gzip":
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(z)
	}
	return nil, fmt.Errorf("/metrics answered in encoding %q, not asked for", encoding)
}

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
	for _, row := range r.Scrape {
		p("| %s | %s | %d | %s / %s / %s | %s | %s | %d |", thousands(row.Claims), thousands(row.Stated), row.Series,
			fineMs(row.Latency.P50), fineMs(row.Latency.P95), fineMs(row.Latency.Max), fineMs(row.CPU), sizeCell(row), row.Writes)
	}
	p("")
	var load []string
	for _, row := range r.Scrape {
		if row.Foreign != "" {
			load = append(load, fmt.Sprintf("%s with %s claims", row.Foreign, thousands(row.Claims)))
		}
	}
	if len(load) > 0 {
		p("Other processes' CPU during the timed scrapes: %s.\n", strings.Join(load, ", "))
	}
}
