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
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// refusal is the answer of NodeExpandVolume that makes kubelet mark a claim
// NodeResizeInfeasible at once (OutOfRange is infeasible for kubelet).
var refusal = framework.Answer{Code: codes.OutOfRange.String(), Message: "injected: the file system cannot grow to that size"}

// recovery is the node share's recovery from sizes the node refuses
// (KEP-1790; docs/design.md, "Recovery cases", R11 and R12 with its then).
// In the waves between the first and the last, a few of the node share's
// claims at rest get a refusal: the NodeExpandVolume of the wave's growth
// is answered OutOfRange, and kubelet marks the claim NodeResizeInfeasible.
// When the claim watch shows that, the user's part is played here: the
// request is lowered to halfway between status.capacity and the refused
// size, which the volume holds; the resizer must hand it to kubelet with
// no driver call, and kubelet finish at it. The last wave raises a few of
// the lowered claims again, within the PV and above it, which must finish
// on the node. A claim once refused grows no more in the waves (it is
// held): its sizes are the recovery's.
type recovery struct {
	mu sync.Mutex
	// last is each claim as the claim watch last saw it.
	last    map[claim]claimState
	records map[claim]*recovering
	// wake tells the lowering loop that a claim was seen infeasible.
	wake chan struct{}
	stop context.CancelFunc
	done chan struct{}
	now  func() time.Time
}

// claimState is what the recovery reads of a claim: its sizes in bytes and
// resize status.
type claimState struct {
	request, capacity, allocated int64
	status                       v1.ClaimResourceStatus
}

// atRest reports whether the claim is finished at size: requested, at that
// capacity, nothing in progress.
func (s claimState) atRest(size int64) bool {
	return s.request == size && s.capacity == size && s.status == ""
}

// recovering is one claim's way through a refusal.
type recovering struct {
	// infeasible is when the claim watch first saw NodeResizeInfeasible;
	// capacity and refused are its status.capacity and allocatedResources
	// then (refused is the size the node refused).
	infeasible        time.Time
	capacity, refused int64
	// lowered is the size the request was lowered to, loweredAt when the
	// API server took it; problem says why it could not be.
	lowered   int64
	loweredAt time.Time
	problem   string
	// raised is the size of the raise after the recovery, raisedAt when it
	// was asked; within when it is within the PV (kubelet's alone).
	raised   int64
	raisedAt time.Time
	within   bool
}

func newRecovery() *recovery {
	return &recovery{last: map[claim]claimState{}, records: map[claim]*recovering{}, wake: make(chan struct{}, 1), now: time.Now}
}

// see records a claim as the claim watch saw it, and wakes the lowering
// loop when a refused claim first shows NodeResizeInfeasible.
func (r *recovery) see(obj any) {
	pvc, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	cl := claim{ns: pvc.Namespace, name: pvc.Name}
	request, capacity := pvc.Spec.Resources.Requests[v1.ResourceStorage], pvc.Status.Capacity[v1.ResourceStorage]
	allocated := pvc.Status.AllocatedResources[v1.ResourceStorage]
	state := claimState{request: request.Value(), capacity: capacity.Value(), allocated: allocated.Value(), status: framework.ResizeStatus(pvc)}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last[cl] = state
	rec := r.records[cl]
	if rec == nil || !rec.infeasible.IsZero() || state.status != v1.PersistentVolumeClaimNodeResizeInfeasible {
		return
	}
	rec.infeasible, rec.capacity, rec.refused = r.now(), state.capacity, state.allocated
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// start runs the lowering loop: each refused claim seen infeasible gets its
// request lowered with lower, as a user would, until stop.
func (r *recovery) start(ctx context.Context, lower func(ctx context.Context, cl claim, size int64) error) {
	ctx, r.stop = context.WithCancel(ctx)
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.wake:
			}
			for _, cl := range r.due() {
				r.lowerOne(ctx, cl, lower)
			}
		}
	}()
}

// close stops the lowering loop and waits for it.
func (r *recovery) close() {
	if r.stop != nil {
		r.stop()
		<-r.done
	}
}

// due lists the claims seen infeasible and not lowered yet, and settles
// their lowered size (or why there is none).
func (r *recovery) due() []claim {
	r.mu.Lock()
	defer r.mu.Unlock()
	var due []claim
	for _, cl := range slices.SortedFunc(maps.Keys(r.records), byName) {
		rec := r.records[cl]
		if rec.infeasible.IsZero() || rec.lowered > 0 || rec.problem != "" {
			continue
		}
		size, ok := midway(rec.capacity, rec.refused)
		if !ok {
			rec.problem = "no size between its capacity and the refused size to lower the request to"
			continue
		}
		rec.lowered = size
		due = append(due, cl)
	}
	return due
}

// lowerOne lowers the request of a claim to its settled lowered size.
func (r *recovery) lowerOne(ctx context.Context, cl claim, lower func(ctx context.Context, cl claim, size int64) error) {
	r.mu.Lock()
	size := r.records[cl].lowered
	r.mu.Unlock()
	err := lower(ctx, cl, size)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.records[cl].problem = "lowering the request: " + err.Error()
		return
	}
	r.records[cl].loweredAt = r.now()
}

// held lists the claims refused so far.
func (r *recovery) held() map[claim]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	held := map[claim]bool{}
	for cl := range r.records {
		held[cl] = true
	}
	return held
}

// restsAt reports whether the claim watch last saw the claim finished at
// size.
func (r *recovery) restsAt(cl claim, size int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.last[cl]
	return ok && s.atRest(size)
}

// arm records the refusal of a claim's next expansion.
func (r *recovery) arm(cl claim) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records[cl] = &recovering{}
}

// refused lists the claims refused so far, by name.
func (r *recovery) refused() []claim {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.SortedFunc(maps.Keys(r.records), byName)
}

// recovered is the size a claim was lowered to, if it was, is not raised
// yet, and the claim watch last saw it finished at that size.
func (r *recovery) recovered(cl claim) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.records[cl]
	if rec == nil || rec.loweredAt.IsZero() || rec.raised > 0 || !r.last[cl].atRest(rec.lowered) {
		return 0, false
	}
	return rec.lowered, true
}

// raise records the raise of a lowered claim to size.
func (r *recovery) raise(cl claim, size int64, within bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.records[cl]
	rec.raised, rec.raisedAt, rec.within = size, r.now(), within
}

// snapshot copies the records, for the checks.
func (r *recovery) snapshot() map[claim]recovering {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[claim]recovering, len(r.records))
	for cl, rec := range r.records {
		out[cl] = *rec
	}
	return out
}

func byName(a, b claim) int { return strings.Compare(a.name, b.name) }
