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

// memoryPhase is the resizer's memory with one set of objects.
type memoryPhase struct {
	Label string
	Args  []string
	// Ready is how long the resizer took from start to /readyz.
	Ready time.Duration
	// RSS is VmRSS once stable, Anon and File its parts; Peak is VmHWM;
	// Samples are every VmRSS read, one a second.
	RSS, Anon, File, Peak int64
	Samples               []int64
	// HeapInuse is the Go heap in use (go_memstats_heap_inuse_bytes of
	// the resizer's /metrics) at the last read: live objects plus garbage
	// not yet collected. HeapLive is what the last collection found alive
	// (go_gc_heap_live_bytes).
	HeapInuse, HeapLive int64
	CPU                 time.Duration
	// Writes is what the resizer wrote (nothing is to be resized, so it
	// should be 0).
	Writes int
	// OfflineOnly: the driver advertised OFFLINE expansion only, the one
	// kind whose resizer watches pods. PodsWatched is what the audit log
	// shows: the resizer listed or watched pods.
	OfflineOnly, PodsWatched bool
}

// memoryResult is the memory mode: N bound pairs, then N pods more.
type memoryResult struct {
	Pairs, Pods int
	Phases      []memoryPhase
}

// runMemory measures the resizer's memory on an empty cluster, with
// cfg.memoryN bound PVC+PV pairs, and (with cfg.pods) with as many pods
// using them and in-use handling on. Each phase starts a fresh resizer.
func runMemory(ctx context.Context, cfg *config) (*memoryResult, error) {
	say("== memory: %d PVC+PV pairs%s", cfg.memoryN, map[bool]string{true: " and as many pods", false: ""}[cfg.pods])
	r, err := newRig(ctx, cfg, "memory")
	if err != nil {
		return nil, err
	}
	defer r.close()
	res := &memoryResult{Pairs: cfg.memoryN}
	def := knownSettings["default"]
	measure := func(label string, args ...string) error {
		p, err := measureMemory(ctx, r, def, label, append(args, cfg.resizerArgs...)...)
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		p.Args = args // the phase's own flags; cfg.resizerArgs are in the command
		p.OfflineOnly = r.driver.OfflineOnly
		res.Phases = append(res.Phases, p)
		return nil
	}
	if err := measure("empty cluster"); err != nil {
		return nil, err
	}
	if err := createPairs(ctx, r.admin, cfg.memoryN, "1Gi", nil, cfg.creators); err != nil {
		return nil, err
	}
	if err := measure(fmt.Sprintf("%d PVC+PV pairs", cfg.memoryN)); err != nil {
		return nil, err
	}
	if cfg.pods {
		// Spread over 50 nodes that do not exist: the resizer reads only
		// the pods' volumes.
		node := func(i int) string { return fmt.Sprintf("node-%d", i%50) }
		if err := createPods(ctx, r.admin, cfg.memoryN, node, cfg.creators); err != nil {
			return nil, err
		}
		res.Pods = cfg.memoryN
		if err := measurePods(ctx, r, cfg.memoryN, measure); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// measurePods measures the resizer with the pods, in-use handling on, for
// a driver that expands online (which the rig's driver does: no pod watch)
// and then for one that expands offline only (pods watched). The mock
// restarts without its volumes, which is harmless: nothing is resized.
func measurePods(ctx context.Context, r *rig, n int, measure func(label string, args ...string) error) error {
	label := fmt.Sprintf("%d PVC+PV pairs + %d running pods, in-use handling", n, n)
	if err := measure(label+", online driver", "--handle-volume-inuse-error=true"); err != nil {
		return err
	}
	r.driver.OfflineOnly = true
	if err := r.driver.Restart(ctx); err != nil {
		return fmt.Errorf("restart the CSI mock driver, offline only: %w", err)
	}
	return measure(label+", offline-only driver", "--handle-volume-inuse-error=true")
}

// measureMemory starts the resizer, waits for its caches and an empty
// queue, then reads VmRSS once a second until three reads in a row are
// within 1% (at most a minute), and stops it.
func measureMemory(ctx context.Context, r *rig, s setting, label string, args ...string) (memoryPhase, error) {
	p := memoryPhase{Label: label, Args: args}
	tail, err := r.auditTail()
	if err != nil {
		return p, err
	}
	start := time.Now()
	if err := r.startResizer(ctx, s, args...); err != nil {
		return p, err
	}
	p.Ready = since(start)
	if err := r.waitIdle(ctx); err != nil {
		return p, err
	}
	for i := 0; i < 60; i++ {
		u, err := r.usage()
		if err != nil {
			return p, err
		}
		p.Samples = append(p.Samples, u.RSS)
		p.RSS, p.Anon, p.File, p.Peak, p.CPU = u.RSS, u.Anon, u.File, u.Peak, u.CPU
		if stable(p.Samples, 3, 0.01) {
			if p.HeapInuse, err = r.bytesMetric(ctx, "go_memstats_heap_inuse_bytes"); err != nil {
				return p, err
			}
			if p.HeapLive, err = r.bytesMetric(ctx, "go_gc_heap_live_bytes"); err != nil {
				return p, err
			}
			break
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	if err := r.stopResizer(); err != nil {
		return p, err
	}
	if err := settle(ctx, tail); err != nil {
		return p, err
	}
	t := count(tail.requests)
	p.Writes = t.ByClass[classWrite] + t.ByClass[classEvent]
	p.PodsWatched = t.ByKey[requestKey{Verb: "list", Resource: "pods"}]+t.ByKey[requestKey{Verb: "watch", Resource: "pods"}] > 0
	say("  %s: RSS %s (peak %s) after %d samples; ready in %s; pods watched: %t", label, mib(p.RSS), mib(p.Peak), len(p.Samples), p.Ready, p.PodsWatched)
	return p, nil
}

// stable reports whether the last n samples are within tolerance (a
// fraction of the largest) of each other.
func stable(samples []int64, n int, tolerance float64) bool {
	if len(samples) < n {
		return false
	}
	last := samples[len(samples)-n:]
	lo, hi := last[0], last[0]
	for _, s := range last {
		lo, hi = min(lo, s), max(hi, s)
	}
	return float64(hi-lo) <= tolerance*float64(hi)
}
