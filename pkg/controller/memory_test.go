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
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

func (r *remembered[V]) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.values)
}

func (t *track[T, R]) len() int { return t.failures.len() + t.applied.len() }

// size reports how many entries are held, for tests of the clean-up.
func (m *memory) size() int {
	return m.resize.len() + m.modify.len() + m.refused.len() + m.rounded.len() + m.handedBack.len() + m.claims.len() + m.volumes.len()
}

func withVersion(rv string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns, ResourceVersion: rv}}
}

func TestFreshClaim(t *testing.T) {
	tests := []struct {
		name        string
		written     string
		cached      string
		wantVersion string
		wantKept    bool
	}{
		{name: "cache older than the write: use the write", written: "10", cached: "9", wantVersion: "10", wantKept: true},
		{name: "cache caught up: use and forget", written: "10", cached: "10", wantVersion: "10"},
		{name: "cache newer: use the cache", written: "10", cached: "12", wantVersion: "12"},
		{name: "versions not numbers: the cache wins", written: "b", cached: "a", wantVersion: "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &memory{}
			m.claims.set(claimID{key: "default/a"}, withVersion(tc.written))
			got := fresh(&m.claims, "default/a", withVersion(tc.cached))
			equal(t, "version", got.ResourceVersion, tc.wantVersion)
			equal(t, "still remembered", m.size() == 1, tc.wantKept)
		})
	}
}

func TestFreshVolumeAndForget(t *testing.T) {
	m := &memory{}
	m.volumes.set(claimID{key: "pv-a"}, &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-a", ResourceVersion: "5"}})
	got := fresh(&m.volumes, "pv-a", &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-a", ResourceVersion: "4"}})
	equal(t, "PV version", got.ResourceVersion, "5")
	id := claimID{key: "default/a", uid: "uid-a"}
	m.resize.failures.set(id, decide.ResizeFailure{Class: decide.Final})
	m.resize.applied.set(id, applied[resource.Quantity, expansion]{target: resource.MustParse("2Gi")})
	m.modify.failures.set(id, decide.ModifyFailure{Class: decide.Final})
	m.modify.applied.set(id, applied[string, struct{}]{target: "gold"})
	m.claims.set(claimID{key: "default/a"}, withVersion("3"))
	equal(t, "entries held", m.size(), 6)
	m.forget("default/a")
	m.volumes.forget("pv-a")
	equal(t, "entries left", m.size(), 0)
	if m.resize.failures.get(id) != nil || m.modify.applied.get(id) != nil {
		t.Error("memory survived forget")
	}
}

// TestMemoryBelongsToTheClaimsUID: what is remembered of a claim is not
// seen by another claim of the same name, and that claim's own replaces it.
func TestMemoryBelongsToTheClaimsUID(t *testing.T) {
	m := &memory{}
	first, second := claimID{key: "default/a", uid: "uid-1"}, claimID{key: "default/a", uid: "uid-2"}
	m.resize.failures.set(first, decide.ResizeFailure{Class: decide.Final})
	m.modify.applied.set(first, applied[string, struct{}]{target: "gold"})
	if m.resize.failures.get(second) != nil || m.modify.applied.get(second) != nil {
		t.Error("a claim created again under the same name sees the first one's memory")
	}
	m.modify.applied.set(second, applied[string, struct{}]{target: "silver"})
	equal(t, "the second claim's class", m.modify.applied.get(second).target, "silver")
	equal(t, "the first claim's class, replaced", m.modify.applied.get(first) == nil, true)
	equal(t, "the first claim's failure, still its own", m.resize.failures.get(first) != nil, true)
}
