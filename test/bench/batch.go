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

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// batch is a change made to n bound claims at once, measured until the
// resizer has carried out every one and written every event: a grow in
// the throughput mode, a class change in the modify mode. The modes
// differ only in what the batch says.
type batch struct {
	// mode names the run's rig with the setting ("throughput-default").
	mode string
	// header is the run's progress header, after "== ".
	header string
	n      int
	driver framework.DriverOptions
	// sent is what the changes are called ("grows"), done what a claim
	// is once the resizer carried its change out ("finished"), and unit
	// what the rate counts a second ("resizes").
	sent, done, unit string
	// setup puts the bound pairs in the state the change starts from;
	// nil leaves them as created.
	setup func(ctx context.Context, r *rig) error
	// watch watches the claims until each is done.
	watch func(ctx context.Context, c kubernetes.Interface) (*claimWatch, error)
	// send sends the change of one claim.
	send func(ctx context.Context, r *rig, claim string) error
	// calls reads, and checks, the driver's calls of the change.
	calls func(ctx context.Context, r *rig) ([]framework.Call, error)
}

// batchRun is a batch being measured.
type batchRun struct {
	batch
	cfg  *config
	r    *rig
	tail *auditTail
	w    *claimWatch
	res  *throughputResult
	// before is the resizer's usage before the first change; first is
	// when that was sent, last when the last claim was seen done.
	before      procUsage
	first, last time.Time
}

// runBatch measures b at s into res.
func runBatch(ctx context.Context, cfg *config, s setting, b batch, res *throughputResult) error {
	say("== %s", b.header)
	r, err := newRigWith(ctx, cfg, b.mode+"-"+s.Name, b.driver)
	if err != nil {
		return err
	}
	defer r.close()
	run := &batchRun{batch: b, cfg: cfg, r: r, res: res}
	if err := run.prepare(ctx, s); err != nil {
		return err
	}
	if run.w, err = b.watch(ctx, r.admin); err != nil {
		return err
	}
	defer run.w.close()
	res.Setting, res.N = s, b.n
	if err := run.measure(ctx); err != nil {
		return err
	}
	return run.collect(ctx)
}

// prepare creates the volumes and their bound pairs, starts following the
// audit log and starts the resizer at s, and waits until it idles.
func (b *batchRun) prepare(ctx context.Context, s setting) error {
	start := time.Now()
	handles, err := b.r.driver.CreateVolumes(ctx, "vol", b.n, 1<<30, 8)
	if err != nil {
		return err
	}
	say("  %d volumes created in the driver in %s", b.n, since(start))
	if err := createPairs(ctx, b.r.admin, b.n, "1Gi", handles, b.cfg.creators); err != nil {
		return err
	}
	if b.setup != nil {
		if err := b.setup(ctx, b.r); err != nil {
			return err
		}
	}
	if b.tail, err = b.r.auditTail(); err != nil {
		return err
	}
	return b.r.startIdle(ctx, s, b.cfg.resizerArgs...)
}

// measure reads the resizer idle, sends every change and waits until
// every claim is done, reading the other processes' CPU meanwhile.
func (b *batchRun) measure(ctx context.Context) error {
	var err error
	if b.res.IdleCPU, err = idleCPU(ctx, b.r, idleWindow); err != nil {
		return err
	}
	if b.before, err = b.r.usage(); err != nil {
		return err
	}
	cpuBefore, err := takeCPUSnapshot()
	if err != nil {
		return err
	}
	names := claimNames(b.n)
	sent, err := b.sendAll(ctx, names)
	if err != nil {
		return err
	}
	if err := waitWithProgress(ctx, b.cfg.timeout, b.w, names); err != nil {
		return fmt.Errorf("%w (resizer log: %s)", err, b.r.resizer.Log)
	}
	cpuAfter, err := takeCPUSnapshot()
	if err != nil {
		return err
	}
	b.res.Foreign = foreignLoad(cpuBefore, cpuAfter, b.cfg.nproc)
	b.finish(names, sent)
	return nil
}

// sendAll sends the change of every claim of names, and returns when each
// was sent.
func (b *batchRun) sendAll(ctx context.Context, names []string) ([]time.Time, error) {
	sent := make([]time.Time, len(names))
	start := time.Now()
	err := framework.Parallel(ctx, len(names), b.cfg.creators, func(ctx context.Context, i int) error {
		sent[i] = time.Now()
		return b.send(ctx, b.r, names[i])
	}, nil)
	if err != nil {
		return nil, err
	}
	b.res.GrowSpan = since(start)
	say("  %d %s sent in %s; waiting for the resizer", len(names), b.sent, b.res.GrowSpan)
	return sent, nil
}

// finish reads when each claim of names was done, its change sent at
// sent: the wall time, the latencies and the finish times.
func (b *batchRun) finish(names []string, sent []time.Time) {
	res := b.res
	b.first = slices.MinFunc(sent, time.Time.Compare)
	lat := make([]time.Duration, len(names))
	for i, name := range names {
		at := b.w.finishedAt(name)
		lat[i] = at.Sub(sent[i])
		res.Finish = append(res.Finish, at.Sub(b.first))
		if at.After(b.last) {
			b.last = at
		}
	}
	slices.Sort(res.Finish)
	res.Wall, res.Latency, res.Errors = b.last.Sub(b.first), summarize(lat), b.w.errors()
	say("  all %d %s in %s (%.2f %s/s); waiting for the events", len(names), b.done, res.Wall.Round(time.Millisecond), res.rate(), b.unit)
}

// collect waits for the events, reads the resizer's usage and the
// driver's calls, stops the resizer and counts its requests.
func (b *batchRun) collect(ctx context.Context) error {
	res := b.res
	lastEvent, err := drainEvents(ctx, b.tail, 2*b.n)
	if err != nil {
		return err
	}
	res.EventLag = max(lastEvent.Sub(b.last), 0)
	after, err := b.r.usage()
	if err != nil {
		return err
	}
	res.Peak, res.CPU, res.CPUTotal = after.Peak, after.CPU-b.before.CPU, after.CPU
	res.Switches = after.Switches - b.before.Switches
	calls, err := b.calls(ctx, b.r)
	if err != nil {
		return err
	}
	res.tallyCalls(calls)
	if err := b.r.stopResizer(); err != nil {
		return err
	}
	if err := settle(ctx, b.tail); err != nil {
		return err
	}
	return res.countRequests(b.r, b.tail.requests, b.first, b.last)
}

// claimNames are the names of the first n claims.
func claimNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = claimName(i)
	}
	return names
}
