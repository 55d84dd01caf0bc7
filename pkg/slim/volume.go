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
	"k8s.io/apimachinery/pkg/types"
)

// Volume is what the cache keeps of a PersistentVolume.
type Volume struct {
	Meta
	// Annotations are all but kubectl's last-applied copy.
	Annotations Pairs
	// Labels are kept only for in-tree volumes, whose translation to CSI
	// reads the zone labels.
	Labels Pairs
	// Capacity is spec.capacity[storage]; nil when absent.
	Capacity *resource.Quantity
	// Claim is spec.claimRef's namespace, name and UID; Bound is false when
	// there is no claimRef.
	ClaimNamespace, ClaimName string
	ClaimUID                  types.UID
	Bound                     bool
	// CSI is the kept part of spec.csi; nil for in-tree volumes.
	CSI *CSISource
	// InTree is the whole source of a volume that is not CSI, for the
	// translation of CSI migration; nil for CSI volumes.
	InTree           *v1.PersistentVolumeSource
	AccessModes      []v1.PersistentVolumeAccessMode
	VolumeMode       *v1.PersistentVolumeMode
	MountOptions     []string
	StorageClassName string
	// Class is spec.volumeAttributesClassName.
	Class *string
	// NodeAffinity is spec.nodeAffinity.required, kept only by
	// NewVolumeWithAffinity: with --node-deployment it says which node's
	// resizer the volume is.
	NodeAffinity *v1.NodeSelector
	// Partial is set on a volume that keeps only what ownership reads
	// (OwnershipOnly): its annotations, capacity, modes, classes and the
	// rest of spec.csi are not kept.
	Partial bool
}

// CSISource is what the resizer reads of spec.csi: not the volume
// attributes, nor the secrets of other operations.
type CSISource struct {
	Driver, VolumeHandle, FSType string
	ReadOnly                     bool
	ControllerExpandSecretRef    *v1.SecretReference
}

var _ runtime.Object = &Volume{}

// NewVolume returns the projection of pv. It shares pv's strings and
// quantities, so pv must not change afterwards.
func NewVolume(pv *v1.PersistentVolume) *Volume {
	v := &Volume{
		Meta:             MetaOf(&pv.ObjectMeta),
		Annotations:      PairsOf(pv.Annotations, LastApplied),
		Capacity:         storage(pv.Spec.Capacity),
		AccessModes:      pv.Spec.AccessModes,
		VolumeMode:       pv.Spec.VolumeMode,
		MountOptions:     pv.Spec.MountOptions,
		StorageClassName: pv.Spec.StorageClassName,
		Class:            pv.Spec.VolumeAttributesClassName,
	}
	if r := pv.Spec.ClaimRef; r != nil {
		v.ClaimNamespace, v.ClaimName, v.ClaimUID, v.Bound = r.Namespace, r.Name, r.UID, true
	}
	if s := pv.Spec.CSI; s != nil {
		v.CSI = &CSISource{
			Driver: s.Driver, VolumeHandle: s.VolumeHandle, FSType: s.FSType, ReadOnly: s.ReadOnly,
			ControllerExpandSecretRef: s.ControllerExpandSecretRef,
		}
	} else {
		src := pv.Spec.PersistentVolumeSource // a copy: a pointer into pv would keep all of pv
		v.InTree = &src
		v.Labels = PairsOf(pv.Labels, "")
	}
	return v
}

// NewVolumeWithAffinity is NewVolume that also keeps the required node
// affinity, which it shares with pv.
func NewVolumeWithAffinity(pv *v1.PersistentVolume) *Volume {
	v := NewVolume(pv)
	if a := pv.Spec.NodeAffinity; a != nil {
		v.NodeAffinity = a.Required
	}
	return v
}

// OwnershipOnly returns the projection of pv with what package ownership
// reads of it: its name, claimRef, CSI driver and volume handle (or its
// in-tree source, for CSI migration) and its required node affinity. With
// --node-deployment the volumes of other nodes are kept so, in case the
// node's labels come to make one the node's.
func OwnershipOnly(pv *v1.PersistentVolume) *Volume {
	whole := NewVolumeWithAffinity(pv)
	v := &Volume{
		Meta: whole.Meta, Labels: whole.Labels, InTree: whole.InTree, NodeAffinity: whole.NodeAffinity, Partial: true,
		ClaimNamespace: whole.ClaimNamespace, ClaimName: whole.ClaimName, ClaimUID: whole.ClaimUID, Bound: whole.Bound,
	}
	if c := whole.CSI; c != nil {
		v.CSI = &CSISource{Driver: c.Driver, VolumeHandle: c.VolumeHandle}
	}
	return v
}

// TransformVolumeKeeping is a cache.TransformFunc that keeps of a PV what
// NewVolumeWithAffinity does when whole says so, and what OwnershipOnly
// does otherwise.
func TransformVolumeKeeping(whole func(*v1.PersistentVolume) bool) func(any) (any, error) {
	return transform(func(pv *v1.PersistentVolume) *Volume {
		if whole(pv) {
			return NewVolumeWithAffinity(pv)
		}
		return OwnershipOnly(pv)
	})
}

// PV returns a new PV holding the kept fields.
func (v *Volume) PV() *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: v.objectMeta(v.Annotations, v.Labels),
		Spec: v1.PersistentVolumeSpec{
			Capacity:                  resourceList(v.Capacity),
			AccessModes:               slices.Clone(v.AccessModes),
			VolumeMode:                clone(v.VolumeMode),
			MountOptions:              slices.Clone(v.MountOptions),
			StorageClassName:          v.StorageClassName,
			VolumeAttributesClassName: clone(v.Class),
		},
	}
	if v.Bound {
		pv.Spec.ClaimRef = &v1.ObjectReference{Namespace: v.ClaimNamespace, Name: v.ClaimName, UID: v.ClaimUID}
	}
	if v.NodeAffinity != nil {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: v.NodeAffinity.DeepCopy()}
	}
	switch {
	case v.InTree != nil:
		v.InTree.DeepCopyInto(&pv.Spec.PersistentVolumeSource)
	case v.CSI != nil:
		pv.Spec.CSI = &v1.CSIPersistentVolumeSource{
			Driver: v.CSI.Driver, VolumeHandle: v.CSI.VolumeHandle, FSType: v.CSI.FSType, ReadOnly: v.CSI.ReadOnly,
			ControllerExpandSecretRef: v.CSI.ControllerExpandSecretRef.DeepCopy(),
		}
	}
	return pv
}

// TransformVolume is a cache.TransformFunc that turns a *v1.PersistentVolume
// into a *Volume.
var TransformVolume = transform(NewVolume)

// DeepCopyObject returns a deep copy of v.
func (v *Volume) DeepCopyObject() runtime.Object {
	out := *v
	out.Annotations, out.Labels = slices.Clone(v.Annotations), slices.Clone(v.Labels)
	out.Capacity = quantity(v.Capacity)
	if v.CSI != nil {
		csi := *v.CSI
		csi.ControllerExpandSecretRef = v.CSI.ControllerExpandSecretRef.DeepCopy()
		out.CSI = &csi
	}
	out.InTree = v.InTree.DeepCopy()
	out.AccessModes = slices.Clone(v.AccessModes)
	out.VolumeMode = clone(v.VolumeMode)
	out.MountOptions = slices.Clone(v.MountOptions)
	out.Class = clone(v.Class)
	out.NodeAffinity = v.NodeAffinity.DeepCopy()
	return &out
}
