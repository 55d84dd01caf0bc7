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

package controller

import (
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

// memory is what the controller keeps between syncs of a claim: for each
// operation, what it remembers of the claim's last driver call (see track),
// and the objects it wrote last, which may be newer than the informer cache
// for a moment after each write. A claim's entries go when it is deleted;
// written objects go once the cache catches up.
type memory struct {
	resize track[resource.Quantity, expansion]
	modify track[string, struct{}]
	// rounded is the last expansion of each claim that the driver answered
	// with more than its target, growing the volume (see decide.Rounding):
	// what tells a rounding driver's size from a size kubelet refused.
	rounded remembered[decide.Rounding]
	// handedBack is the last size of each claim handed back to kubelet
	// (see decide.HandBack).
	handedBack remembered[decide.HandBack]
	// refused is the last refusal of each claim that --node-deployment
	// refuses and that an event told (see refuse).
	refused remembered[string]
	// claims and volumes are the objects written last, under their key and
	// no UID (see fresh).
	claims  remembered[*v1.PersistentVolumeClaim]
	volumes remembered[*v1.PersistentVolume]
}

// track is what the controller remembers of one operation's driver calls:
// the last failure of each claim (for the decision), and the driver's
// success whose writes have not all succeeded yet (so that only the writes
// are retried).
type track[T, R any] struct {
	failures remembered[decide.Failure[T]]
	applied  remembered[applied[T, R]]
}

// applied is a driver call to target that succeeded with result.
type applied[T, R any] struct {
	target T
	result R
}

// claimID names a claim: its key (namespace/name) and its UID.
type claimID struct {
	key string
	uid types.UID
}

// idOf is the claimID of pvc, whose key is key.
func idOf(key string, pvc *v1.PersistentVolumeClaim) claimID { return claimID{key: key, uid: pvc.UID} }

// remembered holds one value per claim. It is kept under the claim's key
// and belongs to its UID: a claim deleted and created again under the same
// name (even before the informer saw the deletion) is another claim, and
// inherits nothing.
type remembered[V any] struct {
	mu     sync.Mutex
	values map[string]owned[V]
}

// owned is a remembered value and the UID of the claim it belongs to.
type owned[V any] struct {
	uid   types.UID
	value V
}

// get returns a copy of what is remembered of the claim id; nil when
// nothing is, or when it belongs to another claim of that name.
func (r *remembered[V]) get(id claimID) *V {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.values[id.key]
	if !ok || v.uid != id.uid {
		return nil
	}
	return &v.value
}

// set remembers v of the claim id, replacing what another claim of that
// name left.
func (r *remembered[V]) set(id claimID, v V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]owned[V]{}
	}
	r.values[id.key] = owned[V]{uid: id.uid, value: v}
}

// forget drops what is remembered under key, of whichever claim.
func (r *remembered[V]) forget(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.values, key)
}

// forget drops everything the track holds of the claim key.
func (t *track[T, R]) forget(key string) {
	t.failures.forget(key)
	t.applied.forget(key)
}

// forget drops everything known about a deleted claim.
func (m *memory) forget(key string) {
	m.resize.forget(key)
	m.modify.forget(key)
	m.rounded.forget(key)
	m.handedBack.forget(key)
	m.refused.forget(key)
	m.claims.forget(key)
}

// fresh returns the object written last under key while the cache still
// holds an older version of it, cached, and forgets it once the cache has
// caught up. Resource versions are compared as numbers, which etcd-backed
// servers give; when they are not numbers the cache wins.
func fresh[T interface{ GetResourceVersion() string }](written *remembered[T], key string, cached T) T {
	written.mu.Lock()
	defer written.mu.Unlock()
	w, ok := written.values[key]
	if !ok {
		return cached
	}
	wrote, err1 := strconv.ParseUint(w.value.GetResourceVersion(), 10, 64)
	seen, err2 := strconv.ParseUint(cached.GetResourceVersion(), 10, 64)
	if err1 == nil && err2 == nil && seen < wrote {
		return w.value
	}
	delete(written.values, key)
	return cached
}
