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
	"fmt"
	"runtime"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// wireClaim and wireVolume are a bound claim and its PV in protobuf, as a
// provisioner, the PV controller and kubectl leave them.
func wireClaim(i int) []byte {
	pvc := fullClaim()
	pvc.Name, pvc.UID = fmt.Sprintf("data-%05d", i), types.UID(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i))
	pvc.Spec.VolumeName = fmt.Sprintf("pvc-%08d-0000-4000-8000-000000000000", i)
	pvc.Status.AllocatedResources, pvc.Status.AllocatedResourceStatuses, pvc.Status.Conditions = nil, nil, nil
	// Most claims use no VolumeAttributesClass.
	pvc.Spec.VolumeAttributesClassName, pvc.Status.CurrentVolumeAttributesClassName, pvc.Status.ModifyVolumeStatus = nil, nil, nil
	data, err := pvc.Marshal()
	if err != nil {
		panic(err)
	}
	return data
}

func wireVolume(i int) []byte {
	pv := &v1.PersistentVolume{
		ObjectMeta: fullMeta(fmt.Sprintf("pvc-%08d-0000-4000-8000-000000000000", i), ""),
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: oneGi},
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			ClaimRef:                      &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: "ns", Name: fmt.Sprintf("data-%05d", i), UID: "uid-data", ResourceVersion: "5"},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			StorageClassName:              "fast",
			VolumeMode:                    ptr.To(v1.PersistentVolumeFilesystem),
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "hostpath.csi.k8s.io", VolumeHandle: fmt.Sprintf("vol-%08d", i), FSType: "ext4",
				VolumeAttributes: map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "1763890000000-1234-hostpath.csi.k8s.io"},
			}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	data, err := pv.Marshal()
	if err != nil {
		panic(err)
	}
	return data
}

// withoutManagedFields is what the informers kept before this package: the
// decoded object without managed fields and kubectl's copy.
func withoutManagedFields(m *metav1.ObjectMeta) {
	m.ManagedFields = nil
	delete(m.Annotations, LastApplied)
}

// BenchmarkCachedBytes reports the live heap per cached claim and per
// cached PV, decoded from protobuf as the informers get them, kept whole
// (managed fields dropped) and as projections.
func BenchmarkCachedBytes(b *testing.B) {
	const n = 5000
	claims, volumes := make([][]byte, n), make([][]byte, n)
	for i := range n {
		claims[i], volumes[i] = wireClaim(i), wireVolume(i)
	}
	decodeClaim := func(i int) *v1.PersistentVolumeClaim {
		pvc := &v1.PersistentVolumeClaim{}
		if err := pvc.Unmarshal(claims[i]); err != nil {
			b.Fatal(err)
		}
		return pvc
	}
	decodeVolume := func(i int) *v1.PersistentVolume {
		pv := &v1.PersistentVolume{}
		if err := pv.Unmarshal(volumes[i]); err != nil {
			b.Fatal(err)
		}
		return pv
	}
	for _, tc := range []struct {
		name string
		keep func(i int) any
	}{
		{"claim/whole", func(i int) any { pvc := decodeClaim(i); withoutManagedFields(&pvc.ObjectMeta); return pvc }},
		{"claim/slim", func(i int) any { return NewClaim(decodeClaim(i)) }},
		{"volume/whole", func(i int) any { pv := decodeVolume(i); withoutManagedFields(&pv.ObjectMeta); return pv }},
		{"volume/slim", func(i int) any { return NewVolume(decodeVolume(i)) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var perObject float64
			for b.Loop() {
				kept := make([]any, n)
				before := liveHeap()
				for i := range n {
					kept[i] = tc.keep(i)
				}
				perObject = float64(liveHeap()-before) / n
				runtime.KeepAlive(kept)
			}
			b.ReportMetric(perObject, "bytes/object")
		})
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
