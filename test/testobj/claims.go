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

// Pending makes the claim unbound: no volume, phase Pending.
func Pending(pvc *v1.PersistentVolumeClaim) {
	pvc.Spec.VolumeName = ""
	pvc.Status = v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending}
}

// Annotated adds the annotation key=value.
func Annotated(key, value string) ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		if pvc.Annotations == nil {
			pvc.Annotations = map[string]string{}
		}
		pvc.Annotations[key] = value
	}
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
