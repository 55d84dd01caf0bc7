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

package list

import (
	"context"
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
	"github.com/csi-resizer/csi-resizer/pkg/explain"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// onNode pins the claim's volume to node by its host name.
func onNode(node string) claimOpt {
	return func(_ *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}
	}
}

// TestNodeDeployment lists the claims of a driver whose resizers run with
// --node-deployment: each names the node whose instance handles it, and
// the claims of a node without a live instance are nobody's. Each Node is
// read once, and list says what explain says.
func TestNodeDeployment(t *testing.T) {
	inProgress := allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress)
	var objs []runtime.Object
	objs = append(objs, bound(ns, "a1", "2Gi", "1Gi", inProgress, onNode("node-a"))...)
	objs = append(objs, bound(ns, "a2", "2Gi", "1Gi", inProgress, onNode("node-a"))...)
	objs = append(objs, bound(ns, "b1", "2Gi", "1Gi", inProgress, onNode("node-b"))...)
	for _, name := range []string{"node-a", "node-b"} {
		objs = append(objs, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}}})
	}
	objs = append(objs, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: resizeroptions.NodeLeaseName(driver, "node-a"), Namespace: "kube-system",
			Labels: map[string]string{resizeroptions.NodeLeaseLabel: resizeroptions.NodeLeaseValue(driver)}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("csi-node-a_1"), LeaseDurationSeconds: ptr.To[int32](40),
			RenewTime: &metav1.MicroTime{Time: now.Add(-time.Second)}},
	})
	client := fake.NewClientset(objs...)
	nodeGets := 0
	client.PrependReactor("get", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		nodeGets++
		return false, nil, nil
	})
	in, err := Read(context.Background(), NewReader(kubetest.Wrap(client)), Request{})
	if err != nil {
		t.Fatal(err)
	}
	if nodeGets != 2 {
		t.Errorf("list read Nodes %d times, want once each", nodeGets)
	}
	r := Unfinished(in, now)
	want := map[string]struct{ node, by string }{
		"a1": {"node-a", explain.ByResizer}, "a2": {"node-a", explain.ByResizer}, "b1": {"node-b", explain.ByNobody},
	}
	if len(r.Items) != len(want) {
		t.Fatalf("items %v, want %d", lines(r), len(want))
	}
	for _, it := range r.Items {
		if w := want[it.Name]; it.Node != w.node || it.NextStepBy != w.by {
			t.Errorf("%s: node %q, next step by %s; want %q, %s", line(it), it.Node, it.NextStepBy, w.node, w.by)
		}
		o, err := explain.Gather(context.Background(), explain.NewReader(kubetest.Wrap(client)), explain.Request{Namespace: it.Namespace, Claim: it.Name})
		if err != nil {
			t.Fatal(err)
		}
		x := explain.Explain(o, now)
		if x.Owner.Node != it.Node || operationOf(x, it.Operation).Summary != it.Reason || operationOf(x, it.Operation).NextStepBy != it.NextStepBy {
			t.Errorf("%s: explain says owner %+v, %+v", line(it), x.Owner, operationOf(x, it.Operation))
		}
	}
}

func operationOf(x explain.Explanation, op string) explain.Operation {
	for _, o := range x.Operations {
		if o.Operation == op {
			return o
		}
	}
	return explain.Operation{}
}
