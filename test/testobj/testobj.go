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

// Package testobj builds the claims, volumes and classes that tests and
// test tools create or feed to the code under test: one set of builders
// for the e2e framework, chaos, the benchmark and the unit tests.
package testobj

import (
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// ClaimOpt changes a claim Claim builds.
type ClaimOpt func(*v1.PersistentVolumeClaim)

// Claim is the claim namespace/name bound to the PV PVName(namespace,
// name), ReadWriteOnce, requesting request, with status.capacity capacity,
// as the PV controller leaves it; its UID is "uid-<name>".
func Claim(namespace, name, request, capacity string, opts ...ClaimOpt) *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			VolumeName:  PVName(namespace, name),
			Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(request)}},
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:       v1.ClaimBound,
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Capacity:    v1.ResourceList{v1.ResourceStorage: resource.MustParse(capacity)},
		},
	}
	for _, o := range opts {
		o(pvc)
	}
	return pvc
}

// PVName is the name of the PV of the claim namespace/name.
func PVName(namespace, name string) string { return "pv-" + namespace + "-" + name }

// Allocated sets status.allocatedResources to size and, unless empty,
// allocatedResourceStatuses to status.
func Allocated(size string, status v1.ClaimResourceStatus) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}
		if status != "" {
			pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: status}
		}
	}
}

// Condition adds a True condition of type c since at, with message.
func Condition(c v1.PersistentVolumeClaimConditionType, at time.Time, message string) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: c, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(at), Message: message})
	}
}

// AttributesClasses sets spec.volumeAttributesClassName and
// status.currentVolumeAttributesClassName; "" leaves one unset.
func AttributesClasses(spec, current string) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Spec.VolumeAttributesClassName = Optional(spec)
		pvc.Status.CurrentVolumeAttributesClassName = Optional(current)
	}
}

// ModifyStatus sets status.modifyVolumeStatus.
func ModifyStatus(target string, s v1.PersistentVolumeClaimModifyVolumeStatus) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.ModifyVolumeStatus = &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: target, Status: s}
	}
}

// VolumeName sets spec.volumeName, for tests that name the PV themselves.
func VolumeName(name string) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) { pvc.Spec.VolumeName = name }
}

// Pending makes the claim unbound: no volume, phase Pending.
func Pending(pvc *v1.PersistentVolumeClaim) {
	pvc.Spec.VolumeName = ""
	pvc.Status = v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending}
}

// Annotated adds the annotation key=value.
func Annotated(key, value string) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) { metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, key, value) }
}

// InStorageClass sets spec.storageClassName.
func InStorageClass(name string) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) { pvc.Spec.StorageClassName = ptr.To(name) }
}

// AccessModes sets the claim's access modes, in its spec and status.
func AccessModes(modes ...v1.PersistentVolumeAccessMode) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) { pvc.Spec.AccessModes, pvc.Status.AccessModes = modes, modes }
}

// Optional is nil for "", else a pointer to s.
func Optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// VolumeOpt changes a PV Volume builds.
type VolumeOpt func(*v1.PersistentVolume)

// Volume is the CSI PV of pvc, of driver, with the volume handle
// "vol-<claim>", of size, bound to pvc (its claimRef carries pvc's UID) in
// pvc's storage class, access modes and VolumeAttributesClass, ext4,
// reclaim policy Delete.
func Volume(pvc *v1.PersistentVolumeClaim, driver, size string, opts ...VolumeOpt) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvc.Spec.VolumeName},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   pvc.Spec.AccessModes,
			StorageClassName:              ptr.Deref(pvc.Spec.StorageClassName, ""),
			VolumeAttributesClassName:     pvc.Spec.VolumeAttributesClassName,
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			ClaimRef:                      &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: driver, VolumeHandle: "vol-" + pvc.Name, FSType: "ext4",
			}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	for _, o := range opts {
		o(pv)
	}
	return pv
}

// Handle sets the volume handle.
func Handle(h string) VolumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.CSI.VolumeHandle = h }
}

// ExpandSecret sets the controllerExpandSecretRef (nil: none).
func ExpandSecret(ref *v1.SecretReference) VolumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.CSI.ControllerExpandSecretRef = ref }
}

// Classes sets the PV's spec.storageClassName and
// volumeAttributesClassName ("": none) apart from its claim's.
func Classes(storage, attributes string) VolumeOpt {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.StorageClassName, pv.Spec.VolumeAttributesClassName = storage, Optional(attributes)
	}
}

// NodeAffinity sets spec.nodeAffinity.
func NodeAffinity(a *v1.VolumeNodeAffinity) VolumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.NodeAffinity = a }
}

// PinnedTo sets a node affinity of one term: key In values.
func PinnedTo(key string, values ...string) VolumeOpt {
	return NodeAffinity(&v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
	}}}})
}

// StorageClass is an expandable StorageClass of driver.
func StorageClass(name, driver string, params map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta:           metav1.ObjectMeta{Name: name},
		Provisioner:          driver,
		Parameters:           params,
		AllowVolumeExpansion: ptr.To(true),
	}
}

// AttributesClass is a VolumeAttributesClass of driver.
func AttributesClass(name, driver string, params map[string]string) *storagev1.VolumeAttributesClass {
	return &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: name}, DriverName: driver, Parameters: params}
}
