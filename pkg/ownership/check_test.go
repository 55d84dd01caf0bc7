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
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-resizer/csi-resizer/pkg/slim"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const (
	ourDriver = "ebs.csi.aws.com"
	claimUID  = types.UID("uid-1")
)

// claim is testobj's Bound PVC ns/data with UID uid-1 on volume pv-1; opts adjust it.
func claim(opts ...testobj.ClaimOpt) *v1.PersistentVolumeClaim {
	uid1 := func(pvc *v1.PersistentVolumeClaim) { pvc.UID, pvc.Spec.VolumeName = claimUID, "pv-1" }
	return testobj.Claim("ns", "data", "1Gi", "1Gi", append([]testobj.ClaimOpt{uid1}, opts...)...)
}

func withResizer(driver string) func(*v1.PersistentVolumeClaim) {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Annotations = map[string]string{ResizerAnnotation: driver}
	}
}

// volume builds PV pv-1 with src, bound to ns/data with UID uid-1; opts adjust it.
func pvOf(src v1.PersistentVolumeSource, opts ...func(*v1.PersistentVolume)) *v1.PersistentVolume {
	pv := pvWith(src)
	pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "ns", Name: "data", UID: claimUID}
	for _, o := range opts {
		o(pv)
	}
	return pv
}

func csiSource(driver, handle string) v1.PersistentVolumeSource {
	return v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name       string
		pvc        *v1.PersistentVolumeClaim
		pv         *v1.PersistentVolume
		driver     string // our driver name when empty
		noDriver   bool   // call Check with an empty driver name
		want       Verdict
		wantReason string
	}{
		{
			name: "CSI volume of our driver", pvc: claim(), pv: pvOf(csiSource(ourDriver, "vol-1")),
			want: Owned, wantReason: "CSI volume of our driver",
		},
		{
			name: "CSI volume of another driver", pvc: claim(), pv: pvOf(csiSource("other.csi.io", "h-1")),
			want: Ignore, wantReason: `CSI driver "other.csi.io"`,
		},
		{
			name: "CSI volume of another driver, annotation naming ours", pvc: claim(withResizer(ourDriver)),
			pv:   pvOf(csiSource("other.csi.io", "h-1")),
			want: Ignore, wantReason: `CSI driver "other.csi.io"`,
		},
		{
			name: "CSI volume of our driver with empty handle", pvc: claim(), pv: pvOf(csiSource(ourDriver, "")),
			want: Ignore, wantReason: "empty volumeHandle",
		},
		{
			name: "claim pending",
			pvc:  claim(func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimPending }),
			pv:   pvOf(csiSource(ourDriver, "vol-1")),
			want: Ignore, wantReason: `claim phase is "Pending"`,
		},
		{
			name: "claim lost",
			pvc:  claim(func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimLost }),
			pv:   pvOf(csiSource(ourDriver, "vol-1")),
			want: Ignore, wantReason: `"Lost"`,
		},
		{
			name: "claim without phase",
			pvc:  claim(func(c *v1.PersistentVolumeClaim) { c.Status.Phase = "" }),
			pv:   pvOf(csiSource(ourDriver, "vol-1")),
			want: Ignore, wantReason: `claim phase is ""`,
		},
		{
			name: "claim without volumeName",
			pvc:  claim(func(c *v1.PersistentVolumeClaim) { c.Spec.VolumeName = "" }),
			pv:   pvOf(csiSource(ourDriver, "vol-1")),
			want: Ignore, wantReason: "no spec.volumeName",
		},
		{
			name: "PV not in cache yet", pvc: claim(),
			want: WaitForPV, wantReason: `volume "pv-1" is not in the informer cache`,
		},
		{
			name: "PV not in cache, claim not bound",
			pvc:  claim(func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimPending }),
			want: Ignore, wantReason: "not Bound",
		},
		{
			name: "given PV is not the claim's volume", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), func(pv *v1.PersistentVolume) { pv.Name = "pv-2" }),
			want: Ignore, wantReason: `given volume "pv-2" is not the claim's volume "pv-1"`,
		},
		{
			name: "claimRef to another namespace", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef.Namespace = "other" }),
			want: Ignore, wantReason: "bound to claim other/data",
		},
		{
			name: "claimRef to another name", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef.Name = "logs" }),
			want: Ignore, wantReason: "bound to claim ns/logs",
		},
		{
			name: "claimRef to another UID (claim deleted and created again)", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef.UID = "uid-old" }),
			want: Ignore, wantReason: `claim UID "uid-old", not "uid-1"`,
		},
		{
			name: "claimRef without UID", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef.UID = "" }),
			want: Ignore, wantReason: `claim UID ""`,
		},
		{
			name: "no claimRef", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef = nil }),
			want: Ignore, wantReason: "no claimRef",
		},
		{
			name: "in-tree migrated to our driver, with annotation", pvc: claim(withResizer(ourDriver)),
			pv:   pvOf(ebs("aws://us-east-1a/vol-1")),
			want: Owned, wantReason: "in-tree volume migrated to our driver",
		},
		{
			name: "in-tree migrated to our driver, without annotation", pvc: claim(),
			pv:   pvOf(ebs("vol-1")),
			want: Ignore, wantReason: `annotation volume.kubernetes.io/storage-resizer is ""`,
		},
		{
			name: "in-tree migrated to our driver, annotation naming the in-tree plugin", pvc: claim(withResizer("kubernetes.io/aws-ebs")),
			pv:   pvOf(ebs("vol-1")),
			want: Ignore, wantReason: `is "kubernetes.io/aws-ebs"`,
		},
		{
			name: "in-tree migrated to our driver, annotation naming another driver", pvc: claim(withResizer("pd.csi.storage.gke.io")),
			pv:   pvOf(ebs("vol-1")),
			want: Ignore, wantReason: `is "pd.csi.storage.gke.io"`,
		},
		{
			name: "in-tree migrated to another driver, annotation naming ours", pvc: claim(withResizer(ourDriver)),
			pv:   pvOf(gcePD("disk-1")),
			want: Ignore, wantReason: `migrates to CSI driver "pd.csi.storage.gke.io"`,
		},
		{
			name: "in-tree migrated to another driver, annotation naming it", pvc: claim(withResizer("pd.csi.storage.gke.io")),
			pv:   pvOf(gcePD("disk-1")),
			want: Ignore, wantReason: `migrates to CSI driver "pd.csi.storage.gke.io"`,
		},
		{
			name: "in-tree of our driver that cannot be translated", pvc: claim(withResizer(ourDriver)),
			pv:   pvOf(ebs("aws://us-east-1a/not-a-volume")),
			want: Ignore, wantReason: "does not end in an EBS volume id",
		},
		{
			name: "in-tree with no mapping", pvc: claim(withResizer("csi.vsphere.vmware.com")),
			pv:     pvOf(v1.PersistentVolumeSource{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] v.vmdk"}}),
			driver: "csi.vsphere.vmware.com",
			want:   Ignore, wantReason: "vsphereVolume is not translated",
		},
		{
			name: "PV without spec.csi and without migration", pvc: claim(withResizer(ourDriver)),
			pv:   pvOf(v1.PersistentVolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/data"}}),
			want: Ignore, wantReason: "neither a CSI volume nor an in-tree volume",
		},
		{
			name: "PV without any source", pvc: claim(withResizer(ourDriver)),
			pv:   pvOf(v1.PersistentVolumeSource{}),
			want: Ignore, wantReason: "neither a CSI volume",
		},
		{
			name: "no claim", pv: pvOf(csiSource(ourDriver, "vol-1")),
			want: Ignore, wantReason: "no claim given",
		},
		{
			name: "no driver name", pvc: claim(), pv: pvOf(csiSource("", "vol-1")), noDriver: true,
			want: Ignore, wantReason: "no driver name given",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			driver := tc.driver
			if driver == "" {
				driver = ourDriver
			}
			if tc.noDriver {
				driver = ""
			}
			got, reason := Check(tc.pvc, tc.pv, driver)
			if got != tc.want {
				t.Errorf("got %v (%s), want %v", got, reason, tc.want)
			}
			if !strings.Contains(reason, tc.wantReason) {
				t.Errorf("reason %q does not contain %q", reason, tc.wantReason)
			}
			if tc.pv != nil {
				if partial, why := Check(tc.pvc, slim.OwnershipOnly(tc.pv).PV(), driver); partial != got || why != reason {
					t.Errorf("what slim.OwnershipOnly keeps of the volume: %v (%s), want the same as the whole: %v (%s)", partial, why, got, reason)
				}
			}
		})
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{Ignore: "Ignore", Owned: "Owned", WaitForPV: "WaitForPV", Refused: "Refused", NoNodeAffinity: "NoNodeAffinity", Verdict(7): "Verdict(7)"} {
		if got := v.String(); got != want {
			t.Errorf("Verdict(%d).String() = %q, want %q", int(v), got, want)
		}
	}
}

// TestCheckDoesNotModify guards the informer cache: Check reads listers' objects in place.
func TestCheckDoesNotModify(t *testing.T) {
	pvc := claim(withResizer(ourDriver))
	pv := pvOf(ebs("aws://us-east-1a/vol-1"))
	pvcBefore, pvBefore := pvc.DeepCopy(), pv.DeepCopy()
	Check(pvc, pv, ourDriver)
	if !reflect.DeepEqual(pvc, pvcBefore) || !reflect.DeepEqual(pv, pvBefore) {
		t.Errorf("Check changed its arguments")
	}
}
