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
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestClaimAndVolumeAreBound: the PV is the claim's and the claim the
// PV's, at their sizes, in the claim's classes; the options change what
// they say and nothing else.
func TestClaimAndVolumeAreBound(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	pvc := Claim("ns", "data", "2Gi", "1Gi", InStorageClass("fast"), AttributesClasses("gold", ""),
		Allocated("2Gi", v1.PersistentVolumeClaimNodeResizePending), Condition(v1.PersistentVolumeClaimFileSystemResizePending, at, "m"),
		Annotated("a", "b"), AccessModes(v1.ReadWriteMany))
	pv := Volume(pvc, "driver", "2Gi", Handle("h"), ExpandSecret(&v1.SecretReference{Name: "s"}))
	request, capacity := pvc.Spec.Resources.Requests[v1.ResourceStorage], pvc.Status.Capacity[v1.ResourceStorage]
	if pvc.Spec.VolumeName != pv.Name || pv.Name != PVName("ns", "data") || pv.Spec.ClaimRef.UID != pvc.UID || pv.Spec.ClaimRef.Name != "data" {
		t.Errorf("claim %s/%s of %s and PV %s of %+v are not bound to each other", pvc.Namespace, pvc.Name, pvc.Spec.VolumeName, pv.Name, pv.Spec.ClaimRef)
	}
	if request.String() != "2Gi" || capacity.String() != "1Gi" || pvc.Status.Phase != v1.ClaimBound {
		t.Errorf("claim requests %s with capacity %s in phase %s, want 2Gi, 1Gi, Bound", request.String(), capacity.String(), pvc.Status.Phase)
	}
	if pv.Spec.StorageClassName != "fast" || *pv.Spec.VolumeAttributesClassName != "gold" || pvc.Status.CurrentVolumeAttributesClassName != nil {
		t.Errorf("PV class %q and attributes class %v, claim's current class %v: want fast, gold, none", pv.Spec.StorageClassName, pv.Spec.VolumeAttributesClassName, pvc.Status.CurrentVolumeAttributesClassName)
	}
	if pv.Spec.CSI.Driver != "driver" || pv.Spec.CSI.VolumeHandle != "h" || pv.Spec.CSI.ControllerExpandSecretRef.Name != "s" || pv.Spec.AccessModes[0] != v1.ReadWriteMany {
		t.Errorf("PV source %+v with modes %v", pv.Spec.CSI, pv.Spec.AccessModes)
	}
	if pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage] != v1.PersistentVolumeClaimNodeResizePending ||
		len(pvc.Status.Conditions) != 1 || !pvc.Status.Conditions[0].LastTransitionTime.Time.Equal(at) || pvc.Annotations["a"] != "b" {
		t.Errorf("claim status %+v, annotations %v", pvc.Status, pvc.Annotations)
	}
	if pv := Volume(pvc, "driver", "1Gi", Classes("", "silver")); pv.Spec.StorageClassName != "" || *pv.Spec.VolumeAttributesClassName != "silver" {
		t.Errorf("Classes: PV class %q and attributes class %v, want none and silver", pv.Spec.StorageClassName, pv.Spec.VolumeAttributesClassName)
	}
	if pv := Volume(pvc, "driver", "1Gi", PinnedTo("zone", "z1", "z2")); len(pv.Spec.NodeAffinity.Required.NodeSelectorTerms) != 1 ||
		fmt.Sprint(pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions) != "[{zone In [z1 z2]}]" {
		t.Errorf("PinnedTo: node affinity %+v, want one term zone In z1, z2", pv.Spec.NodeAffinity)
	}
	if VolumeName("pv-a")(pvc); pvc.Spec.VolumeName != "pv-a" {
		t.Errorf("VolumeName: claim's volume %q, want pv-a", pvc.Spec.VolumeName)
	}
	Pending(pvc)
	if pvc.Spec.VolumeName != "" || pvc.Status.Phase != v1.ClaimPending || pvc.Status.Capacity != nil {
		t.Errorf("pending claim: volume %q, status %+v", pvc.Spec.VolumeName, pvc.Status)
	}
	if Optional("") != nil || *Optional("x") != "x" {
		t.Error("Optional")
	}
}

func TestClasses(t *testing.T) {
	sc := StorageClass("fast", "driver", map[string]string{"k": "v"})
	if sc.Provisioner != "driver" || sc.AllowVolumeExpansion == nil || !*sc.AllowVolumeExpansion || sc.Parameters["k"] != "v" {
		t.Errorf("StorageClass = %+v, want an expandable class of driver", sc)
	}
	if vac := AttributesClass("gold", "driver", map[string]string{"iops": "3000"}); vac.Name != "gold" || vac.DriverName != "driver" || vac.Parameters["iops"] != "3000" {
		t.Errorf("AttributesClass = %+v", vac)
	}
}
