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
	"slices"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// classState is a claim's class as its status records it, from a moment
// on: settled at its current class (no modifyVolumeStatus), or on its way
// to a target.
type classState struct {
	at time.Time
	// rv is the claim's resourceVersion in that state; 0 when unknown.
	rv      uint64
	settled bool
	// class is the current class when settled, else the recorded target.
	class string
	// status is the recorded modifyVolumeStatus's status; "" when settled.
	status v1.PersistentVolumeClaimModifyVolumeStatus
}

// classWatch watches the run's claims for the whole run and records the
// class state of every version of them it sees, as the capacity watch does
// for PVs: when a claim's status settled at a class, which the checks need
// to tell a call made after the success was recorded. A watch has gaps
// (the API server restarted, or closed the watch as too slow; the informer
// lists again): the checks read its record merged with the audit log's
// (see claimWrites).
type classWatch struct {
	mu     sync.Mutex
	states map[claim][]classState
	events int
	// lists and watches started: the first, and again after each loss.
	lists    int
	stop     context.CancelFunc
	informer cache.SharedIndexInformer
	now      func() time.Time
}

// watchClasses starts the watch of the claims of namespace ns and waits for
// its first list. Each of also sees every claim the watch adds or updates,
// after the class watch: the other watches of claims share its informer.
func watchClasses(ctx context.Context, c kubernetes.Interface, ns string, also ...func(any)) (*classWatch, error) {
	w := newClassWatch()
	see := func(obj any) {
		w.see(obj)
		for _, f := range also {
			f(obj)
		}
	}
	pvcs := c.CoreV1().PersistentVolumeClaims(ns)
	var err error
	w.informer, w.stop, err = startWatch(ctx, &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			w.started()
			return pvcs.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w.started()
			return pvcs.Watch(ctx, opts)
		},
	}, &v1.PersistentVolumeClaim{}, see, "claim")
	if err != nil {
		return nil, err
	}
	return w, nil
}

func newClassWatch() *classWatch {
	return &classWatch{states: map[claim][]classState{}, now: time.Now}
}

// classStateOf is the class state pvc records.
func classStateOf(pvc *v1.PersistentVolumeClaim) classState {
	s := classState{settled: true, class: ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, "")}
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		s = classState{class: m.TargetVolumeAttributesClassName, status: m.Status}
	}
	s.rv, _ = strconv.ParseUint(pvc.ResourceVersion, 10, 64)
	return s
}

// sameClass reports whether two states record the same class state.
func (s classState) sameClass(o classState) bool {
	return s.settled == o.settled && s.class == o.class && s.status == o.status
}

// see records the claim's class state in the version seen: every version,
// so that merging with the audit log's record (mergeStates) knows which
// version of the claim each state is.
func (w *classWatch) see(obj any) {
	pvc, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	s := classStateOf(pvc)
	cl := claim{ns: pvc.Namespace, name: pvc.Name}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events++
	s.at = w.now()
	states := w.states[cl]
	if n := len(states); n > 0 && s.rv != 0 && states[n-1].rv == s.rv {
		return
	}
	w.states[cl] = append(states, s)
}

// started counts a list or watch begun.
func (w *classWatch) started() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lists++
}

// listed is how many lists and watches were begun.
func (w *classWatch) listed() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lists
}

// history returns a copy of the states seen, one per version of a claim
// seen (mergeStates keeps the changes).
func (w *classWatch) history() (map[claim][]classState, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[claim][]classState, len(w.states))
	for cl, s := range w.states {
		out[cl] = slices.Clone(s)
	}
	return out, w.events
}

// caughtUp checks that the watch outlived the faults: its view of every
// claim equals a fresh list from the API server.
func (w *classWatch) caughtUp(ctx context.Context, c kubernetes.Interface, ns string) []string {
	pvcs, err := c.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return []string{fmt.Sprintf("list claims: %v", err)}
	}
	var behind []string
	for i := range pvcs.Items {
		fresh := &pvcs.Items[i]
		obj, ok, err := w.informer.GetStore().GetByKey(ns + "/" + fresh.Name)
		if err != nil || !ok {
			behind = append(behind, fresh.Name+": not in the claim watch's cache")
			continue
		}
		if seen := obj.(*v1.PersistentVolumeClaim); seen.ResourceVersion != fresh.ResourceVersion {
			behind = append(behind, fmt.Sprintf("%s: claim watch at resourceVersion %s, server at %s", fresh.Name, seen.ResourceVersion, fresh.ResourceVersion))
		}
	}
	return behind
}

// close stops the watch.
func (w *classWatch) close() { w.stop() }

// settledAt is when the claim's status last came to rest at class, as the
// watch saw it; false when its last state is another.
func settledAt(states []classState, class string) (time.Time, bool) {
	if len(states) == 0 {
		return time.Time{}, false
	}
	last := states[len(states)-1]
	if !last.settled || last.class != class {
		return time.Time{}, false
	}
	return last.at, true
}

// seenPending lists, for each claim the watch saw Pending, the classes it
// waited for.
func seenPending(states map[claim][]classState) map[claim][]string {
	out := map[claim][]string{}
	for cl, ss := range states {
		for _, s := range ss {
			if !s.settled && s.status == v1.PersistentVolumeClaimModifyVolumePending && !slices.Contains(out[cl], s.class) {
				out[cl] = append(out[cl], s.class)
			}
		}
	}
	return out
}
