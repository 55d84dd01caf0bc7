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
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// throughputResult is one run of N claims grown at once.
type throughputResult struct {
	Setting setting
	N       int
	// Wall runs from the first grow sent to the last claim seen finished;
	// GrowSpan is how long sending every grow took.
	Wall, GrowSpan time.Duration
	Latency        summary
	// Finish holds, sorted, when each claim finished, from the first grow.
	Finish []time.Duration
	// Requests are the resizer's requests over its whole life.
	Requests tally
	// WorkRate and EventRate are the resizer's requests per second while
	// the claims were being resized: work (reads and writes) and events.
	WorkRate, EventRate float64
	// EventLag is how long after the last finished claim the last event
	// was written.
	EventLag time.Duration
	// Peak is VmHWM; CPU is the CPU time spent from the first grow until
	// the last event was written; CPUTotal is the whole life's.
	Peak          int64
	CPU, CPUTotal time.Duration
	// Switches are the resizer's context switches over the same span as
	// CPU: thread wake-ups, which cost more when work is spread out.
	Switches int64
	// IdleCPU is the CPU time per second the resizer spent before the
	// grows, with its caches full and nothing to do.
	IdleCPU     time.Duration
	DriverCalls int
	Volumes     int // distinct volumes among the driver calls
	Errors      int // claims seen with ControllerResizeError
	// Foreign is the CPU other processes of the machine took while the
	// claims were being resized.
	Foreign string
	// ForcedCloses counts the resizer's watches (of all namespaces) that
	// kube-apiserver closed as unresponsive, by resource key.
	ForcedCloses map[string]int
	// OwnCloses counts the benchmark's own claim watches the server
	// closed: each may have delayed some finish timestamps.
	OwnCloses int
}

// floor is the shortest wall time the token bucket allows: burst writes
// at once, then QPS a second, 3 writes a resize.
func (r throughputResult) floor() time.Duration {
	secs := (float64(r.N)*targetWrites - float64(r.Setting.Burst)) / float64(r.Setting.QPS)
	return time.Duration(max(secs, 0) * float64(time.Second))
}

// rate is resizes per second.
func (r throughputResult) rate() float64 { return float64(r.N) / r.Wall.Seconds() }

// perResize is the number of requests of class c per resize.
func (r throughputResult) perResize(c requestClass) float64 {
	return float64(r.Requests.ByClass[c]) / float64(r.N)
}

// runThroughput grows cfg.n bound claims at once and measures the resizer
// until every claim is finished and every event written.
func runThroughput(ctx context.Context, cfg *config, s setting) (*throughputResult, error) {
	say("== throughput: %d claims at %s", cfg.n, s)
	r, err := newRig(ctx, cfg, "throughput-"+s.Name)
	if err != nil {
		return nil, err
	}
	defer r.close()
	start := time.Now()
	handles, err := r.driver.CreateVolumes(ctx, "vol", cfg.n, 1<<30, 8)
	if err != nil {
		return nil, err
	}
	say("  %d volumes created in the driver in %s", cfg.n, since(start))
	if err := createPairs(ctx, r.admin, cfg.n, "1Gi", handles, cfg.creators); err != nil {
		return nil, err
	}
	tail, err := r.auditTail()
	if err != nil {
		return nil, err
	}
	if err := r.startResizer(ctx, s, cfg.resizerArgs...); err != nil {
		return nil, err
	}
	if err := r.waitIdle(ctx); err != nil {
		return nil, err
	}
	w, err := watchClaims(ctx, r.admin, "2Gi")
	if err != nil {
		return nil, err
	}
	defer w.close()
	res := &throughputResult{Setting: s, N: cfg.n}
	if res.IdleCPU, err = idleCPU(ctx, r, idleWindow); err != nil {
		return nil, err
	}
	before, err := r.usage()
	if err != nil {
		return nil, err
	}
	cpuBefore, err := takeCPUSnapshot()
	if err != nil {
		return nil, err
	}
	sent := make([]time.Time, cfg.n)
	names := make([]string, cfg.n)
	for i := range names {
		names[i] = claimName(i)
	}
	start = time.Now()
	err = framework.Parallel(ctx, cfg.n, cfg.creators, func(ctx context.Context, i int) error {
		sent[i] = time.Now()
		return framework.Grow(ctx, r.admin, benchNamespace, names[i], "2Gi")
	}, nil)
	if err != nil {
		return nil, err
	}
	res.GrowSpan = since(start)
	say("  %d grows sent in %s; waiting for the resizer", cfg.n, res.GrowSpan)
	if err := waitWithProgress(ctx, cfg.timeout, w, names); err != nil {
		return nil, fmt.Errorf("%w (resizer log: %s)", err, r.resizer.Log)
	}
	cpuAfter, err := takeCPUSnapshot()
	if err != nil {
		return nil, err
	}
	res.Foreign = foreignLoad(cpuBefore, cpuAfter, cfg.nproc)

	first, last := slices.MinFunc(sent, time.Time.Compare), time.Time{}
	lat := make([]time.Duration, cfg.n)
	for i, name := range names {
		at := w.finishedAt(name)
		lat[i] = at.Sub(sent[i])
		res.Finish = append(res.Finish, at.Sub(first))
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(res.Finish)
	res.Wall, res.Latency, res.Errors = last.Sub(first), summarize(lat), w.errors()
	say("  all %d finished in %s (%.2f resizes/s); waiting for the events", cfg.n, res.Wall.Round(time.Millisecond), res.rate())

	lastEvent, err := drainEvents(ctx, tail, 2*cfg.n)
	if err != nil {
		return nil, err
	}
	res.EventLag = max(lastEvent.Sub(last), 0)
	after, err := r.usage()
	if err != nil {
		return nil, err
	}
	res.Peak, res.CPU, res.CPUTotal = after.Peak, after.CPU-before.CPU, after.CPU
	res.Switches = after.Switches - before.Switches
	if err := res.countDriverCalls(r); err != nil {
		return nil, err
	}
	if err := r.stopResizer(); err != nil {
		return nil, err
	}
	if err := settle(ctx, tail); err != nil {
		return nil, err
	}
	if err := res.countRequests(r, tail.requests, first, last); err != nil {
		return nil, err
	}
	return res, nil
}

// countDriverCalls reads the driver's call log.
func (res *throughputResult) countDriverCalls(r *rig) error {
	calls, err := r.driver.Calls()
	if err != nil {
		return err
	}
	res.tallyCalls(calls)
	return nil
}

// tallyCalls counts the driver calls and the volumes they were for.
func (res *throughputResult) tallyCalls(calls []framework.Call) {
	res.DriverCalls = len(calls)
	volumes := map[string]bool{}
	for _, c := range calls {
		volumes[c.VolumeID] = true
	}
	res.Volumes = len(volumes)
}

// countRequests counts the resizer's requests, its rates between the
// first grow and the last finished claim, and the watches the API server
// dropped.
func (res *throughputResult) countRequests(r *rig, reqs []request, first, last time.Time) error {
	res.Requests = count(reqs)
	window := count(between(reqs, first, last))
	secs := last.Sub(first).Seconds()
	res.WorkRate = float64(window.ByClass[classWrite]+window.ByClass[classRead]) / secs
	res.EventRate = float64(window.ByClass[classEvent]) / secs
	closes, err := forcedCloses(filepath.Join(r.cluster.Dir, "kube-apiserver.log"))
	if err != nil {
		return err
	}
	res.ForcedCloses = map[string]int{}
	for key, n := range closes {
		if allNamespaces(key) {
			res.ForcedCloses[key] = n
		} else {
			res.OwnCloses += n
		}
	}
	return nil
}

// idleWindow is how long the resizer is watched idle before the grows.
// CPU time is counted in 10ms ticks, so 10s resolve 1ms per second.
const idleWindow = 10 * time.Second

// idleCPU is the resizer's CPU time per second over window, doing nothing.
func idleCPU(ctx context.Context, r *rig, window time.Duration) (time.Duration, error) {
	before, err := r.usage()
	if err != nil {
		return 0, err
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(window):
	}
	after, err := r.usage()
	if err != nil {
		return 0, err
	}
	return (after.CPU - before.CPU) * time.Second / window, nil
}

// waitWithProgress waits for the claims, printing progress every 15s.
func waitWithProgress(ctx context.Context, timeout time.Duration, w *claimWatch, names []string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	go func() {
		t := time.NewTicker(15 * time.Second)
		defer t.Stop()
		start := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				say("  %d/%d finished (%s)", w.count(), len(names), since(start))
			}
		}
	}()
	return w.wait(ctx, names...)
}

// drainEvents waits until want event writes of the resizer are in the
// audit log, or none came for 5s, and returns when the last was written.
func drainEvents(ctx context.Context, tail *auditTail, want int) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var last time.Time
	seen, quiet := 0, time.Now()
	for {
		if err := tail.poll(); err != nil {
			return last, err
		}
		n := 0
		for _, r := range tail.requests {
			if classify(r.requestKey) == classEvent {
				n++
				if r.At.After(last) {
					last = r.At
				}
			}
		}
		if n != seen {
			seen, quiet = n, time.Now()
		}
		if n >= want || time.Since(quiet) > 5*time.Second {
			return last, nil
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("wait for %d events (%d so far): %w", want, n, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// settle reads the audit log until nothing new came for a second: the
// resizer's watches are logged when they close, after it stopped.
func settle(ctx context.Context, tail *auditTail) error {
	seen, quiet := -1, time.Now()
	for time.Since(quiet) < time.Second {
		if err := tail.poll(); err != nil {
			return err
		}
		if len(tail.requests) != seen {
			seen, quiet = len(tail.requests), time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// throughputChart is the plot of finished resizes over time, one line per
// setting with the most its API budget allows dashed beside it; a second
// panel zooms on the fastest run, which the first squeezes to the left.
func throughputChart(ts []*throughputResult) figure {
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd"}
	full := chart{Title: "All runs", XLabel: "seconds since the first grow", YLabel: "claims finished"}
	fastest := ts[0].Wall
	for i, t := range ts {
		color := colors[i%len(colors)]
		s := series{Name: fmt.Sprintf("%s: %d in %.1f s", t.Setting, t.N, t.Wall.Seconds()), Color: color, Step: true,
			X: []float64{0}, Y: []float64{0}}
		for j, d := range t.Finish {
			s.X, s.Y = append(s.X, d.Seconds()), append(s.Y, float64(j+1))
		}
		full.Series = append(full.Series, s, budgetLine(t, color))
		fastest = min(fastest, t.Wall)
	}
	f := figure{Title: fmt.Sprintf("Claims finished over time, %d grown at once (controller-only driver)", ts[0].N), Charts: []chart{full}}
	if len(ts) > 1 {
		_, end := niceAxis(fastest.Seconds() * 1.1)
		zoom := full
		zoom.Title, zoom.XMax = fmt.Sprintf("The first %g s", end), end
		f.Charts = append(f.Charts, zoom)
	}
	return f
}

// budgetLine is the most the token bucket allows: burst writes at once,
// then QPS a second, 3 writes a resize.
func budgetLine(t *throughputResult, color string) series {
	q, b, n := float64(t.Setting.QPS), float64(t.Setting.Burst), float64(t.N)
	s := series{Name: fmt.Sprintf("token bucket: (%d + %d/s × t) ÷ %.0f writes", t.Setting.Burst, t.Setting.QPS, targetWrites),
		Color: color, Dash: true, X: []float64{0, 0}, Y: []float64{0, math.Min(b/targetWrites, n)}}
	if end := (n*targetWrites - b) / q; end > 0 {
		s.X, s.Y = append(s.X, end), append(s.Y, n)
	}
	return s
}
