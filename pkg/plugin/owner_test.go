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

package plugin

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-resizer/csi-resizer/pkg/ownership"
)

func TestExplainOwner(t *testing.T) {
	bound := claim("2Gi", "1Gi")
	tests := []struct {
		name    string
		req     Request
		objs    []runtime.Object
		handled bool
		driver  string
		says    []string
	}{{
		name:    "a CSI volume of the driver",
		objs:    []runtime.Object{bound, volume(bound, "1Gi")},
		handled: true, driver: driver,
		says: []string{"a CSI volume of driver ebs.csi.example.com: the resizer of ebs.csi.example.com handles the claim"},
	}, {
		name: "an unbound claim",
		objs: []runtime.Object{claim("2Gi", "1Gi", pending)},
		says: []string{"the claim is not bound to a volume (phase Pending)"},
	}, {
		name:   "a claim of another driver",
		req:    Request{Driver: driver},
		objs:   []runtime.Object{bound, volume(bound, "1Gi", ofDriver("nfs.csi.example.com"))},
		driver: "nfs.csi.example.com",
		says:   []string{"not handled by the resizer of ebs.csi.example.com: the volume belongs to CSI driver nfs.csi.example.com, whose resizer handles the claim"},
	}, {
		name: "an in-tree volume, CSI migration off",
		objs: []runtime.Object{
			claim("2Gi", "1Gi", annotated(ownership.ResizerAnnotation, "kubernetes.io/aws-ebs")), volume(bound, "1Gi", awsEBS)},
		driver: "ebs.csi.aws.com",
		says: []string{"an in-tree awsElasticBlockStore volume and CSI migration is not on for it (annotation volume.kubernetes.io/storage-resizer is kubernetes.io/aws-ebs, not ebs.csi.aws.com)",
			"kube-controller-manager's in-tree volume plugin expands it"},
	}, {
		name: "an in-tree volume migrated to CSI",
		objs: []runtime.Object{
			claim("2Gi", "1Gi", annotated(ownership.ResizerAnnotation, "ebs.csi.aws.com")), volume(bound, "1Gi", awsEBS)},
		handled: true, driver: "ebs.csi.aws.com",
		says: []string{"an in-tree awsElasticBlockStore volume migrated to CSI driver ebs.csi.aws.com"},
	}, {
		name: "an in-tree volume no CSI driver takes",
		objs: []runtime.Object{bound, volume(bound, "1Gi", func(pv *v1.PersistentVolume) {
			pv.Spec.CSI = nil
			pv.Spec.NFS = &v1.NFSVolumeSource{Server: "nfs", Path: "/x"}
		})},
		says: []string{"an in-tree nfs volume that CSI migration hands to no CSI driver: no CSI resizer handles it"},
	}, {
		name: "a missing PV",
		objs: []runtime.Object{bound},
		says: []string{`the claim's volume "pv-data" does not exist (deleted?)`},
	}, {
		name:   "a PV bound to another claim",
		objs:   []runtime.Object{bound, volume(bound, "1Gi", func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef.UID = "uid-old" })},
		driver: driver,
		says:   []string{`the resizer of ebs.csi.example.com leaves the claim alone: volume is bound to claim UID "uid-old"`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := explainObjects(t, tc.req, append(tc.objs, freshLease())...)
			if x.Owner.Handled != tc.handled || x.Owner.Driver != tc.driver {
				t.Errorf("owner = %+v, want handled %v by %q", x.Owner, tc.handled, tc.driver)
			}
			for _, s := range tc.says {
				if !strings.Contains(x.Owner.Why, s) {
					t.Errorf("owner says %q, want it to hold %q", x.Owner.Why, s)
				}
			}
			if handled := len(x.Operations) > 0 || x.Resizer != nil; handled != tc.handled {
				t.Errorf("operations %v and resizer %v for a claim handled %v", x.Operations, x.Resizer, tc.handled)
			}
		})
	}
}

func TestExplainMissingVolumeNamesIt(t *testing.T) {
	x := explainObjects(t, Request{}, claim("2Gi", "1Gi"))
	if x.Volume != nil || x.Claim.VolumeName != "pv-data" {
		t.Errorf("volume = %+v, claim's volume name %q", x.Volume, x.Claim.VolumeName)
	}
	var b strings.Builder
	if err := Text(&b, x); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Volume:       pv-data (does not exist)") {
		t.Errorf("text does not say the volume is missing:\n%s", b.String())
	}
}
