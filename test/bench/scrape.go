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
	"context"
	"fmt"
	"time"
)

// The scrape mode measures one GET /metrics of a resizer whose
// caches hold many claims: csi_resizer_claims and
// csi_resizer_claim_oldest_seconds are computed at each scrape by going
// over every cached claim, so that scrape's cost grows with the claims.

const (
	// scrapeEvery: one claim in scrapeEvery is put in a state, the mix of
	// BenchmarkScrape's "typical" case in pkg/metrics.
	scrapeEvery = 10
	// scrapeWarmup scrapes are not timed: the first ones after start-up
	// grow the buffers the handler then reuses.
	scrapeWarmup = 3
	// scrapeTimed scrapes are timed, one after the other.
	scrapeTimed = 50
	// claimsMetric is the family whose series are checked and counted.
	claimsMetric = "csi_resizer_claims"
	// The size every claim is bound at, and the size a claim in a state
	// has been expanded to.
	scrapeSize, scrapeGrown = "1Gi", "2Gi"
	// handedOverAgo is how long ago the claims in a state entered it, so
	// that csi_resizer_claim_oldest_seconds has an age to report.
	handedOverAgo = 10 * time.Minute
)

// scrapeRow is the cost of a scrape with one number of claims.
type scrapeRow struct {
	Claims, Stated int
	// Series is the number of csi_resizer_claims series.
	Series int
	// Latency is the client's wall time of each timed scrape, request sent
	// to last byte read.
	Latency summary
	// CPU is the resizer's CPU time (utime+stime) over the timed scrapes,
	// divided by their number. It includes the resizer's idle CPU meanwhile
	// (about 1 ms a second).
	CPU time.Duration
	// Bytes is the size of the text, Gzipped what went over the wire.
	Bytes, Gzipped int
	// Writes is what the resizer wrote (no claim has work, so 0).
	Writes int
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

// scrapeResult is the scrape mode: one row per number of claims.
type scrapeResult struct {
	Rows []scrapeRow
}

// runScrape creates cfg.scrapeN[0] bound pairs, measures a fresh resizer's
// scrapes, then adds pairs up to each next count and measures again. The
// claims in a state entered it handedOverAgo before the first pair.
func runScrape(ctx context.Context, cfg *config) (*scrapeResult, error) {
	start := time.Now()
	say("== scrape: GET /metrics with %s claims, 1 in %d in a state", countsList(cfg.scrapeN), scrapeEvery)
	r, err := newRig(ctx, cfg, "scrape")
	if err != nil {
		return nil, err
	}
	defer r.close()
	res := &scrapeResult{}
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
		res.Rows = append(res.Rows, row)
	}
	say("  scrape mode took %s", since(start))
	return res, nil
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
func (r *rig) timeScrapes(ctx context.Context, row *scrapeRow, nproc int) error {
	for range scrapeWarmup {
		if _, _, _, err := r.scrape(ctx); err != nil {
			return err
		}
	}
	load, err := takeCPUSnapshot()
	if err != nil {
		return err
	}
	before, err := r.usage()
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
	after, err := r.usage()
	if err != nil {
		return err
	}
	end, err := takeCPUSnapshot()
	if err != nil {
		return err
	}
	row.Foreign = foreignLoad(load, end, max(1, nproc))
	row.record(times, before, after)
	return nil
}
