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

package driver

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	csispec "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func csiVolume(handle string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
		Spec: v1.PersistentVolumeSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "test.csi.example.com", VolumeHandle: handle, FSType: "ext4",
			}},
		},
	}
}

func ebsVolume() *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-ebs"},
		Spec: v1.PersistentVolumeSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			PersistentVolumeSource: v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{
				VolumeID: "aws://us-east-1a/vol-0123456789abcdef0", FSType: "xfs",
			}},
		},
	}
}

func TestCSIExpandOverUnixSocket(t *testing.T) {
	tests := []struct {
		name         string
		pv           *v1.PersistentVolume
		target       string
		capacity     int64 // driver's fixed answer; 0 answers the request
		nodeStep     bool
		wantVolume   string
		wantBytes    int64
		wantSize     string
		wantFSType   string
		wantErrMatch string
	}{
		{name: "exact answer keeps the request's format", pv: csiVolume("vol-1"), target: "2Gi", wantVolume: "vol-1", wantBytes: 2 << 30, wantSize: "2Gi", wantFSType: "ext4"},
		{name: "node step asked for", pv: csiVolume("vol-1"), target: "2Gi", nodeStep: true, wantVolume: "vol-1", wantBytes: 2 << 30, wantSize: "2Gi", wantFSType: "ext4"},
		{name: "rounded-up answer", pv: csiVolume("vol-1"), target: "1500M", capacity: 2 << 30, wantVolume: "vol-1", wantBytes: 1500000000, wantSize: "2Gi", wantFSType: "ext4"},
		{name: "fractional bytes round up", pv: csiVolume("vol-1"), target: "1500m", wantVolume: "vol-1", wantBytes: 2, wantSize: "1500m", wantFSType: "ext4"},
		{name: "migrated in-tree volume is translated", pv: ebsVolume(), target: "3Gi", wantVolume: "vol-0123456789abcdef0", wantBytes: 3 << 30, wantSize: "3Gi", wantFSType: "xfs"},
		{name: "zero size is refused before the driver", pv: csiVolume("vol-1"), target: "0", wantErrMatch: "invalid size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true, NodeExpansionRequired: tc.nodeStep})
			if tc.capacity != 0 {
				d.SetExpandCapacity(tc.capacity)
			}
			r := &VolumeExpander{Driver: c}
			size, nodeStep, err := r.Expand(context.Background(), tc.pv, resource.MustParse(tc.target), map[string]string{"key": "value"})
			if tc.wantErrMatch != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrMatch) {
					t.Fatalf("err = %v, want %q", err, tc.wantErrMatch)
				}
				if n := len(d.Calls()); n != 0 {
					t.Errorf("driver called %d times", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if size.String() != tc.wantSize || nodeStep != tc.nodeStep {
				t.Errorf("got (%s, %v), want (%s, %v)", size.String(), nodeStep, tc.wantSize, tc.nodeStep)
			}
			calls := d.Calls()
			if len(calls) != 1 {
				t.Fatalf("driver calls = %d, want 1", len(calls))
			}
			call := calls[0]
			if call.VolumeID != tc.wantVolume || call.RequiredBytes != tc.wantBytes || call.Secrets["key"] != "value" {
				t.Errorf("call = %s %d %v, want %s %d with the secret", call.VolumeID, call.RequiredBytes, call.Secrets, tc.wantVolume, tc.wantBytes)
			}
			if got := call.Capability.GetMount().GetFsType(); got != tc.wantFSType {
				t.Errorf("fsType = %q, want %q", got, tc.wantFSType)
			}
			if call.Capability.GetAccessMode().GetMode() != csispec.VolumeCapability_AccessMode_SINGLE_NODE_WRITER {
				t.Errorf("access mode = %v", call.Capability.GetAccessMode().GetMode())
			}
		})
	}
}

func TestCSIExpandErrors(t *testing.T) {
	d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true})
	d.FailExpand(codes.OutOfRange, 1)
	r := &VolumeExpander{Driver: c}
	_, _, err := r.Expand(context.Background(), csiVolume("vol-1"), resource.MustParse("1Gi"), nil)
	if status.Code(err) != codes.OutOfRange {
		t.Errorf("code = %v, want OutOfRange (err %v)", status.Code(err), err)
	}

	vsphere := csiVolume("")
	vsphere.Spec.CSI = nil
	vsphere.Spec.VsphereVolume = &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] vol.vmdk"}
	if _, _, err := r.Expand(context.Background(), vsphere, resource.MustParse("1Gi"), nil); err == nil {
		t.Error("untranslatable volume: want an error")
	}
	rwx := csiVolume("vol-1")
	rwx.Spec.AccessModes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod, v1.ReadWriteMany}
	if _, _, err := r.Expand(context.Background(), rwx, resource.MustParse("1Gi"), nil); err == nil {
		t.Error("conflicting access modes: want an error")
	}
	if !r.UsesSecrets() {
		t.Error("CSI resizer must pass secrets")
	}
}

func TestNodeOnly(t *testing.T) {
	size, nodeStep, err := NodeOnly{}.Expand(context.Background(), csiVolume("vol-1"), resource.MustParse("2Gi"), nil)
	if err != nil || !size.IsZero() || !nodeStep {
		t.Errorf("got (%s, %v, %v), want (0, true, nil)", size.String(), nodeStep, err)
	}
	if (NodeOnly{}).UsesSecrets() {
		t.Error("node-only resizer has no use for secrets")
	}
}

func TestBytesOf(t *testing.T) {
	max := *resource.NewQuantity(math.MaxInt64, resource.BinarySI)
	if b, err := bytesOf(max); err != nil || b != math.MaxInt64 {
		t.Errorf("max int64: (%d, %v)", b, err)
	}
	if _, err := bytesOf(*resource.NewScaledQuantity(10, 18)); err == nil {
		t.Error("10^19 bytes: want an error")
	}
	if _, err := bytesOf(resource.MustParse("-1Gi")); err == nil {
		t.Error("negative size: want an error")
	}
}

func TestCSIExpandTimeout(t *testing.T) {
	// connect gives the client a 5s timeout.
	tests := []struct {
		name    string
		timeout time.Duration
		want    time.Duration
	}{
		{name: "zero leaves the client's timeout", want: 5 * time.Second},
		{name: "longer than the client's", timeout: time.Hour, want: time.Hour},
		{name: "shorter than the client's", timeout: 2 * time.Second, want: 2 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := connect(t, csidriver.Config{DriverName: "test.csi.example.com", ControllerExpand: true})
			r := &VolumeExpander{Driver: c, Timeout: tc.timeout}
			if _, _, err := r.Expand(context.Background(), csiVolume("vol-1"), resource.MustParse("1Gi"), nil); err != nil {
				t.Fatalf("Expand: %v", err)
			}
			calls := d.Calls()
			if len(calls) != 1 {
				t.Fatalf("driver calls = %d, want 1", len(calls))
			}
			// The deadline travels in the request; allow for the time the
			// request took to arrive.
			if got := calls[0].Deadline.Sub(calls[0].Start); got > tc.want || got < tc.want-time.Second {
				t.Errorf("driver saw a deadline %v after the call arrived, want about %v", got, tc.want)
			}
		})
	}
}
