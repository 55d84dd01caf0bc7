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
	"slices"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// throughputResult is one run of N claims changed at once (a modifyResult
// embeds it, a modification in place of a resize).
type throughputResult struct {
	Setting setting
	N       int
	// Wall runs from the first change sent to the last claim seen done;
	// GrowSpan is how long sending every change took.
	Wall, GrowSpan time.Duration
	Latency        summary
	// Finish holds, sorted, when each claim was done, from the first change.
	Finish   []time.Duration
	Requests tally // the resizer's, over its whole life
	// WorkRate and EventRate are the resizer's requests per second while
	// the claims were being changed: work (reads and writes) and events;
	// EventLag is how long after the last claim done the last event was.
	WorkRate, EventRate float64
	EventLag            time.Duration
	// Peak is VmHWM; CPU is the CPU time from the first change until the
	// last event was written; CPUTotal is the whole life's.
	Peak          int64
	CPU, CPUTotal time.Duration
	// Switches are the context switches over the same span as CPU: thread
	// wake-ups, which cost more when work is spread out.
	Switches    int64
	IdleCPU     time.Duration // per second before the changes, caches full and nothing to do
	DriverCalls int
	Volumes     int    // distinct volumes among the driver calls
	Errors      int    // claims seen failed (ControllerResizeError for a resize)
	Foreign     string // the CPU other processes took while claims were changed
	// ForcedCloses counts the resizer's watches (of all namespaces) that
	// kube-apiserver closed as unresponsive, by resource key; OwnCloses
	// the benchmark's own claim watches, each may have delayed some
	// finish timestamps.
	ForcedCloses map[string]int
	OwnCloses    int
}

// floor is the shortest time in which one resizer at s can make n changes
// of 3 writes: the token bucket lets burst writes through at once, then QPS
// a second.
func (s setting) floor(n int) time.Duration {
	secs := (float64(n)*targetWrites - float64(s.Burst)) / float64(s.QPS)
	return time.Duration(max(secs, 0) * float64(time.Second))
}

// rate is changes per second.
func (r throughputResult) rate() float64 { return float64(r.N) / r.Wall.Seconds() }

// perResize is the number of requests of class c per change.
func (r throughputResult) perResize(c requestClass) float64 {
	return float64(r.Requests.ByClass[c]) / float64(r.N)
}

// batch is a change made to n bound claims at once, measured until the
// resizer has carried out every one and written every event: a grow in the
// throughput mode, a class change in the modify mode.
type batch struct {
	// mode names the run's rig with the setting ("throughput-default");
	// header is its progress header, after "== ".
	mode, header string
	n            int
	driver       framework.DriverOptions
	// sent is what the changes are called ("grows"), done what a claim is
	// once changed ("finished"), unit what the rate counts ("resizes").
	sent, done, unit string
	class            string                                  // the VolumeAttributesClass the pairs are provisioned with
	setup            func(ctx context.Context, r *rig) error // before the pairs are created, if set
	watch            func(ctx context.Context, c kubernetes.Interface) (*claimWatch, error)
	send             func(ctx context.Context, r *rig, claim string) error
	calls            func(ctx context.Context, r *rig) ([]framework.Call, error) // reads, and checks, the driver's calls
}

// runThroughput grows cfg.n bound claims from 1Gi to 2Gi at once (the
// driver expands only) and measures the resizer until every claim is
// finished and every event written.
func runThroughput(ctx context.Context, cfg *config, s setting) (*throughputResult, error) {
	res := &throughputResult{}
	return res, runBatch(ctx, cfg, s, res, batch{
		mode: "throughput", header: fmt.Sprintf("throughput: %d claims at %s", cfg.n, s), n: cfg.n,
		sent: "grows", done: "finished", unit: "resizes",
		watch: func(ctx context.Context, c kubernetes.Interface) (*claimWatch, error) {
			return watchClaims(ctx, c, "2Gi")
		},
		send: func(ctx context.Context, r *rig, claim string) error {
			return framework.Grow(ctx, r.admin, benchNamespace, claim, "2Gi")
		},
		calls: func(_ context.Context, r *rig) ([]framework.Call, error) {
			return r.driver.Calls(csidriver.MethodExpand)
		},
	})
}

// runBatch measures b at s into res: it creates the volumes and their
// bound pairs, follows the audit log, starts the resizer, reads it idle,
// sends every change, waits until every claim is done and every event
// written, and counts the resizer's usage, requests and driver calls.
func runBatch(ctx context.Context, cfg *config, s setting, res *throughputResult, b batch) error {
	say("== %s", b.header)
	r, err := newRig(ctx, cfg, b.mode+"-"+s.file(), b.driver)
	if err != nil {
		return err
	}
	defer r.close()
	start := time.Now()
	handles, err := r.driver.CreateVolumes(ctx, "vol", b.n, 1<<30, 8)
	if err != nil {
		return err
	}
	say("  %d volumes created in the driver in %s", b.n, since(start))
	if b.setup != nil {
		if err := b.setup(ctx, r); err != nil {
			return err
		}
	}
	err = createPairs(ctx, r.admin, b.n, cfg.creators, "bound PVC+PV pairs", func(i int) framework.Volume {
		v := benchVolume(i, "1Gi", handles[i])
		v.AttributesClass = b.class
		return v
	})
	if err != nil {
		return err
	}
	tail, err := r.auditTail()
	if err != nil {
		return err
	}
	if err := r.startIdle(ctx, s, cfg.resizerArgs...); err != nil {
		return err
	}
	w, err := b.watch(ctx, r.admin)
	if err != nil {
		return err
	}
	defer w.close()
	res.Setting, res.N = s, b.n
	if res.IdleCPU, err = idleCPU(ctx, r.resizer, idleWindow); err != nil {
		return err
	}
	before, err := r.resizer.usage()
	if err != nil {
		return err
	}
	var wv wave
	res.Foreign, err = around(cfg.nproc, func() (err error) {
		wv, err = sendWave(ctx, cfg, w, b.n, b.sent, "resizer", func(ctx context.Context, claim string) error {
			return b.send(ctx, r, claim)
		})
		if err != nil {
			err = fmt.Errorf("%w (resizer log: %s)", err, r.resizer.proc.Log)
		}
		return err
	})
	if err != nil {
		return err
	}
	res.GrowSpan, res.Wall, res.Latency, res.Finish, res.Errors = wv.span, wv.last.Sub(wv.first), wv.latency, wv.finish, wv.errors
	say("  all %d %s in %s (%.2f %s/s); waiting for the events", b.n, b.done, res.Wall.Round(time.Millisecond), res.rate(), b.unit)
	lastEvent, err := drainEvents(ctx, tail, 2*b.n)
	if err != nil {
		return err
	}
	res.EventLag = max(lastEvent.Sub(wv.last), 0)
	after, err := r.resizer.usage()
	if err != nil {
		return err
	}
	res.Peak, res.CPU, res.CPUTotal = after.Peak, after.CPU-before.CPU, after.CPU
	res.Switches = after.Switches - before.Switches
	calls, err := b.calls(ctx, r)
	if err != nil {
		return err
	}
	res.DriverCalls, res.Volumes = len(calls), distinctVolumes(calls, nil)
	if err := r.stopResizer(); err != nil {
		return err
	}
	if err := settle(ctx, tail); err != nil {
		return err
	}
	res.Requests = count(tail.requests)
	window := count(between(tail.requests, wv.first, wv.last))
	secs := wv.last.Sub(wv.first).Seconds()
	res.WorkRate = float64(window.ByClass[classWrite]+window.ByClass[classRead]) / secs
	res.EventRate = float64(window.ByClass[classEvent]) / secs
	res.ForcedCloses, res.OwnCloses, err = r.forcedCloses()
	return err
}

// distinctVolumes counts the volumes of the calls that keep accepts (nil: all).
func distinctVolumes(calls []framework.Call, keep func(framework.Call) bool) int {
	volumes := map[string]bool{}
	for _, c := range calls {
		if keep == nil || keep(c) {
			volumes[c.VolumeID] = true
		}
	}
	return len(volumes)
}

// wave is a change sent to every claim at once, and when each was done.
type wave struct {
	span        time.Duration // how long sending took
	first, last time.Time     // the first change sent, the last claim seen done
	latency     summary
	finish      []time.Duration // sorted, from first
	errors      int             // claims seen failed
}

// sendWave sends the change of the first n claims with cfg.creators
// goroutines (what names the changes, who waits in the progress line),
// waits until w sees each done, and reads when.
func sendWave(ctx context.Context, cfg *config, w *claimWatch, n int, what, who string, send func(ctx context.Context, claim string) error) (wave, error) {
	names := make([]string, n)
	for i := range names {
		names[i] = claimName(i)
	}
	sent, start := make([]time.Time, n), time.Now()
	err := framework.Parallel(ctx, n, cfg.creators, func(ctx context.Context, i int) error {
		sent[i] = time.Now()
		return send(ctx, names[i])
	}, nil)
	if err != nil {
		return wave{}, err
	}
	wv := wave{span: since(start), first: slices.MinFunc(sent, time.Time.Compare)}
	say("  %d %s sent in %s; waiting for the %s", n, what, wv.span, who)
	if err := waitWithProgress(ctx, cfg.timeout, w, names); err != nil {
		return wv, err
	}
	lat := make([]time.Duration, n)
	for i, name := range names {
		at := w.finishedAt(name)
		lat[i] = at.Sub(sent[i])
		wv.finish = append(wv.finish, at.Sub(wv.first))
		if at.After(wv.last) {
			wv.last = at
		}
	}
	slices.Sort(wv.finish)
	wv.latency, wv.errors = summarize(lat), w.errors()
	return wv, nil
}
