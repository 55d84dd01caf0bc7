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

package ownership

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Bits of FuzzCheck's shape argument: which fields match the claim, and
// which are set.
const (
	pvPresent = 1 << iota
	pvNameMatches
	hasClaimRef
	refNamespaceMatches
	refNameMatches
	refUIDMatches
	hasCSI
	csiDriverOurs
	annotationOurs
	annotationAbsent
)

// fuzzDrivers are the driver names tried; a selector past the end uses the
// fuzzed string.
var fuzzDrivers = []string{awsEBSDriver, gcePDDriver, azureDiskDriver, cinderDriver, portworxDriver, "test.csi.example.com", ""}

var fuzzPhases = []v1.PersistentVolumeClaimPhase{v1.ClaimBound, v1.ClaimPending, v1.ClaimLost, ""}

// FuzzCheck builds claims and volumes from arbitrary field combinations and
// checks Check against the rules of docs/design.md#ownership, written here
// independently: never a panic, Owned only when every rule holds, and a
// volume of another driver never owned.
//
// Run it for longer with:
//
//	go test -run='^$' -fuzz='^FuzzCheck$' -fuzztime=60s ./pkg/ownership/
func FuzzCheck(f *testing.F) {
	all := uint16(pvPresent | pvNameMatches | hasClaimRef | refNamespaceMatches | refNameMatches | refUIDMatches)
	f.Add(uint8(5), uint8(0), "pv-1", all|hasCSI|csiDriverOurs, uint8(0), "vol-1", "other", "", "", "")
	f.Add(uint8(0), uint8(0), "pv-1", all|annotationOurs, uint8(1), "vol-0123", "other", "", "", "")
	f.Add(uint8(0), uint8(0), "pv-1", all|annotationOurs, uint8(1), "aws://us-east-1a/vol-0123", "other", "", "", "")
	f.Add(uint8(1), uint8(0), "pv-1", all|annotationOurs, uint8(2), "disk-1", "other", "europe-west1-b__europe-west1-c", "", "")
	f.Add(uint8(0), uint8(0), "pv-1", all|hasCSI|annotationOurs, uint8(1), "vol-1", "other.csi.example.com", "", "", "")
	f.Add(uint8(0), uint8(0), "pv-1", all&^refUIDMatches|hasCSI|csiDriverOurs, uint8(0), "vol-1", "uid-2", "", "", "")
	f.Add(uint8(0), uint8(0), "pv-1", all&^pvPresent|hasCSI|csiDriverOurs, uint8(0), "vol-1", "x", "", "", "")
	f.Add(uint8(5), uint8(9), "pv-1", all|hasCSI|csiDriverOurs, uint8(0), "vol-1", "x", "", "", "Bound ")
	f.Add(uint8(9), uint8(0), "", all|hasCSI|csiDriverOurs, uint8(6), "", "", "", "weird/driver", "")
	f.Fuzz(func(t *testing.T, driverSel, phaseSel uint8, volumeName string, shape uint16, inTree uint8,
		handle, alt, zones, driverStr, phaseStr string) {
		driver := driverStr
		if int(driverSel) < len(fuzzDrivers) {
			driver = fuzzDrivers[driverSel]
		}
		pvc := &v1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data", UID: "uid-1"},
			Spec:       v1.PersistentVolumeClaimSpec{VolumeName: volumeName},
			Status:     v1.PersistentVolumeClaimStatus{Phase: v1.PersistentVolumeClaimPhase(phaseStr)},
		}
		if int(phaseSel) < len(fuzzPhases) {
			pvc.Status.Phase = fuzzPhases[phaseSel]
		}
		switch {
		case shape&annotationAbsent != 0:
		case shape&annotationOurs != 0:
			pvc.Annotations = map[string]string{ResizerAnnotation: driver}
		default:
			pvc.Annotations = map[string]string{ResizerAnnotation: alt}
		}
		var pv *v1.PersistentVolume
		if shape&pvPresent != 0 {
			pv = fuzzVolume(pvc, driver, shape, inTree, handle, alt, zones)
		}
		pvcBefore, pvBefore := pvc.DeepCopy(), pv.DeepCopy()

		got, reason := Check(pvc, pv, driver)

		if reason == "" {
			t.Errorf("empty reason for %s", got)
		}
		if !equality.Semantic.DeepEqual(pvc, pvcBefore) || !equality.Semantic.DeepEqual(pv, pvBefore) {
			t.Errorf("Check modified its input")
		}
		if want, why := oracle(pvc, pv, driver); got != want && (why != handleRulesUnchecked || got != Ignore) {
			t.Errorf("Check = %s (%s), want %s: %s\nclaim %+v\nvolume %+v", got, reason, want, why, pvc, pv)
		}
	})
}

const handleRulesUnchecked = "in-tree volume of our driver (handle rules not checked here)"

// fuzzVolume builds the claim's PV as shape says.
func fuzzVolume(pvc *v1.PersistentVolumeClaim, driver string, shape uint16, inTree uint8, handle, alt, zones string) *v1.PersistentVolume {
	pick := func(bit uint16, same string) string {
		if shape&bit != 0 {
			return same
		}
		return alt
	}
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pick(pvNameMatches, pvc.Spec.VolumeName)}}
	if zones != "" {
		pv.Labels = map[string]string{v1.LabelTopologyZone: zones}
	}
	if shape&hasClaimRef != 0 {
		pv.Spec.ClaimRef = &v1.ObjectReference{
			Namespace: pick(refNamespaceMatches, pvc.Namespace),
			Name:      pick(refNameMatches, pvc.Name),
			UID:       types.UID(pick(refUIDMatches, string(pvc.UID))),
		}
	}
	s := &pv.Spec.PersistentVolumeSource
	if shape&hasCSI != 0 {
		s.CSI = &v1.CSIPersistentVolumeSource{Driver: pick(csiDriverOurs, driver), VolumeHandle: handle}
	}
	switch inTree % 10 {
	case 1:
		s.AWSElasticBlockStore = &v1.AWSElasticBlockStoreVolumeSource{VolumeID: handle}
	case 2:
		s.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: handle}
	case 3:
		s.AzureDisk = &v1.AzureDiskVolumeSource{DataDiskURI: handle}
	case 4:
		s.Cinder = &v1.CinderPersistentVolumeSource{VolumeID: handle}
	case 5:
		s.PortworxVolume = &v1.PortworxVolumeSource{VolumeID: handle}
	case 6:
		s.VsphereVolume = &v1.VsphereVirtualDiskVolumeSource{VolumePath: handle}
	case 7:
		s.AzureFile = &v1.AzureFilePersistentVolumeSource{ShareName: handle}
	case 8:
		s.NFS = &v1.NFSVolumeSource{Server: handle, Path: "/"}
	case 9:
		s.HostPath = &v1.HostPathVolumeSource{Path: handle}
	}
	return pv
}

// oracle is docs/design.md#ownership, written from the contract: the claim is Bound with a
// volume name, the PV is cached (else wait), it is that volume, its claimRef
// names this claim (namespace, name and UID), and it is a CSI volume of our
// driver with a handle, or an in-tree volume that CSI migration gives our
// driver, with our driver in the claim's resizer annotation.
//
// For in-tree volumes whose handle translation has further rules (EBS URLs,
// GCE zone labels) it cannot say more than "Owned unless the handle is bad":
// it answers Owned with the reason handleRulesUnchecked, and Ignore is
// accepted as well.
func oracle(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, driver string) (Verdict, string) {
	switch {
	case driver == "":
		return Ignore, "no driver"
	case pvc.Status.Phase != v1.ClaimBound:
		return Ignore, "not Bound"
	case pvc.Spec.VolumeName == "":
		return Ignore, "no volume name"
	case pv == nil:
		return WaitForPV, "PV not cached"
	case pv.Name != pvc.Spec.VolumeName:
		return Ignore, "another PV"
	case pv.Spec.ClaimRef == nil:
		return Ignore, "no claimRef"
	case pv.Spec.ClaimRef.Namespace != pvc.Namespace || pv.Spec.ClaimRef.Name != pvc.Name || pv.Spec.ClaimRef.UID != pvc.UID:
		return Ignore, "claimRef names another claim"
	}
	s := pv.Spec.PersistentVolumeSource
	if s.CSI != nil {
		if s.CSI.Driver == driver && s.CSI.VolumeHandle != "" {
			return Owned, "CSI volume of our driver"
		}
		return Ignore, "CSI volume of another driver, or without handle"
	}
	if pvc.Annotations[ResizerAnnotation] != driver {
		return Ignore, "resizer annotation is not our driver"
	}
	var migratesTo, id string
	exact := true
	switch {
	case s.AWSElasticBlockStore != nil:
		migratesTo, id = "ebs.csi.aws.com", s.AWSElasticBlockStore.VolumeID
		exact = !strings.HasPrefix(id, "aws://")
	case s.GCEPersistentDisk != nil:
		migratesTo, id = "pd.csi.storage.gke.io", s.GCEPersistentDisk.PDName
		exact = pv.Labels[v1.LabelTopologyZone] == ""
	case s.AzureDisk != nil:
		migratesTo, id = "disk.csi.azure.com", s.AzureDisk.DataDiskURI
	case s.Cinder != nil:
		migratesTo, id = "cinder.csi.openstack.org", s.Cinder.VolumeID
	case s.PortworxVolume != nil:
		migratesTo, id = "pxd.portworx.com", s.PortworxVolume.VolumeID
	default:
		return Ignore, "not a volume that migrates to a CSI driver"
	}
	switch {
	case migratesTo != driver:
		return Ignore, "migrates to another driver"
	case id == "":
		return Ignore, "in-tree volume without an id"
	case !exact:
		return Owned, handleRulesUnchecked
	}
	return Owned, "in-tree volume migrated to our driver"
}
