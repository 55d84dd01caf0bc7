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

package slim

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

// Claim is what the cache keeps of a PersistentVolumeClaim.
type Claim struct {
	Meta
	// Annotations are all but kubectl's last-applied copy: templated secret
	// names may read any annotation.
	Annotations      Pairs
	VolumeName       string
	StorageClassName *string
	Phase            v1.PersistentVolumeClaimPhase
	// Request, Capacity and Allocated are the storage entries of
	// spec.resources.requests, status.capacity and
	// status.allocatedResources; nil when absent.
	Request, Capacity, Allocated *resource.Quantity
	// ResizeStatus is status.allocatedResourceStatuses[storage].
	ResizeStatus *v1.ClaimResourceStatus
	// Conditions are kept whole: a status patch writes the whole list.
	Conditions []v1.PersistentVolumeClaimCondition
	// Classes is nil for the many claims that use no
	// VolumeAttributesClass, so that they pay one pointer for them.
	Classes *ClaimClasses
}

// ClaimClasses are a claim's VolumeAttributesClass fields.
type ClaimClasses struct {
	// Spec is spec.volumeAttributesClassName.
	Spec *string
	// Current is status.currentVolumeAttributesClassName.
	Current *string
	// Modify is status.modifyVolumeStatus.
	Modify *v1.ModifyVolumeStatus
}

// DeepCopy returns an independent copy; nil stays nil.
func (c *ClaimClasses) DeepCopy() *ClaimClasses {
	if c == nil {
		return nil
	}
	return &ClaimClasses{Spec: clone(c.Spec), Current: clone(c.Current), Modify: c.Modify.DeepCopy()}
}

var _ runtime.Object = &Claim{}

// NewClaim returns the projection of pvc. It shares pvc's strings and
// quantities, so pvc must not change afterwards.
func NewClaim(pvc *v1.PersistentVolumeClaim) *Claim {
	c := &Claim{
		Meta:             MetaOf(&pvc.ObjectMeta),
		Annotations:      PairsOf(pvc.Annotations, LastApplied),
		VolumeName:       pvc.Spec.VolumeName,
		StorageClassName: pvc.Spec.StorageClassName,
		Phase:            pvc.Status.Phase,
		Request:          storage(pvc.Spec.Resources.Requests),
		Capacity:         storage(pvc.Status.Capacity),
		Allocated:        storage(pvc.Status.AllocatedResources),
		Conditions:       pvc.Status.Conditions,
	}
	if s, ok := pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage]; ok {
		c.ResizeStatus = &s
	}
	// Claims without classes, the common case, allocate none.
	spec, current, modify := pvc.Spec.VolumeAttributesClassName, pvc.Status.CurrentVolumeAttributesClassName, pvc.Status.ModifyVolumeStatus
	if spec != nil || current != nil || modify != nil {
		c.Classes = &ClaimClasses{Spec: spec, Current: current, Modify: modify}
	}
	return c
}

// PVC returns a new claim holding the kept fields.
func (c *Claim) PVC() *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: c.objectMeta(c.Annotations, nil),
		Spec: v1.PersistentVolumeClaimSpec{
			VolumeName:       c.VolumeName,
			StorageClassName: clone(c.StorageClassName),
			Resources:        v1.VolumeResourceRequirements{Requests: resourceList(c.Request)},
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:              c.Phase,
			Capacity:           resourceList(c.Capacity),
			AllocatedResources: resourceList(c.Allocated),
			Conditions:         copyConditions(c.Conditions),
		},
	}
	if cc := c.Classes.DeepCopy(); cc != nil {
		pvc.Spec.VolumeAttributesClassName = cc.Spec
		pvc.Status.CurrentVolumeAttributesClassName = cc.Current
		pvc.Status.ModifyVolumeStatus = cc.Modify
	}
	if c.ResizeStatus != nil {
		pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: *c.ResizeStatus}
	}
	return pvc
}

// TransformClaim is a cache.TransformFunc that turns a *v1.PersistentVolumeClaim
// into a *Claim.
var TransformClaim = transform(NewClaim)

// DeepCopyObject returns a deep copy of c.
func (c *Claim) DeepCopyObject() runtime.Object {
	out := *c
	out.Annotations = slices.Clone(c.Annotations)
	out.StorageClassName = clone(c.StorageClassName)
	out.Request, out.Capacity, out.Allocated = quantity(c.Request), quantity(c.Capacity), quantity(c.Allocated)
	out.ResizeStatus = clone(c.ResizeStatus)
	out.Conditions = copyConditions(c.Conditions)
	out.Classes = c.Classes.DeepCopy()
	return &out
}

// storage returns the storage entry of list, nil when absent.
func storage(list v1.ResourceList) *resource.Quantity {
	if q, ok := list[v1.ResourceStorage]; ok {
		return &q
	}
	return nil
}

// resourceList returns a list holding a copy of q as storage, nil when q is
// nil.
func resourceList(q *resource.Quantity) v1.ResourceList {
	if q == nil {
		return nil
	}
	return v1.ResourceList{v1.ResourceStorage: q.DeepCopy()}
}

func copyConditions(c []v1.PersistentVolumeClaimCondition) []v1.PersistentVolumeClaimCondition {
	if c == nil {
		return nil
	}
	out := slices.Clone(c)
	for i := range out {
		c[i].DeepCopyInto(&out[i])
	}
	return out
}

// clone returns a copy of *p, nil when p is nil.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
