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
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
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

// nodeLease is the Lease of driver's --node-deployment instance on node,
// held by pod "csi-node-<node>", renewed at renewed for 40 s.
func nodeLease(node string, renewed time.Time) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: resizeroptions.NodeLeaseName(driver, node), Namespace: "kube-system",
			Labels: map[string]string{resizeroptions.NodeLeaseLabel: resizeroptions.NodeLeaseValue(driver)}},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("csi-node-" + node + "_1a2b3c4d"),
			LeaseDurationSeconds: ptr.To[int32](40),
			RenewTime:            &metav1.MicroTime{Time: renewed},
		},
	}
}

func node(name string, labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// pinned gives the volume one term: key In values.
func pinned(key string, values ...string) volumeOpt {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}}}}}}
	}
}

func TestExplainNodeDeployment(t *testing.T) {
	fresh := now.Add(-3 * time.Second)
	nodes := []runtime.Object{
		node("node-a", map[string]string{v1.LabelHostname: "node-a", v1.LabelTopologyZone: "z1"}),
		node("node-b", map[string]string{v1.LabelHostname: "node-b", v1.LabelTopologyZone: "z1"}),
	}
	tests := []struct {
		name     string
		affinity volumeOpt
		leases   []runtime.Object
		node     string // the owner's, "" when not handled
		owner    string
		resizer  string
		by       string
	}{{
		name: "the node's instance runs", affinity: pinned(v1.LabelHostname, "node-a"),
		leases: []runtime.Object{nodeLease("node-a", fresh), nodeLease("node-b", fresh)},
		node:   "node-a", owner: "the instance on node node-a handles the claim, as its node affinity pins it to node node-a",
		resizer: "running on node node-a: csi-node-node-a_1a2b3c4d (node Lease kube-system/" + resizeroptions.NodeLeaseName(driver, "node-a") + ", renewed 3s ago)",
		by:      ByResizer,
	}, {
		name: "the node's instance stopped", affinity: pinned(v1.LabelHostname, "node-a"),
		leases: []runtime.Object{nodeLease("node-b", fresh)},
		node:   "node-a", owner: "(node Leases: 1): the instance on node node-a handles the claim",
		resizer: "no resizer runs on node node-a: there is no Lease " + resizeroptions.NodeLeaseName(driver, "node-a") + " in any namespace, which its instance keeps while it runs (the driver's instances run on 1 other node(s))",
		by:      ByNobody,
	}, {
		name: "the node's instance died", affinity: pinned(v1.LabelHostname, "node-a"),
		leases: []runtime.Object{nodeLease("node-a", now.Add(-time.Minute)), nodeLease("node-b", fresh)},
		node:   "node-a", owner: "the instance on node node-a handles the claim",
		resizer: "no resizer runs on node node-a: csi-node-node-a_1a2b3c4d last renewed the node Lease", by: ByNobody,
	}, {
		name: "no node affinity", leases: []runtime.Object{nodeLease("node-a", fresh)},
		owner: "whose resizers run with --node-deployment, one per node (node Leases: 1): the volume has no required node affinity: it is pinned to no node, so no instance handles it",
	}, {
		name: "a zone", affinity: pinned(v1.LabelTopologyZone, "z1"), leases: []runtime.Object{nodeLease("node-a", fresh)},
		owner: "its node affinity pins it to no one node that exists (no node is called z1): no instance handles it",
	}, {
		name: "both nodes by name", affinity: pinned(v1.LabelHostname, "node-a", "node-b"), leases: []runtime.Object{nodeLease("node-a", fresh)},
		owner: "pins it to no one node that exists (it names no node)",
	}, {
		name: "a node that cannot use it", affinity: pinned(v1.LabelHostname, "node-c"), leases: []runtime.Object{nodeLease("node-a", fresh)},
		owner: "no node is called node-c",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress))
			pv := volume(pvc, "1Gi")
			if tc.affinity != nil {
				tc.affinity(pv)
			}
			objs := append(append([]runtime.Object{pvc, pv}, nodes...), tc.leases...)
			x := explainObjects(t, Request{}, objs...)
			if x.Owner.Node != tc.node || x.Owner.Handled != (tc.node != "") || !strings.Contains(x.Owner.Why, tc.owner) {
				t.Fatalf("owner %+v, want node %q and a reason containing %q", x.Owner, tc.node, tc.owner)
			}
			if tc.node == "" {
				if x.Resizer != nil || len(x.Operations) != 0 {
					t.Errorf("a claim no instance handles is explained as handled: %+v", x)
				}
				return
			}
			if x.Resizer.Node != tc.node || !strings.Contains(x.Resizer.Summary, tc.resizer) {
				t.Errorf("resizer %+v, want node %q and a summary containing %q", x.Resizer, tc.node, tc.resizer)
			}
			if op := operation(t, x, "resize"); op.NextStepBy != tc.by {
				t.Errorf("next step by %s (%s), want %s", op.NextStepBy, op.Next, tc.by)
			}
		})
	}
}

// TestExplainLeaderLeaseWinsOverNodeLeases checks that a driver whose
// resizer holds a leader Lease is explained as a resizer of the whole
// cluster, whatever node Leases are left.
func TestExplainLeaderLeaseWinsOverNodeLeases(t *testing.T) {
	pvc := claim("2Gi", "1Gi")
	pv := volume(pvc, "1Gi")
	pinned(v1.LabelHostname, "node-a")(pv)
	x := explainObjects(t, Request{}, pvc, pv, freshLease(), nodeLease("node-a", now))
	if !x.Owner.Handled || x.Owner.Node != "" || x.Resizer == nil || x.Resizer.Node != "" || x.Resizer.Status != ResizerRunning {
		t.Errorf("owner %+v, resizer %+v: want the leader's", x.Owner, x.Resizer)
	}
}

// TestListNodeDeployment lists the claims of a driver whose resizers run with
// --node-deployment: each names the node whose instance handles it, and
// the claims of a node without a live instance are nobody's. Each Node is
// read once, and list says what explain says.
func TestListNodeDeployment(t *testing.T) {
	inProgress := allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress)
	var objs []runtime.Object
	objs = append(objs, withPV(bound(ns, "a1", "2Gi", "1Gi", inProgress), pinned(v1.LabelHostname, "node-a"))...)
	objs = append(objs, withPV(bound(ns, "a2", "2Gi", "1Gi", inProgress), pinned(v1.LabelHostname, "node-a"))...)
	objs = append(objs, withPV(bound(ns, "b1", "2Gi", "1Gi", inProgress), pinned(v1.LabelHostname, "node-b"))...)
	for _, name := range []string{"node-a", "node-b"} {
		objs = append(objs, node(name, map[string]string{v1.LabelHostname: name}))
	}
	objs = append(objs, nodeLease("node-a", now.Add(-time.Second)))
	client := fake.NewClientset(objs...)
	nodeGets := 0
	client.PrependReactor("get", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		nodeGets++
		return false, nil, nil
	})
	in, err := Read(context.Background(), kubetest.Wrap(client), Request{})
	if err != nil {
		t.Fatal(err)
	}
	if nodeGets != 2 {
		t.Errorf("list read Nodes %d times, want once each", nodeGets)
	}
	r := List(in, now)
	want := map[string]struct{ node, by string }{
		"a1": {"node-a", ByResizer}, "a2": {"node-a", ByResizer}, "b1": {"node-b", ByNobody},
	}
	if len(r.Items) != len(want) {
		t.Fatalf("items %v, want %d", lines(r), len(want))
	}
	for _, it := range r.Items {
		if w := want[it.Name]; it.Node != w.node || it.NextStepBy != w.by {
			t.Errorf("%s: node %q, next step by %s; want %q, %s", line(it), it.Node, it.NextStepBy, w.node, w.by)
		}
		o, err := Gather(context.Background(), kubetest.Wrap(client), Request{Namespace: it.Namespace, Claim: it.Name})
		if err != nil {
			t.Fatal(err)
		}
		x := Explain(o, now)
		if x.Owner.Node != it.Node || operation(t, x, it.Operation).Summary != it.Reason || operation(t, x, it.Operation).NextStepBy != it.NextStepBy {
			t.Errorf("%s: explain says owner %+v, %+v", line(it), x.Owner, operation(t, x, it.Operation))
		}
	}
}
