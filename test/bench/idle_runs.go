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
	// Latency is grow sent → claim seen finished, ToDriver grow sent →
	// ControllerExpandVolume received, AfterDriver its answer → finished.
	Latency, ToDriver, AfterDriver summary
	Idle                           procUsage // afterwards, with a handful of claims: the floor
	Foreign                        string    // other processes' CPU during the series
}

// runLatency grows cfg.latencyN claims one after the other, each once the
// previous one finished and cfg.latencyGap passed, so that every resize
// meets a full token bucket and an empty queue.
func runLatency(ctx context.Context, cfg *config, s setting) (*latencyResult, error) {
	n := cfg.latencyN
	say("== latency: %d sequential resizes at %s, %s apart", n, s, cfg.latencyGap)
	r, err := newRig(ctx, cfg, "latency-"+s.file(), framework.DriverOptions{})
	if err != nil {
		return nil, err
	}
	defer r.close()
	handles, err := r.driver.CreateVolumes(ctx, "vol", n, 1<<30, 4)
	if err != nil {
		return nil, err
	}
	err = createPairs(ctx, r.admin, n, cfg.creators, "bound PVC+PV pairs", func(i int) framework.Volume { return benchVolume(i, "1Gi", handles[i]) })
	if err != nil {
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

	sent := make([]time.Time, n)
	foreign, err := around(cfg.nproc, func() error {
		for i := range n {
			if err := sleep(ctx, cfg.latencyGap); err != nil {
				return err
			}
			sent[i] = time.Now()
			if err := framework.Grow(ctx, r.admin, benchNamespace, claimName(i), "2Gi"); err != nil {
				return err
			}
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := w.wait(wctx, claimName(i))
			cancel()
			if err != nil {
				return fmt.Errorf("resize %d: %w (resizer log: %s)", i, err, r.resizer.proc.Log)
			}
		}
		return nil
	})
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
		Foreign: foreign}
	if res.Idle, err = r.resizer.usage(); err != nil {
		return nil, err
	}
	say("  p50 %s, p95 %s, max %s", ms(res.Latency.P50), ms(res.Latency.P95), ms(res.Latency.Max))
	return res, r.stopResizer()
}

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
	// HeapInuse is go_memstats_heap_inuse_bytes at the last read: live
	// objects plus garbage not yet collected; HeapLive what the last
	// collection found alive (go_gc_heap_live_bytes).
	HeapInuse, HeapLive int64
	CPU                 time.Duration
	Writes              int // what the resizer wrote: nothing is to be resized, so 0
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
	r, err := newRig(ctx, cfg, "memory", framework.DriverOptions{})
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
	err = createPairs(ctx, r.admin, cfg.memoryN, cfg.creators, "bound PVC+PV pairs", func(i int) framework.Volume {
		return benchVolume(i, "1Gi", fmt.Sprintf("made-up-%d", i))
	})
	if err != nil {
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
		// In-use handling on, for a driver that expands online (the rig's:
		// no pod watch), then for one that expands offline only (pods
		// watched). The mock restarts without its volumes, which is
		// harmless: nothing is resized.
		label := fmt.Sprintf("%d PVC+PV pairs + %d running pods, in-use handling", cfg.memoryN, cfg.memoryN)
		if err := measure(label+", online driver", "--handle-volume-inuse-error=true"); err != nil {
			return nil, err
		}
		r.driver.OfflineOnly = true
		if err := r.driver.Restart(ctx); err != nil {
			return nil, fmt.Errorf("restart the CSI mock driver, offline only: %w", err)
		}
		if err := measure(label+", offline-only driver", "--handle-volume-inuse-error=true"); err != nil {
			return nil, err
		}
	}
	return res, nil
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
		u, err := r.resizer.usage()
		if err != nil {
			return p, err
		}
		p.Samples = append(p.Samples, u.RSS)
		p.RSS, p.Anon, p.File, p.Peak, p.CPU = u.RSS, u.Anon, u.File, u.Peak, u.CPU
		if stable(p.Samples, 3, 0.01) {
			if p.HeapInuse, err = r.resizer.bytesMetric(ctx, "go_memstats_heap_inuse_bytes"); err != nil {
				return p, err
			}
			if p.HeapLive, err = r.resizer.bytesMetric(ctx, "go_gc_heap_live_bytes"); err != nil {
				return p, err
			}
			break
		}
		if err := sleep(ctx, time.Second); err != nil {
			return p, err
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
