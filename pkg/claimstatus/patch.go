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

package claimstatus

import (
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ClaimPatch is the merge patch of the claim's status from old to updated,
// as the status subresource takes it: it carries old's resourceVersion, so
// a claim that changed since the decision was made is a conflict, never
// overwritten. It is nil when nothing changed.
func ClaimPatch(old, updated *v1.PersistentVolumeClaim) ([]byte, error) {
	return encode(claimPatch(old, updated), old.ResourceVersion)
}

// VolumePatch is the merge patch of the PV from old to updated, guarded by
// old's resourceVersion like ClaimPatch; nil when nothing changed.
func VolumePatch(old, updated *v1.PersistentVolume) ([]byte, error) {
	return encode(volumePatch(old, updated), old.ResourceVersion)
}

// A patch is a JSON merge patch (RFC 7386) under construction: a nested
// map in which null removes a key and a list replaces the whole list.
type patch map[string]any

// claimPatch is the merge patch from old to updated over what the builders
// of this package change. It is built field by field, not by diffing whole
// objects: this runs three times a resize. The conditions go whole; the
// resourceVersion guard makes that safe.
func claimPatch(old, updated *v1.PersistentVolumeClaim) patch {
	status := patch{}
	putResources(status, "capacity", old.Status.Capacity, updated.Status.Capacity)
	putResources(status, "allocatedResources", old.Status.AllocatedResources, updated.Status.AllocatedResources)
	putMap(status, "allocatedResourceStatuses", old.Status.AllocatedResourceStatuses, updated.Status.AllocatedResourceStatuses,
		func(a, b v1.ClaimResourceStatus) bool { return a == b })
	if !apiequality.Semantic.DeepEqual(old.Status.Conditions, updated.Status.Conditions) {
		status["conditions"] = updated.Status.Conditions
	}
	putClass(status, "currentVolumeAttributesClassName", old.Status.CurrentVolumeAttributesClassName, updated.Status.CurrentVolumeAttributesClassName)
	if !apiequality.Semantic.DeepEqual(old.Status.ModifyVolumeStatus, updated.Status.ModifyVolumeStatus) {
		status["modifyVolumeStatus"] = updated.Status.ModifyVolumeStatus // null when nil
	}
	return withMetadata(old.Annotations, updated.Annotations, "status", status)
}

// volumePatch is the merge patch from old to updated over what the Volume*
// builders change: annotations, spec.capacity and its class.
func volumePatch(old, updated *v1.PersistentVolume) patch {
	spec := patch{}
	putResources(spec, "capacity", old.Spec.Capacity, updated.Spec.Capacity)
	putClass(spec, "volumeAttributesClassName", old.Spec.VolumeAttributesClassName, updated.Spec.VolumeAttributesClassName)
	return withMetadata(old.Annotations, updated.Annotations, "spec", spec)
}

// withMetadata returns the patch of the annotations with body under key,
// leaving out what is empty.
func withMetadata(old, updated map[string]string, key string, body patch) patch {
	meta, p := patch{}, patch{}
	putMap(meta, "annotations", old, updated, func(a, b string) bool { return a == b })
	if len(meta) > 0 {
		p["metadata"] = meta
	}
	if len(body) > 0 {
		p[key] = body
	}
	return p
}

// putResources is putMap for quantities, compared by their text:
// Quantity.Cmp of some valid quantities does not return in useful time (see
// decide.CheckSize), and writing an equal quantity in another form is
// harmless.
func putResources(p patch, key string, old, updated v1.ResourceList) {
	putMap(p, key, old, updated, func(a, b resource.Quantity) bool { return a.String() == b.String() })
}

// putMap adds the merge patch from the map old to updated to p under key:
// the changed and new keys with their value, the removed ones with null,
// nothing when they are equal. Keys are removed one by one, never the whole
// field, so a map that the cache keeps only part of (see package slim) is
// patched right.
func putMap[K ~string, V any](p patch, key string, old, updated map[K]V, equal func(a, b V) bool) {
	d := patch{}
	for k, v := range updated {
		if o, ok := old[k]; !ok || !equal(o, v) {
			d[string(k)] = v
		}
	}
	for k := range old {
		if _, ok := updated[k]; !ok {
			d[string(k)] = nil
		}
	}
	if len(d) > 0 {
		p[key] = d
	}
}

// putClass adds a class name field to p when it changed; null removes it.
func putClass(p patch, key string, old, updated *string) {
	switch {
	case updated == nil && old != nil:
		p[key] = nil
	case updated != nil && (old == nil || *old != *updated):
		p[key] = *updated
	}
}

// encode returns the patch with the resourceVersion guard as JSON, or nil
// when the patch is empty.
func encode(p patch, resourceVersion string) ([]byte, error) {
	if len(p) == 0 {
		return nil, nil
	}
	meta, _ := p["metadata"].(patch)
	if meta == nil {
		meta = patch{}
		p["metadata"] = meta
	}
	meta["resourceVersion"] = resourceVersion
	data, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode patch: %w", err)
	}
	return data, nil
}
