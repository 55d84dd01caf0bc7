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
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-resizer/csi-resizer/pkg/unfinished"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
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

// nodeState is a state in which kubelet owns the volume: the resizer has
// expanded it and leaves the claim alone, so it makes no write for it
// (pkg/resize's kubeletOwns and nodeInfeasibleUnchanged).
type nodeState struct {
	Status v1.ClaimResourceStatus
	// State is what csi_resizer_claims counts it as.
	State unfinished.State
	// Condition is the condition the claim carries in it: the resizer's
	// FileSystemResizePending when it hands the volume over (kubelet
	// keeps it while it grows the file system), kubelet's NodeResizeError
	// when it finds the size infeasible (it replaces the others).
	Condition v1.PersistentVolumeClaimConditionType
}

// nodeStates are the states the claims in a state take in turn.
var nodeStates = []nodeState{
	{v1.PersistentVolumeClaimNodeResizePending, unfinished.NodePending, v1.PersistentVolumeClaimFileSystemResizePending},
	{v1.PersistentVolumeClaimNodeResizeInProgress, unfinished.NodeInProgress, v1.PersistentVolumeClaimFileSystemResizePending},
	{v1.PersistentVolumeClaimNodeResizeInfeasible, unfinished.NodeInfeasible, v1.PersistentVolumeClaimNodeResizeError},
}

// stateOf returns the state the i-th claim is put in; false for the nine
// claims in ten left as they were bound.
func stateOf(i int) (nodeState, bool) {
	if i%scrapeEvery != 0 {
		return nodeState{}, false
	}
	return nodeStates[(i/scrapeEvery)%len(nodeStates)], true
}

// expectedStates counts the claims 0 to n-1 by the state they are put in.
func expectedStates(n int) map[unfinished.State]int {
	want := map[unfinished.State]int{}
	for i := range n {
		if st, ok := stateOf(i); ok {
			want[st.State]++
		}
	}
	return want
}

// setNodeState puts pvc, bound at scrapeGrown (request and PV), in st as
// the resizer and kubelet leave it: the controller step done
// (allocatedResources at the PV's size), the file system still at
// scrapeSize (status.capacity), and st's condition since since.
func setNodeState(pvc *v1.PersistentVolumeClaim, st nodeState, since time.Time) {
	grown := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	pvc.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(scrapeSize)}
	pvc.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: grown}
	pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: st.Status}
	pvc.Status.Conditions = []v1.PersistentVolumeClaimCondition{{
		Type: st.Condition, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(since),
		Message: fmt.Sprintf("bench: %s since %s", st.Status, since.UTC().Format(time.RFC3339)),
	}}
}

// createScrapePairs creates the bound pairs first to n-1. A claim put in a
// state is bound at scrapeGrown from the start (its request and its PV, so
// no spec change has to wait for the PV), then one status update as admin
// puts it in its state.
func createScrapePairs(ctx context.Context, c kubernetes.Interface, first, n, goroutines int, since time.Time) error {
	return framework.Parallel(ctx, n-first, goroutines, func(ctx context.Context, j int) error {
		i := first + j
		st, stated := stateOf(i)
		size := scrapeSize
		if stated {
			size = scrapeGrown
		}
		pvc, err := framework.CreateBound(ctx, c, benchVolume(i, size, fmt.Sprintf("made-up-%d", i)))
		if err != nil || !stated {
			return err
		}
		setNodeState(pvc, st, since)
		if _, err := c.CoreV1().PersistentVolumeClaims(benchNamespace).UpdateStatus(ctx, pvc, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("put claim %s in %s: %w", pvc.Name, st.Status, err)
		}
		return nil
	}, progress("bound PVC+PV pairs", n-first))
}

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
	if err := r.startResizer(ctx, knownSettings["default"], cfg.resizerArgs...); err != nil {
		return row, err
	}
	if err := r.waitIdle(ctx); err != nil {
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

// checkClaims scrapes once and checks csi_resizer_claims against want: a
// measurement of a collector that counted nothing would be of nothing. It
// returns the number of series.
func (r *rig) checkClaims(ctx context.Context, want map[unfinished.State]int) (int, error) {
	_, _, text, err := r.scrape(ctx)
	if err != nil {
		return 0, err
	}
	samples, err := parseSeries(string(text), claimsMetric)
	if err != nil {
		return 0, err
	}
	if err := checkCounts(samples, driverName, want); err != nil {
		return 0, err
	}
	say("  %s counts %s", claimsMetric, describeCounts(resizeCounts(want)))
	return len(samples), nil
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

// scrape fetches /metrics once as Prometheus does, with gzip accepted (the
// handler then compresses, which is part of the cost), and returns the
// time from request to last byte, the bytes on the wire and the text.
// Asking for the encoding ourselves keeps the transport from decompressing
// it, so that the wire size is known.
func (r *rig) scrape(ctx context.Context) (time.Duration, int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.httpAddr+"/metrics", nil)
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

// checkCounts checks the csi_resizer_claims samples: all of driver, each
// resize state at its count in want, every other state at 0, so their sum
// is the number of claims put in a state.
func checkCounts(samples []sample, driver string, want map[unfinished.State]int) error {
	if len(samples) == 0 {
		return fmt.Errorf("no %s in /metrics: the collector reports nothing", claimsMetric)
	}
	got := map[string]int{}
	sum := 0
	for _, s := range samples {
		if d := s.Labels["driver_name"]; d != driver {
			return fmt.Errorf("%s has a series of driver %q, want only %q", claimsMetric, d, driver)
		}
		got[s.Labels["operation"]+"/"+s.Labels["state"]] += int(s.Value)
		sum += int(s.Value)
	}
	wanted := resizeCounts(want)
	ok := sum == total(want)
	for key, n := range wanted {
		ok = ok && got[key] == n
	}
	if !ok {
		return fmt.Errorf("%s counts %d claims in a state (%s), want %d (%s)",
			claimsMetric, sum, describeCounts(got), total(want), describeCounts(wanted))
	}
	return nil
}

// resizeCounts keys want as the series' operation/state.
func resizeCounts(want map[unfinished.State]int) map[string]int {
	out := map[string]int{}
	for st, n := range want {
		out[string(unfinished.Resize)+"/"+string(st)] = n
	}
	return out
}

// describeCounts lists the non-zero counts, sorted: "resize/node_pending 334, ...".
func describeCounts(counts map[string]int) string {
	var parts []string
	for key, n := range counts {
		if n != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", key, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

func total(counts map[unfinished.State]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// parseCounts reads -scrape-n: positive counts, comma-separated, each above
// the last, since each run adds pairs to the previous one's.
func parseCounts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-scrape-n: %q is not a positive number", part)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("-scrape-n: %d is not above %d: each run adds claims to the last", n, out[len(out)-1])
		}
		out = append(out, n)
	}
	return out, nil
}
