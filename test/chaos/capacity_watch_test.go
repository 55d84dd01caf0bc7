//go:build chaos

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

package chaos

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// capacityWatch watches every PV for the whole run and records each time a
// capacity went down or to zero. It is an informer: when the API server
// goes away, its reflector lists again and watches anew, and a decrease
// made meanwhile still shows as an update from the cached object.
type capacityWatch struct {
	mu      sync.Mutex
	highest map[string]int64 // PV name -> highest capacity seen
	// reached is, per PV name and capacity in bytes, when the PV was first
	// seen with that capacity.
	reached   map[string]map[int64]time.Time
	decreases []string
	events    int
	lists     int // lists started
	watches   int // watches started (client-go lists through a watch too)
	stop      context.CancelFunc
	informer  cache.SharedIndexInformer
}

// watchCapacities starts the watch and waits for its first list.
func watchCapacities(ctx context.Context, c kubernetes.Interface) (*capacityWatch, error) {
	w := &capacityWatch{highest: map[string]int64{}, reached: map[string]map[int64]time.Time{}}
	pvs := c.CoreV1().PersistentVolumes()
	var err error
	w.informer, w.stop, err = startWatch(ctx, &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			w.count(&w.lists)
			return pvs.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w.count(&w.watches)
			return pvs.Watch(ctx, opts)
		},
	}, &v1.PersistentVolume{}, w.see, "PV")
	if err != nil {
		return nil, err
	}
	return w, nil
}

func (w *capacityWatch) count(n *int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	*n++
}

func (w *capacityWatch) see(obj any) {
	pv, ok := obj.(*v1.PersistentVolume)
	if !ok {
		return
	}
	q := pv.Spec.Capacity[v1.ResourceStorage]
	size := q.Value()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events++
	highest, known := w.highest[pv.Name]
	switch {
	case size == 0:
		w.decreases = append(w.decreases, fmt.Sprintf("%s %s: capacity 0 (resourceVersion %s)", time.Now().Format(time.StampMilli), pv.Name, pv.ResourceVersion))
	case known && size < highest:
		w.decreases = append(w.decreases, fmt.Sprintf("%s %s: capacity %d -> %d bytes (resourceVersion %s)", time.Now().Format(time.StampMilli), pv.Name, highest, size, pv.ResourceVersion))
	}
	w.highest[pv.Name] = max(highest, size)
	if w.reached[pv.Name] == nil {
		w.reached[pv.Name] = map[int64]time.Time{}
	}
	if _, ok := w.reached[pv.Name][size]; !ok {
		w.reached[pv.Name][size] = time.Now()
	}
}

// watchFigures are what the watch saw.
type watchFigures struct {
	decreases              []string
	events, lists, watches int
	reached                map[string]map[int64]time.Time
}

func (w *capacityWatch) figures() watchFigures {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := watchFigures{decreases: append([]string(nil), w.decreases...), events: w.events, lists: w.lists, watches: w.watches,
		reached: map[string]map[int64]time.Time{}}
	for pv, r := range w.reached {
		f.reached[pv] = maps.Clone(r)
	}
	return f
}

// caughtUp checks that the watch outlived the faults: its view of every PV
// equals a fresh list from the API server.
func (w *capacityWatch) caughtUp(ctx context.Context, c kubernetes.Interface) []string {
	pvs, err := c.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return []string{fmt.Sprintf("list PVs: %v", err)}
	}
	var behind []string
	for i := range pvs.Items {
		fresh := &pvs.Items[i]
		obj, ok, err := w.informer.GetStore().GetByKey(fresh.Name)
		if err != nil || !ok {
			behind = append(behind, fresh.Name+": not in the watch's cache")
			continue
		}
		if seen := obj.(*v1.PersistentVolume); seen.ResourceVersion != fresh.ResourceVersion {
			behind = append(behind, fmt.Sprintf("%s: watch at resourceVersion %s, server at %s", fresh.Name, seen.ResourceVersion, fresh.ResourceVersion))
		}
	}
	return behind
}

// close stops the watch.
func (w *capacityWatch) close() { w.stop() }
