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
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// claimWatch timestamps, from an informer on the claims (a watch that
// survives reconnects), the moment each claim is seen done.
type claimWatch struct {
	done, failed func(*v1.PersistentVolumeClaim) bool
	stop         chan struct{}
	mu           sync.Mutex
	finished     map[string]time.Time
	errored      map[string]bool // claims seen failed
	changed      chan struct{}
}

// watchClaims watches the bench namespace's claims for resizes to target:
// a claim is done with capacity at the target and no resize status or
// condition left, failed with ControllerResizeError.
func watchClaims(ctx context.Context, c kubernetes.Interface, target string) (*claimWatch, error) {
	q := resource.MustParse(target)
	return watchClaimsUntil(ctx, c, func(pvc *v1.PersistentVolumeClaim) bool { return isFinished(pvc, q) },
		func(pvc *v1.PersistentVolumeClaim) bool {
			return framework.HasCondition(pvc, v1.PersistentVolumeClaimControllerResizeError)
		})
}

// watchClaimsUntil watches the bench namespace's claims, each done once
// done says so and failed once failed says so, and returns once the watch
// is established.
func watchClaimsUntil(ctx context.Context, c kubernetes.Interface, done, failed func(*v1.PersistentVolumeClaim) bool) (*claimWatch, error) {
	w := &claimWatch{done: done, failed: failed, stop: make(chan struct{}),
		finished: map[string]time.Time{}, errored: map[string]bool{}, changed: make(chan struct{}, 1)}
	inf := coreinformers.NewPersistentVolumeClaimInformer(c, benchNamespace, 0, cache.Indexers{})
	observe := func(obj any) {
		if pvc, ok := obj.(*v1.PersistentVolumeClaim); ok {
			w.observe(pvc, time.Now())
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    observe,
		UpdateFunc: func(_, obj any) { observe(obj) },
	}); err != nil {
		return nil, err
	}
	go inf.Run(w.stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		w.close()
		return nil, fmt.Errorf("watch claims: %w", ctx.Err())
	}
	return w, nil
}

// isFinished reports whether the claim's resize to target is over.
func isFinished(pvc *v1.PersistentVolumeClaim, target resource.Quantity) bool {
	capacity := pvc.Status.Capacity[v1.ResourceStorage]
	_, pending := pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage]
	return capacity.Cmp(target) == 0 && !pending && len(pvc.Status.Conditions) == 0
}

func (w *claimWatch) observe(pvc *v1.PersistentVolumeClaim, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed(pvc) {
		w.errored[pvc.Name] = true
	}
	if _, seen := w.finished[pvc.Name]; seen || !w.done(pvc) {
		return
	}
	w.finished[pvc.Name] = now
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// wait waits until the named claims are all done.
func (w *claimWatch) wait(ctx context.Context, names ...string) error {
	for {
		w.mu.Lock()
		left := 0
		for _, n := range names {
			if _, ok := w.finished[n]; !ok {
				left++
			}
		}
		w.mu.Unlock()
		if left == 0 {
			return nil
		}
		select {
		case <-w.changed:
		case <-ctx.Done():
			return fmt.Errorf("%d of %d claims not finished: %w", left, len(names), ctx.Err())
		}
	}
}

// finishedAt is when the claim was seen done.
func (w *claimWatch) finishedAt(name string) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.finished[name]
}

// errors is the number of claims seen failed.
func (w *claimWatch) errors() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.errored)
}

func (w *claimWatch) close() { close(w.stop) }

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
				w.mu.Lock()
				n := len(w.finished)
				w.mu.Unlock()
				say("  %d/%d finished (%s)", n, len(names), since(start))
			}
		}
	}()
	return w.wait(ctx, names...)
}

// idleWindow is how long the resizer is watched idle before the changes:
// CPU time is counted in 10ms ticks, so 10s resolve 1ms per second.
const idleWindow = 10 * time.Second

// idleCPU is the instance's CPU time per second over window, doing nothing.
func idleCPU(ctx context.Context, in *instance, window time.Duration) (time.Duration, error) {
	before, err := in.usage()
	if err != nil {
		return 0, err
	}
	if err := sleep(ctx, window); err != nil {
		return 0, err
	}
	after, err := in.usage()
	if err != nil {
		return 0, err
	}
	return (after.CPU - before.CPU) * time.Second / window, nil
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
		if err := sleep(ctx, 250*time.Millisecond); err != nil {
			return last, fmt.Errorf("wait for %d events (%d so far): %w", want, n, err)
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
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
