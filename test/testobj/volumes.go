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

package testobj

import (
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

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

// NodeAffinity sets spec.nodeAffinity.
func NodeAffinity(a *v1.VolumeNodeAffinity) VolumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.NodeAffinity = a }
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
