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

package metrics

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

const gcePD = "pd.csi.storage.gke.io"

// TestOwnedAgreesWithCheck checks owner.owned against ownership.Check on
// whole objects, for every pair of the claims and volumes below and three
// drivers, with one owner reused across all of them as a scrape does.
func TestOwnedAgreesWithCheck(t *testing.T) {
	claims := ownershipClaims()
	volumes := ownershipVolumes()
	var o owner
	owned := 0
	for _, driver := range []string{testDriver, gcePD, ""} {
		for ci, pvc := range claims {
			for vi, pv := range volumes {
				c := slim.NewClaim(pvc)
				var v *slim.Volume
				var whole *v1.PersistentVolume
				if pv != nil {
					v = slim.NewVolume(pv)
					whole = v.PV()
				}
				verdict, reason := ownership.Check(c.PVC(), whole, driver)
				want := verdict == ownership.Owned
				if got := o.owned(c, v, ownership.Scope{Driver: driver}); got != want {
					t.Errorf("driver %q, claim %d, volume %d: owned = %v, Check says %v (%s)", driver, ci, vi, got, verdict, reason)
				}
				if want {
					owned++
				}
			}
		}
	}
	if owned < 3 {
		t.Errorf("only %d pairs were owned: the table does not test the owned side", owned)
	}
}

// ownershipClaims are variations of claim ns/data of volume pv-1.
func ownershipClaims() []*v1.PersistentVolumeClaim {
	base := func() *v1.PersistentVolumeClaim {
		return &v1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "ns", UID: "uid-1"},
			Spec:       v1.PersistentVolumeClaimSpec{VolumeName: "pv-1"},
			Status:     v1.PersistentVolumeClaimStatus{Phase: v1.ClaimBound},
		}
	}
	pending, unbound, otherUID, otherName := base(), base(), base(), base()
	pending.Status.Phase = v1.ClaimPending
	unbound.Spec.VolumeName = ""
	otherUID.UID = "uid-2"
	otherName.Name = "other"
	migrated, migratedElsewhere := base(), base()
	migrated.Annotations = map[string]string{ownership.ResizerAnnotation: gcePD, "x": "y"}
	migratedElsewhere.Annotations = map[string]string{ownership.ResizerAnnotation: "other.csi.example.com"}
	return []*v1.PersistentVolumeClaim{base(), pending, unbound, otherUID, otherName, migrated, migratedElsewhere}
}

// ownershipVolumes are variations of pv-1, bound to ns/data, and nil.
func ownershipVolumes() []*v1.PersistentVolume {
	csi := func(driver, handle string) *v1.PersistentVolume {
		return &v1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
			Spec: v1.PersistentVolumeSpec{
				ClaimRef:               &v1.ObjectReference{Namespace: "ns", Name: "data", UID: "uid-1"},
				PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}},
			},
		}
	}
	noRef, otherNS, otherUID, otherName := csi(testDriver, "h"), csi(testDriver, "h"), csi(testDriver, "h"), csi(testDriver, "h")
	noRef.Spec.ClaimRef = nil
	otherNS.Spec.ClaimRef.Namespace = "other"
	otherUID.Spec.ClaimRef.UID = "uid-2"
	otherName.Name = "pv-2"
	gce := csi("", "")
	gce.Spec.CSI = nil
	gce.Spec.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: "disk-1"}
	gce.Labels = map[string]string{v1.LabelTopologyZone: "europe-west1-b"}
	vsphere := csi("", "")
	vsphere.Spec.CSI = nil
	vsphere.Spec.VsphereVolume = &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] disk.vmdk"}
	return []*v1.PersistentVolume{
		nil, csi(testDriver, "h"), csi(testDriver, ""), csi("other.csi.example.com", "h"), csi(gcePD, "h"),
		noRef, otherNS, otherUID, otherName, gce, vsphere,
	}
}

func TestOwnedAllocatesNothingForCSIVolumes(t *testing.T) {
	c := slim.NewClaim(ownershipClaims()[0])
	for _, pv := range []*v1.PersistentVolume{ownershipVolumes()[1], ownershipVolumes()[3]} {
		v := slim.NewVolume(pv)
		var o owner
		allocs := testing.AllocsPerRun(100, func() { o.owned(c, v, ownership.Scope{Driver: testDriver}) })
		if allocs != 0 {
			t.Errorf("volume of driver %s: owned allocated %v times, want 0", pv.Spec.CSI.Driver, allocs)
		}
	}
}

// TestOwnedAgreesWithCheckOnNode is TestOwnedAgreesWithCheck with
// --node-deployment: volumes pinned to the node, to another node, to a
// zone, and without node affinity, cached with their affinity.
func TestOwnedAgreesWithCheckOnNode(t *testing.T) {
	node := ownership.NewWatcher("node-1")
	node.Set(&ownership.Node{Name: "node-1", Labels: map[string]string{v1.LabelHostname: "host-1", v1.LabelTopologyZone: "z1"}})
	scope := ownership.Scope{Driver: testDriver, Node: node}
	pinned := func(key, value string) *v1.VolumeNodeAffinity {
		return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}}},
		}}}}
	}
	var o owner
	verdicts := map[ownership.Verdict]int{}
	for _, affinity := range []*v1.VolumeNodeAffinity{
		nil, pinned(v1.LabelHostname, "host-1"), pinned(v1.LabelHostname, "host-2"), pinned(v1.LabelTopologyZone, "z1"),
	} {
		for ci, pvc := range ownershipClaims() {
			for vi, pv := range ownershipVolumes() {
				c := slim.NewClaim(pvc)
				var v *slim.Volume
				var whole *v1.PersistentVolume
				if pv != nil {
					pv.Spec.NodeAffinity = affinity
					v = slim.NewVolumeWithAffinity(pv)
					whole = v.PV()
				}
				verdict, reason := scope.Check(c.PVC(), whole)
				verdicts[verdict]++
				if got := o.owned(c, v, scope); got != (verdict == ownership.Owned) {
					t.Errorf("affinity %v, claim %d, volume %d: owned = %v, Check says %v (%s)", affinity, ci, vi, got, verdict, reason)
				}
			}
		}
	}
	for _, v := range []ownership.Verdict{ownership.Owned, ownership.Ignore, ownership.Refused, ownership.NoNodeAffinity} {
		if verdicts[v] == 0 {
			t.Errorf("no pair was %v: the table does not test it", v)
		}
	}
}
