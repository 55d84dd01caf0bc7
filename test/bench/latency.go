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

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// latencyResult is a series of single resizes on an idle cluster.
type latencyResult struct {
	Setting setting
	// Latency is grow sent → claim seen finished. ToDriver is grow sent →
	// ControllerExpandVolume received; AfterDriver is its answer → claim
	// seen finished.
	Latency, ToDriver, AfterDriver summary
	// Idle is the resizer's memory and CPU afterwards, with a handful of
	// claims: its floor.
	Idle procUsage
	// Foreign is the CPU other processes took during the series.
	Foreign string
}

// runLatency grows cfg.latencyN claims one after the other, each once the
// previous one finished and cfg.latencyGap passed, so that every resize
// meets a full token bucket and an empty queue.
func runLatency(ctx context.Context, cfg *config, s setting) (*latencyResult, error) {
	n := cfg.latencyN
	say("== latency: %d sequential resizes at %s, %s apart", n, s, cfg.latencyGap)
	r, err := newRig(ctx, cfg, "latency-"+s.Name)
	if err != nil {
		return nil, err
	}
	defer r.close()
	handles, err := r.driver.CreateVolumes(ctx, "vol", n, 1<<30, 4)
	if err != nil {
		return nil, err
	}
	if err := createPairs(ctx, r.admin, n, "1Gi", handles, cfg.creators); err != nil {
		return nil, err
	}
	if err := r.startIdle(ctx, s, cfg.resizerArgs...); err != nil {
		return nil, err
	}
	w, err := watchClaims(ctx, r.admin, "2Gi")
	if err != nil {
		return nil, err
	}
	defer w.close()

	cpuBefore, err := takeCPUSnapshot()
	if err != nil {
		return nil, err
	}
	sent := make([]time.Time, n)
	for i := range n {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(cfg.latencyGap):
		}
		sent[i] = time.Now()
		if err := framework.Grow(ctx, r.admin, benchNamespace, claimName(i), "2Gi"); err != nil {
			return nil, err
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := w.wait(wctx, claimName(i))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("resize %d: %w (resizer log: %s)", i, err, r.resizer.Log)
		}
	}
	cpuAfter, err := takeCPUSnapshot()
	if err != nil {
		return nil, err
	}
	calls, err := r.driver.Calls(csidriver.MethodExpand)
	if err != nil {
		return nil, err
	}
	byVolume := map[string]framework.Call{}
	for _, c := range calls {
		if _, ok := byVolume[c.VolumeID]; !ok {
			byVolume[c.VolumeID] = c
		}
	}
	var lat, to, after []time.Duration
	for i := range n {
		done := w.finishedAt(claimName(i))
		lat = append(lat, done.Sub(sent[i]))
		if c, ok := byVolume[handles[i]]; ok {
			to = append(to, c.Start.Sub(sent[i]))
			after = append(after, done.Sub(c.End))
		}
	}
	res := &latencyResult{Setting: s, Latency: summarize(lat), ToDriver: summarize(to), AfterDriver: summarize(after),
		Foreign: foreignLoad(cpuBefore, cpuAfter, cfg.nproc)}
	if res.Idle, err = r.usage(); err != nil {
		return nil, err
	}
	say("  p50 %s, p95 %s, max %s", ms(res.Latency.P50), ms(res.Latency.P95), ms(res.Latency.Max))
	return res, r.stopResizer()
}
