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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// pvWith builds a PV named pv-1 with the given source and labels (key, value, ...).
func pvWith(src v1.PersistentVolumeSource, labels ...string) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
		Spec:       v1.PersistentVolumeSpec{PersistentVolumeSource: src},
	}
	if len(labels) > 0 {
		pv.Labels = map[string]string{}
		for i := 0; i+1 < len(labels); i += 2 {
			pv.Labels[labels[i]] = labels[i+1]
		}
	}
	return pv
}

func ebs(id string) v1.PersistentVolumeSource {
	return v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id, FSType: "ext4"}}
}

func gcePD(name string) v1.PersistentVolumeSource {
	return v1.PersistentVolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: name, FSType: "xfs", ReadOnly: true}}
}

func TestSource(t *testing.T) {
	azureURI := "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/disks/disk-1"
	tests := []struct {
		name    string
		pv      *v1.PersistentVolume
		want    *v1.CSIPersistentVolumeSource
		wantErr string
	}{
		{
			name: "CSI volume",
			pv: pvWith(v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "hostpath.csi.k8s.io", VolumeHandle: "h-1", FSType: "ext4",
				ControllerExpandSecretRef: &v1.SecretReference{Namespace: "ns", Name: "s"},
			}}),
			want: &v1.CSIPersistentVolumeSource{Driver: "hostpath.csi.k8s.io", VolumeHandle: "h-1", FSType: "ext4",
				ControllerExpandSecretRef: &v1.SecretReference{Namespace: "ns", Name: "s"}},
		},
		{
			name:    "CSI volume with empty handle",
			pv:      pvWith(v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "hostpath.csi.k8s.io"}}),
			wantErr: `CSI volume of driver "hostpath.csi.k8s.io" has an empty volumeHandle`,
		},
		{
			name: "EBS bare id",
			pv:   pvWith(ebs("vol-0123456789abcdef0")),
			want: &v1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-0123456789abcdef0", FSType: "ext4"},
		},
		{
			name: "EBS URL with zone",
			pv:   pvWith(ebs("aws://us-east-1a/vol-0123")),
			want: &v1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-0123", FSType: "ext4"},
		},
		{
			name: "EBS URL without zone",
			pv:   pvWith(ebs("aws:///vol-0123")),
			want: &v1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-0123", FSType: "ext4"},
		},
		{
			name: "EBS read-only",
			pv: pvWith(v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{
				VolumeID: "vol-1", ReadOnly: true}}),
			want: &v1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-1", ReadOnly: true},
		},
		{name: "EBS URL with extra path", pv: pvWith(ebs("aws://us-east-1a/vol-1/x")), wantErr: "does not end in an EBS volume id"},
		{name: "EBS URL without id", pv: pvWith(ebs("aws://us-east-1a/")), wantErr: "does not end in an EBS volume id"},
		{name: "EBS URL not parseable", pv: pvWith(ebs("aws://%zz/vol-1")), wantErr: `awsElasticBlockStore volumeID "aws://%zz/vol-1"`},
		{name: "EBS empty id", pv: pvWith(ebs("")), wantErr: `CSI driver "ebs.csi.aws.com" has an empty volume ID`},
		{
			name: "GCE PD without zone label",
			pv:   pvWith(gcePD("disk-1")),
			want: &v1.CSIPersistentVolumeSource{Driver: "pd.csi.storage.gke.io",
				VolumeHandle: "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk-1", FSType: "xfs", ReadOnly: true},
		},
		{
			name: "GCE PD with topology zone",
			pv:   pvWith(gcePD("disk-1"), v1.LabelTopologyZone, "us-central1-a"),
			want: &v1.CSIPersistentVolumeSource{Driver: "pd.csi.storage.gke.io",
				VolumeHandle: "projects/UNSPECIFIED/zones/us-central1-a/disks/disk-1", FSType: "xfs", ReadOnly: true},
		},
		{
			name: "GCE PD with beta zone, preferred over topology",
			pv:   pvWith(gcePD("disk-1"), v1.LabelFailureDomainBetaZone, "europe-west1-b", v1.LabelTopologyZone, "us-central1-a"),
			want: &v1.CSIPersistentVolumeSource{Driver: "pd.csi.storage.gke.io",
				VolumeHandle: "projects/UNSPECIFIED/zones/europe-west1-b/disks/disk-1", FSType: "xfs", ReadOnly: true},
		},
		{
			name: "GCE PD regional",
			pv:   pvWith(gcePD("disk-1"), v1.LabelTopologyZone, "us-central1-a__us-central1-c"),
			want: &v1.CSIPersistentVolumeSource{Driver: "pd.csi.storage.gke.io",
				VolumeHandle: "projects/UNSPECIFIED/regions/us-central1/disks/disk-1", FSType: "xfs", ReadOnly: true},
		},
		{name: "GCE PD regional across regions", pv: pvWith(gcePD("disk-1"), v1.LabelTopologyZone, "us-central1-a__europe-west1-b"),
			wantErr: "span more than one region"},
		{name: "GCE PD regional with a bad zone", pv: pvWith(gcePD("disk-1"), v1.LabelTopologyZone, "us-central1-a__"),
			wantErr: `zone "" in the zone label`},
		{name: "GCE PD regional with a zone without region", pv: pvWith(gcePD("disk-1"), v1.LabelTopologyZone, "-a__us-central1-a"),
			wantErr: `zone "-a"`},
		{name: "GCE PD without name", pv: pvWith(gcePD("")), wantErr: "empty pdName"},
		{
			name: "Azure disk",
			pv: pvWith(v1.PersistentVolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{
				DiskName: "disk-1", DataDiskURI: azureURI, FSType: ptr.To("ext4"), ReadOnly: ptr.To(true)}}),
			want: &v1.CSIPersistentVolumeSource{Driver: "disk.csi.azure.com", VolumeHandle: azureURI, FSType: "ext4", ReadOnly: true},
		},
		{
			name: "Azure disk without optional fields",
			pv:   pvWith(v1.PersistentVolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DiskName: "disk-1", DataDiskURI: azureURI}}),
			want: &v1.CSIPersistentVolumeSource{Driver: "disk.csi.azure.com", VolumeHandle: azureURI},
		},
		{
			name:    "Azure disk without URI",
			pv:      pvWith(v1.PersistentVolumeSource{AzureDisk: &v1.AzureDiskVolumeSource{DiskName: "disk-1"}}),
			wantErr: `"disk.csi.azure.com" has an empty volume ID`,
		},
		{
			name: "Cinder",
			pv: pvWith(v1.PersistentVolumeSource{Cinder: &v1.CinderPersistentVolumeSource{
				VolumeID: "8f2c4a8e", FSType: "ext4", ReadOnly: true}}),
			want: &v1.CSIPersistentVolumeSource{Driver: "cinder.csi.openstack.org", VolumeHandle: "8f2c4a8e", FSType: "ext4", ReadOnly: true},
		},
		{
			name: "Portworx",
			pv: pvWith(v1.PersistentVolumeSource{PortworxVolume: &v1.PortworxVolumeSource{
				VolumeID: "px-1", FSType: "ext4"}}),
			want: &v1.CSIPersistentVolumeSource{Driver: "pxd.portworx.com", VolumeHandle: "px-1", FSType: "ext4"},
		},
		{
			name:    "vSphere is not translated",
			pv:      pvWith(v1.PersistentVolumeSource{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] vol.vmdk"}}),
			wantErr: "in-tree vsphereVolume is not translated",
		},
		{
			name: "Azure file is not translated",
			pv: pvWith(v1.PersistentVolumeSource{AzureFile: &v1.AzureFilePersistentVolumeSource{
				SecretName: "s", ShareName: "share"}}),
			wantErr: "in-tree azureFile is not translated",
		},
		{
			name:    "NFS has no CSI migration",
			pv:      pvWith(v1.PersistentVolumeSource{NFS: &v1.NFSVolumeSource{Server: "nfs", Path: "/x"}}),
			wantErr: `PersistentVolume "pv-1" is neither a CSI volume nor an in-tree volume that CSI migration covers`,
		},
		{name: "no source", pv: pvWith(v1.PersistentVolumeSource{}), wantErr: "is neither a CSI volume"},
		{name: "no PV", wantErr: "no PersistentVolume given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Source(tc.pv)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				if got != nil {
					t.Errorf("got source %+v with error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSourceCopies guards the informer cache: a caller changing the result must not change
// the PV it came from.
func TestSourceCopies(t *testing.T) {
	pv := pvWith(v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
		Driver: "d", VolumeHandle: "h", ControllerExpandSecretRef: &v1.SecretReference{Namespace: "ns", Name: "s"}}})
	src, err := Source(pv)
	if err != nil {
		t.Fatal(err)
	}
	src.VolumeHandle = "changed"
	src.ControllerExpandSecretRef.Name = "changed"
	if pv.Spec.CSI.VolumeHandle != "h" || pv.Spec.CSI.ControllerExpandSecretRef.Name != "s" {
		t.Errorf("changing the result changed the PV: %+v", pv.Spec.CSI)
	}
}
