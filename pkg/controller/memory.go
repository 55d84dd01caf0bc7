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

	"github.com/csi-resizer/csi-resizer/pkg/modify"
	"github.com/csi-resizer/csi-resizer/pkg/resize"
)

// memory is what the controller keeps between syncs of a claim: the last
// failure of each operation (for the decisions), the class the driver
// applied but the claim does not record yet, and the objects it wrote last,
// which may be newer than the informer cache for a moment after each write.
// Entries go when the claim is deleted; written objects go once the cache
// catches up.
type memory struct {
	mu       sync.Mutex
	failures map[string]resize.Failure
	modifies map[string]modify.Failure
	applied  map[string]string
	claims   map[string]*v1.PersistentVolumeClaim
	volumes  map[string]*v1.PersistentVolume
}

func newMemory() *memory {
	return &memory{
		failures: map[string]resize.Failure{},
		modifies: map[string]modify.Failure{},
		applied:  map[string]string{},
		claims:   map[string]*v1.PersistentVolumeClaim{},
		volumes:  map[string]*v1.PersistentVolume{},
	}
}

func (m *memory) failure(key string) *resize.Failure { return lookup(m, m.failures, key) }

func (m *memory) setFailure(key string, f resize.Failure) { store(m, m.failures, key, f) }

func (m *memory) clearFailure(key string) { drop(m, m.failures, key) }

func (m *memory) modifyFailure(key string) *modify.Failure { return lookup(m, m.modifies, key) }

func (m *memory) setModifyFailure(key string, f modify.Failure) { store(m, m.modifies, key, f) }

func (m *memory) clearModifyFailure(key string) { drop(m, m.modifies, key) }

// appliedClass is the class the driver applied to the claim's volume last,
// while writing it down has not succeeded yet; "" when none.
func (m *memory) appliedClass(key string) string {
	if c := lookup(m, m.applied, key); c != nil {
		return *c
	}
	return ""
}

func (m *memory) setAppliedClass(key, class string) { store(m, m.applied, key, class) }

func (m *memory) clearAppliedClass(key string) { drop(m, m.applied, key) }

// lookup returns a copy of what is remembered for key in failures.
func lookup[F any](m *memory, failures map[string]F, key string) *F {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := failures[key]
	if !ok {
		return nil
	}
	return &f
}

// store remembers f for key in failures.
func store[F any](m *memory, failures map[string]F, key string, f F) {
	m.mu.Lock()
	defer m.mu.Unlock()
	failures[key] = f
}

// drop forgets the failure of key in failures.
func drop[F any](m *memory, failures map[string]F, key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(failures, key)
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
