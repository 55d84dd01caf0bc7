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
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// sizeWatch follows the sizes of the run's claims on the claim watch's
// informer, as the capacity watch follows PVs: a claim's status.capacity
// must never go down, and kubelet must find no size infeasible but those
// the node share's recovery has it refuse. It
// keeps when each claim first showed each capacity, and which resize
// statuses each went through. The informer lists again after the API server
// restart, so a state that lived only while it was away goes unseen.
type sizeWatch struct {
	mu        sync.Mutex
	highest   map[claim]int64
	decreases []string
	// infeasible are the claims seen NodeResizeInfeasible: only those whose
	// refusal the node share scripted may be (see recovery).
	infeasible []sighting
	// reached is, per claim and capacity in bytes, when the claim was first
	// seen with that status.capacity.
	reached map[claim]map[int64]time.Time
	// statuses are the claims seen with each allocatedResourceStatuses[storage],
	// and conditions those seen with each condition of resize.
	statuses   map[v1.ClaimResourceStatus]map[claim]bool
	conditions map[v1.PersistentVolumeClaimConditionType]map[claim]bool
	events     int
	now        func() time.Time
}

func newSizeWatch() *sizeWatch {
	return &sizeWatch{highest: map[claim]int64{}, reached: map[claim]map[int64]time.Time{},
		statuses: map[v1.ClaimResourceStatus]map[claim]bool{}, conditions: map[v1.PersistentVolumeClaimConditionType]map[claim]bool{},
		now: time.Now}
}

// see records a claim's capacity and resize status.
func (w *sizeWatch) see(obj any) {
	pvc, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	cl := claim{ns: pvc.Namespace, name: pvc.Name}
	q := pvc.Status.Capacity[v1.ResourceStorage]
	size := q.Value()
	status := framework.ResizeStatus(pvc)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events++
	now := w.now()
	if highest := w.highest[cl]; highest > 0 && size < highest {
		w.decreases = append(w.decreases, fmt.Sprintf("%s %s: capacity %d -> %d bytes (resourceVersion %s)",
			now.Format(time.StampMilli), pvc.Name, highest, size, pvc.ResourceVersion))
	}
	w.highest[cl] = max(w.highest[cl], size)
	if w.reached[cl] == nil {
		w.reached[cl] = map[int64]time.Time{}
	}
	if _, ok := w.reached[cl][size]; !ok && size > 0 {
		w.reached[cl][size] = now
	}
	for _, c := range pvc.Status.Conditions {
		if isModify(c) {
			continue
		}
		if w.conditions[c.Type] == nil {
			w.conditions[c.Type] = map[claim]bool{}
		}
		w.conditions[c.Type][cl] = true
	}
	if status == "" {
		return
	}
	if w.statuses[status] == nil {
		w.statuses[status] = map[claim]bool{}
	}
	w.statuses[status][cl] = true
	if status == v1.PersistentVolumeClaimNodeResizeInfeasible {
		w.infeasible = append(w.infeasible, sighting{claim: cl, what: fmt.Sprintf("%s %s: %s (resourceVersion %s)",
			now.Format(time.StampMilli), pvc.Name, framework.Describe(pvc), pvc.ResourceVersion)})
	}
}

// sighting is a claim seen in a state, described for a failure message.
type sighting struct {
	claim claim
	what  string
}

// sizeFigures are what the size watch saw.
type sizeFigures struct {
	decreases  []string
	infeasible []sighting
	reached    map[claim]map[int64]time.Time
	// statuses and conditions count the claims seen with each resize
	// status and condition.
	statuses   map[string]int
	conditions map[string]int
	events     int
}

func (w *sizeWatch) figures() sizeFigures {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := sizeFigures{decreases: slices.Clone(w.decreases), infeasible: slices.Clone(w.infeasible),
		reached: map[claim]map[int64]time.Time{}, statuses: map[string]int{}, conditions: map[string]int{}, events: w.events}
	for cl, r := range w.reached {
		f.reached[cl] = maps.Clone(r)
	}
	for s, claims := range w.statuses {
		f.statuses[string(s)] = len(claims)
	}
	for c, claims := range w.conditions {
		f.conditions[string(c)] = len(claims)
	}
	return f
}
