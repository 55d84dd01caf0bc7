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
)

// claimWatch timestamps, from a watch on the claims, the moment each claim
// is seen finished: for a resize, capacity at the target, no resize status
// or condition left (see isFinished; isModified for a modification). An
// informer is a watch that survives reconnects.
type claimWatch struct {
	done     func(*v1.PersistentVolumeClaim) bool
	failed   func(*v1.PersistentVolumeClaim) bool
	stop     chan struct{}
	mu       sync.Mutex
	finished map[string]time.Time
	errored  map[string]bool // claims seen failed (ControllerResizeError for a resize)
	changed  chan struct{}
}

// watchClaims starts watching the bench namespace's claims for resizes to
// target and returns once the watch is established.
func watchClaims(ctx context.Context, c kubernetes.Interface, target string) (*claimWatch, error) {
	q := resource.MustParse(target)
	return watchClaimsUntil(ctx, c, func(pvc *v1.PersistentVolumeClaim) bool { return isFinished(pvc, q) },
		func(pvc *v1.PersistentVolumeClaim) bool {
			return hasCondition(pvc, v1.PersistentVolumeClaimControllerResizeError)
		})
}

// watchClaimsUntil starts watching the bench namespace's claims, each
// finished once done says so and counted as an error once failed says so,
// and returns once the watch is established.
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

// hasCondition reports whether the claim carries a condition of type t,
// whatever its status.
func hasCondition(pvc *v1.PersistentVolumeClaim, t v1.PersistentVolumeClaimConditionType) bool {
	for _, c := range pvc.Status.Conditions {
		if c.Type == t {
			return true
		}
	}
	return false
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

// wait waits until the named claims are all finished.
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

// finishedAt is when the claim was seen finished.
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

// count is the number of claims seen finished.
func (w *claimWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.finished)
}
