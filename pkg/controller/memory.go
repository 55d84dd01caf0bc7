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
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-resizer/csi-resizer/pkg/modify"
	"github.com/csi-resizer/csi-resizer/pkg/resize"
)

// memory is what the controller keeps between syncs of a claim: the last
// failure of each operation (for the decisions), the class the driver
// applied but the claim does not record yet, and the objects it wrote last,
// which may be newer than the informer cache for a moment after each write.
// Entries go when the claim is deleted; written objects go once the cache
// catches up.
//
// What is remembered of a claim is kept under its key and belongs to its
// UID: a claim deleted and created again under the same name (even before
// the informer saw the deletion) is another claim, and inherits nothing.
type memory struct {
	mu       sync.Mutex
	failures map[string]owned[resize.Failure]
	modifies map[string]owned[modify.Failure]
	applied  map[string]owned[string]
	claims   map[string]*v1.PersistentVolumeClaim
	volumes  map[string]*v1.PersistentVolume
}

// claimID names a claim: its key (namespace/name) and its UID.
type claimID struct {
	key string
	uid types.UID
}

// idOf is the claimID of pvc, whose key is key.
func idOf(key string, pvc *v1.PersistentVolumeClaim) claimID { return claimID{key: key, uid: pvc.UID} }

// owned is a remembered value and the UID of the claim it belongs to.
type owned[F any] struct {
	uid   types.UID
	value F
}

func newMemory() *memory {
	return &memory{
		failures: map[string]owned[resize.Failure]{},
		modifies: map[string]owned[modify.Failure]{},
		applied:  map[string]owned[string]{},
		claims:   map[string]*v1.PersistentVolumeClaim{},
		volumes:  map[string]*v1.PersistentVolume{},
	}
}

func (m *memory) failure(id claimID) *resize.Failure { return lookup(m, m.failures, id) }

func (m *memory) setFailure(id claimID, f resize.Failure) { store(m, m.failures, id, f) }

func (m *memory) clearFailure(id claimID) { drop(m, m.failures, id) }

func (m *memory) modifyFailure(id claimID) *modify.Failure { return lookup(m, m.modifies, id) }

func (m *memory) setModifyFailure(id claimID, f modify.Failure) { store(m, m.modifies, id, f) }

func (m *memory) clearModifyFailure(id claimID) { drop(m, m.modifies, id) }

// appliedClass is the class the driver applied to the claim's volume last,
// while writing it down has not succeeded yet; "" when none.
func (m *memory) appliedClass(id claimID) string {
	if c := lookup(m, m.applied, id); c != nil {
		return *c
	}
	return ""
}

func (m *memory) setAppliedClass(id claimID, class string) { store(m, m.applied, id, class) }

func (m *memory) clearAppliedClass(id claimID) { drop(m, m.applied, id) }

// lookup returns a copy of what is remembered of the claim id in values;
// nil when nothing is, or when it belongs to another claim of that name.
func lookup[F any](m *memory, values map[string]owned[F], id claimID) *F {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := values[id.key]
	if !ok || v.uid != id.uid {
		return nil
	}
	return &v.value
}

// store remembers f of the claim id in values, replacing what another claim
// of that name left.
func store[F any](m *memory, values map[string]owned[F], id claimID, f F) {
	m.mu.Lock()
	defer m.mu.Unlock()
	values[id.key] = owned[F]{uid: id.uid, value: f}
}

// drop forgets what values holds under the claim's key.
func drop[F any](m *memory, values map[string]owned[F], id claimID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(values, id.key)
}

// wroteClaim remembers a claim as the API server returned it after a write.
func (m *memory) wroteClaim(key string, pvc *v1.PersistentVolumeClaim) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.claims[key] = pvc
}

// wroteVolume remembers a PV as the API server returned it after a write.
func (m *memory) wroteVolume(pv *v1.PersistentVolume) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.volumes[pv.Name] = pv
}

// freshClaim returns the newer of the cached claim and the one written last.
func (m *memory) freshClaim(key string, cached *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	m.mu.Lock()
	defer m.mu.Unlock()
	return newer(m.claims, key, cached)
}

// freshVolume returns the newer of the cached PV and the one written last.
func (m *memory) freshVolume(cached *v1.PersistentVolume) *v1.PersistentVolume {
	if cached == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return newer(m.volumes, cached.Name, cached)
}

// forget drops everything known about a deleted claim.
func (m *memory) forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.failures, key)
	delete(m.modifies, key)
	delete(m.applied, key)
	delete(m.claims, key)
}

// forgetVolume drops a deleted PV.
func (m *memory) forgetVolume(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.volumes, name)
}

// size reports how many entries are held, for tests of the clean-up.
func (m *memory) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.failures) + len(m.modifies) + len(m.applied) + len(m.claims) + len(m.volumes)
}

type versioned interface {
	GetResourceVersion() string
}

// newer picks the written object while the cache still holds an older
// version, and forgets it once the cache has caught up. Resource versions
// are compared as numbers, which etcd-backed servers give; when they are not
// numbers the cache wins.
func newer[T versioned](written map[string]T, key string, cached T) T {
	w, ok := written[key]
	if !ok {
		return cached
	}
	wrote, err1 := strconv.ParseUint(w.GetResourceVersion(), 10, 64)
	seen, err2 := strconv.ParseUint(cached.GetResourceVersion(), 10, 64)
	if err1 == nil && err2 == nil && seen < wrote {
		return w
	}
	delete(written, key)
	return cached
}
