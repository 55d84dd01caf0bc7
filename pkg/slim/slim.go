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

// Package slim holds the projections of claims and PVs that the resizer's
// informers cache instead of whole objects: only the fields the resizer
// reads. With ten thousand claims and volumes the caches are most of its
// memory, and most of a decoded object is never looked at. Each projection
// turns back into a v1 object holding the kept fields; maps of resources keep
// only the storage entry, so patches built from one must touch keys one by
// one (see statuspatch), never replace a map or list not kept whole. Meta
// also serves the pod projection of package inuse.
package slim

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// LastApplied is kubectl's copy of the whole object: often the largest
// annotation, and never read.
const LastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Meta is the identity of a cached object: what the cache's key, the
// informer's resync detection and the event recorder read. It stands in for
// metav1.ObjectMeta, four times its size, of which a cached object would use
// four fields.
type Meta struct {
	Name, Namespace string
	UID             types.UID
	ResourceVersion string
}

// GetObjectMeta makes the projections metav1.ObjectMetaAccessor, which is
// what meta.Accessor and so the cache's key functions take.
func (m *Meta) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion}
}

// GetObjectKind returns an empty kind: a projection never goes over the
// wire. With DeepCopyObject it makes a projection a runtime.Object, which
// parts of client-go assert on stored objects (the watch-list consistency
// detector, the cache mutation detector, generic listers).
func (m *Meta) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// transform returns a cache.TransformFunc that turns a *T into its
// projection; anything else passes unchanged (client-go does not transform
// tombstones, and a re-list may hand back an object already projected).
func transform[T, P any](project func(*T) P) func(any) (any, error) {
	return func(obj any) (any, error) {
		if o, ok := obj.(*T); ok && o != nil {
			return project(o), nil
		}
		return obj, nil
	}
}

// MetaOf returns the identity of an object. The strings are shared with
// the decoded object, not copied.
func MetaOf(m *metav1.ObjectMeta) Meta {
	return Meta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion}
}

// objectMeta returns the metadata of a rebuilt object.
func (m *Meta) objectMeta(annotations, labels Pairs) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		Annotations: annotations.Map(), Labels: labels.Map(),
	}
}

// quantity returns a copy of q, nil when q is nil.
func quantity(q *resource.Quantity) *resource.Quantity {
	if q == nil {
		return nil
	}
	c := q.DeepCopy()
	return &c
}

// Pairs is a small map of strings kept as its keys and values, each key
// followed by its value. A Go map of a few entries weighs several times
// more, and annotations are read rarely: once a sync, not once an event.
type Pairs []string

// PairsOf returns the entries of m but the key drop, nil when none is left.
// The strings are shared with m.
func PairsOf(m map[string]string, drop string) Pairs {
	n := len(m)
	if _, ok := m[drop]; ok {
		n--
	}
	if n == 0 {
		return nil
	}
	p := make(Pairs, 0, 2*n)
	for k, v := range m {
		if k != drop {
			p = append(p, k, v)
		}
	}
	return p
}

// Get returns the value of key, "" when absent.
func (p Pairs) Get(key string) string {
	for i := 0; i+1 < len(p); i += 2 {
		if p[i] == key {
			return p[i+1]
		}
	}
	return ""
}

// Map returns the entries as a new map, nil when there are none.
func (p Pairs) Map() map[string]string {
	if len(p) == 0 {
		return nil
	}
	m := make(map[string]string, len(p)/2)
	for i := 0; i+1 < len(p); i += 2 {
		m[p[i]] = p[i+1]
	}
	return m
}
