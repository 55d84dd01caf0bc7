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
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-helpers/storage/volume"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
)

const driverKey = "topology.hostpath.csi/node"

// node1 is the node under test: host name host-1, the driver's key naming
// it, zone z1, a disk count of 4.
var node1 = &Node{Name: "node-1", Labels: map[string]string{
	HostnameLabel:        "host-1",
	driverKey:            "node-1",
	v1.LabelTopologyZone: "z1",
	"disks":              "4",
	"ssd":                "",
}}

func expr(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func term(exprs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchExpressions: exprs}
}

func pvWithTerms(terms ...v1.NodeSelectorTerm) *v1.PersistentVolume {
	return &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{NodeAffinity: &v1.VolumeNodeAffinity{
		Required: &v1.NodeSelector{NodeSelectorTerms: terms},
	}}}
}

var (
	hostPin   = expr(HostnameLabel, v1.NodeSelectorOpIn, "host-1")
	driverPin = expr(driverKey, v1.NodeSelectorOpIn, "node-1")
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name       string
		pv         *v1.PersistentVolume
		node       *Node // node1 when nil and !unknown
		unknown    bool
		want       Result
		wantReason string
	}{
		{name: "no node affinity", pv: &v1.PersistentVolume{}, want: NoAffinity,
			wantReason: "no required node affinity"},
		{name: "node affinity without required", pv: &v1.PersistentVolume{Spec: v1.PersistentVolumeSpec{NodeAffinity: &v1.VolumeNodeAffinity{}}},
			want: NoAffinity},
		{name: "node not known", pv: pvWithTerms(term(hostPin)), unknown: true, want: Elsewhere,
			wantReason: "Node is not known"},

		// Pinned by each kind of label that names one node.
		{name: "hostname In one value", pv: pvWithTerms(term(hostPin)), want: Pinned,
			wantReason: "pins it to node node-1 (kubernetes.io/hostname In [host-1])"},
		{name: "driver's node key In the node's name", pv: pvWithTerms(term(driverPin)), want: Pinned,
			wantReason: "(topology.hostpath.csi/node In [node-1])"},
		{name: "the one value repeated", pv: pvWithTerms(term(expr(HostnameLabel, v1.NodeSelectorOpIn, "host-1", "host-1"))), want: Pinned},
		{name: "pin with every other operator ANDed", pv: pvWithTerms(term(
			hostPin,
			expr(v1.LabelTopologyZone, v1.NodeSelectorOpIn, "z1", "z2"),
			expr("rack", v1.NodeSelectorOpNotIn, "r9"),
			expr("ssd", v1.NodeSelectorOpExists),
			expr("gpu", v1.NodeSelectorOpDoesNotExist),
			expr("disks", v1.NodeSelectorOpGt, "3"),
			expr("disks", v1.NodeSelectorOpLt, "5"),
		)), want: Pinned},
		{name: "two terms, both pinning this node", pv: pvWithTerms(term(hostPin), term(driverPin)), want: Pinned,
			wantReason: "(kubernetes.io/hostname In [host-1]; topology.hostpath.csi/node In [node-1])"},
		{name: "an empty term is skipped, as the scheduler does", pv: pvWithTerms(v1.NodeSelectorTerm{}, term(hostPin)), want: Pinned},
		{name: "matchFields beside a pin are not checked", pv: pvWithTerms(v1.NodeSelectorTerm{
			MatchExpressions: []v1.NodeSelectorRequirement{hostPin},
			MatchFields:      []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, "node-2")},
		}), want: Pinned},

		// This node cannot use the volume: each operator failing.
		{name: "hostname of another node", pv: pvWithTerms(term(expr(HostnameLabel, v1.NodeSelectorOpIn, "host-2"))), want: Elsewhere,
			wantReason: "node node-1 cannot use the volume"},
		{name: "In fails", pv: pvWithTerms(term(hostPin, expr(v1.LabelTopologyZone, v1.NodeSelectorOpIn, "z2"))), want: Elsewhere},
		{name: "NotIn fails", pv: pvWithTerms(term(hostPin, expr(v1.LabelTopologyZone, v1.NodeSelectorOpNotIn, "z1"))), want: Elsewhere},
		{name: "Exists fails", pv: pvWithTerms(term(hostPin, expr("gpu", v1.NodeSelectorOpExists))), want: Elsewhere},
		{name: "DoesNotExist fails", pv: pvWithTerms(term(hostPin, expr("ssd", v1.NodeSelectorOpDoesNotExist))), want: Elsewhere},
		{name: "Gt fails", pv: pvWithTerms(term(hostPin, expr("disks", v1.NodeSelectorOpGt, "4"))), want: Elsewhere},
		{name: "Lt fails", pv: pvWithTerms(term(hostPin, expr("disks", v1.NodeSelectorOpLt, "4"))), want: Elsewhere},
		{name: "Gt on a label that is not a number", pv: pvWithTerms(term(hostPin, expr(v1.LabelTopologyZone, v1.NodeSelectorOpGt, "1"))), want: Elsewhere},
		{name: "only an empty term", pv: pvWithTerms(v1.NodeSelectorTerm{}), want: Elsewhere},
		{name: "node labels only: a node without the driver's label", pv: pvWithTerms(term(driverPin)),
			node: &Node{Name: "node-1", Labels: map[string]string{HostnameLabel: "host-1"}}, want: Elsewhere},

		// This node can use the volume, and other nodes may.
		{name: "zone", pv: pvWithTerms(term(expr(v1.LabelTopologyZone, v1.NodeSelectorOpIn, "z1"))), want: Shared,
			wantReason: "term 0 of its node affinity (topology.kubernetes.io/zone In [z1]) pins no node"},
		{name: "hostname In two values", pv: pvWithTerms(term(expr(HostnameLabel, v1.NodeSelectorOpIn, "host-1", "host-2"))), want: Shared,
			wantReason: "(kubernetes.io/hostname In [host-1, host-2]) pins no node"},
		{name: "hostname Exists", pv: pvWithTerms(term(expr(HostnameLabel, v1.NodeSelectorOpExists))), want: Shared},
		{name: "hostname NotIn another", pv: pvWithTerms(term(expr(HostnameLabel, v1.NodeSelectorOpNotIn, "host-2"))), want: Shared},
		{name: "In one value on a label that names no node", pv: pvWithTerms(term(expr("disks", v1.NodeSelectorOpIn, "4"))), want: Shared},
		{name: "a second term pins another node", pv: pvWithTerms(term(hostPin), term(expr(HostnameLabel, v1.NodeSelectorOpIn, "host-2"))), want: Shared,
			wantReason: "term 1 of its node affinity (kubernetes.io/hostname In [host-2]) selects another node, by kubernetes.io/hostname In [host-2]"},
		{name: "a second term names another node by the driver's key", pv: pvWithTerms(term(driverPin), term(expr(driverKey, v1.NodeSelectorOpIn, "node-2"))), want: Shared,
			wantReason: "selects another node, by topology.hostpath.csi/node In [node-2]"},
		{name: "a second term is a zone", pv: pvWithTerms(term(hostPin), term(expr(v1.LabelTopologyZone, v1.NodeSelectorOpIn, "z1"))), want: Shared,
			wantReason: "term 1 of its node affinity"},
		{name: "matchFields alone select every node", pv: pvWithTerms(v1.NodeSelectorTerm{
			MatchFields: []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, "node-1")},
		}), want: Shared, wantReason: "(field metadata.name In [node-1]) selects every node: matchFields are not checked for volumes"},
		{name: "matchFields naming another node select this one too", pv: pvWithTerms(v1.NodeSelectorTerm{
			MatchFields: []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, "node-2")},
		}), want: Shared},
		{name: "matchFields pinning this node beside a zone", pv: pvWithTerms(v1.NodeSelectorTerm{
			MatchExpressions: []v1.NodeSelectorRequirement{expr(v1.LabelTopologyZone, v1.NodeSelectorOpIn, "z1")},
			MatchFields:      []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, "node-1")},
		}), want: Shared},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node := tc.node
			if node == nil && !tc.unknown {
				node = node1
			}
			got, reason := Match(tc.pv, node)
			if got != tc.want || !strings.Contains(reason, tc.wantReason) {
				t.Errorf("Match = %v, %q; want %v, a reason containing %q", got, reason, tc.want, tc.wantReason)
			}
		})
	}
}

// TestOneOwner checks the point of the rule on a small cluster: for each
// affinity, at most one node's instance finds the volume Pinned, and it is
// a node the scheduler would place the volume on.
func TestOneOwner(t *testing.T) {
	nodes := []*Node{
		node1,
		{Name: "node-2", Labels: map[string]string{HostnameLabel: "host-2", driverKey: "node-2", v1.LabelTopologyZone: "z1"}},
		{Name: "node-3", Labels: map[string]string{HostnameLabel: "host-3", driverKey: "node-3", v1.LabelTopologyZone: "z2"}},
		// A node someone labelled with node-1's name on the driver's key.
		{Name: "node-4", Labels: map[string]string{HostnameLabel: "host-4", driverKey: "node-1", v1.LabelTopologyZone: "z1"}},
	}
	affinities := map[string]*v1.PersistentVolume{
		"hostname":        pvWithTerms(term(hostPin)),
		"driver's key":    pvWithTerms(term(driverPin)),
		"zone":            pvWithTerms(term(expr(v1.LabelTopologyZone, v1.NodeSelectorOpIn, "z1"))),
		"two hosts":       pvWithTerms(term(hostPin), term(expr(HostnameLabel, v1.NodeSelectorOpIn, "host-2"))),
		"two driver keys": pvWithTerms(term(expr(driverKey, v1.NodeSelectorOpIn, "node-1", "node-2"))),
		"matchFields":     pvWithTerms(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, "node-2")}}),
	}
	wantOwner := map[string]string{"hostname": "node-1", "driver's key": "node-1"}
	for name, pv := range affinities {
		var owners []string
		for _, n := range nodes {
			if r, _ := Match(pv, n); r == Pinned {
				owners = append(owners, n.Name)
			}
		}
		if got := strings.Join(owners, ","); got != wantOwner[name] {
			t.Errorf("%s: owners %q, want %q", name, got, wantOwner[name])
		}
	}
}

// TestLabelsChangeTheResult follows one volume as its node's labels change.
func TestLabelsChangeTheResult(t *testing.T) {
	pv := pvWithTerms(term(driverPin, expr("pool", v1.NodeSelectorOpIn, "fast")))
	steps := []struct {
		labels map[string]string
		want   Result
	}{
		{map[string]string{HostnameLabel: "host-1"}, Elsewhere}, // before the driver registers
		{map[string]string{HostnameLabel: "host-1", driverKey: "node-1"}, Elsewhere},
		{map[string]string{HostnameLabel: "host-1", driverKey: "node-1", "pool": "fast"}, Pinned},
		{map[string]string{HostnameLabel: "host-1", driverKey: "node-1", "pool": "slow"}, Elsewhere},
	}
	for i, s := range steps {
		if got, reason := Match(pv, &Node{Name: "node-1", Labels: s.labels}); got != s.want {
			t.Errorf("step %d (%v): %v (%s), want %v", i, s.labels, got, reason, s.want)
		}
	}
}

func TestResultString(t *testing.T) {
	for r, want := range map[Result]string{Elsewhere: "Elsewhere", Pinned: "Pinned", Shared: "Shared", NoAffinity: "NoAffinity", Result(9): "Result(9)"} {
		if got := r.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

// TestMatchFieldsAreNotChecked pins down the behaviour of component-helpers
// that the package documents: for volumes, a term's matchFields are not
// checked, so a term of matchFields alone selects every node.
func TestMatchFieldsAreNotChecked(t *testing.T) {
	pv := pvWithTerms(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, "node-2")}})
	if err := volume.CheckNodeAffinity(pv, map[string]string{HostnameLabel: "host-1"}); err != nil {
		t.Errorf("CheckNodeAffinity = %v, want nil: matchFields are not checked", err)
	}
}

type change struct{ old, cur *Node }

// recorder collects a Watcher's changes.
type recorder struct {
	mu      sync.Mutex
	changes []change
}

func (r *recorder) add(old, cur *Node) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, change{old, cur})
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.changes)
}

func (r *recorder) last() change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changes[len(r.changes)-1]
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func apiNode(name string, labels map[string]string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{"big": "annotation"}},
		Status:     v1.NodeStatus{Images: []v1.ContainerImage{{Names: []string{"image"}}}},
	}
}

func TestWatcherFollowsItsNode(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(
		apiNode("node-1", map[string]string{HostnameLabel: "host-1"}),
		apiNode("node-2", map[string]string{HostnameLabel: "host-2"}),
	)
	informer, err := NewInformer(kubetest.Wrap(client), "node-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatcher("node-1")
	var r recorder
	w.OnChange(r.add)
	if err := w.Watch(informer); err != nil {
		t.Fatal(err)
	}
	if w.Current() != nil || w.Name() != "node-1" {
		t.Fatalf("before start: Current() = %v, Name() = %q", w.Current(), w.Name())
	}
	stop := make(chan struct{})
	defer close(stop)
	go informer.Run(stop)
	if !cache.WaitForCacheSync(stop, w.HasSynced) {
		t.Fatal("not synced")
	}

	// The list asked for the one node.
	listed := false
	for _, a := range client.Actions() {
		if l, ok := a.(clienttesting.ListAction); ok && l.GetResource().Resource == "nodes" {
			listed = true
			if got := l.GetListRestrictions().Fields.String(); got != "metadata.name=node-1" {
				t.Errorf("list of nodes with field selector %q, want metadata.name=node-1", got)
			}
		}
	}
	if !listed {
		t.Error("nodes were not listed")
	}
	// The fake API server does not filter by fields: node-2 reached the
	// informer, and the Watcher ignored it.
	if n := w.Current(); n == nil || n.Name != "node-1" || n.Labels[HostnameLabel] != "host-1" {
		t.Fatalf("Current() = %+v, want node-1", n)
	}
	if r.len() != 1 || r.last().old != nil {
		t.Errorf("changes at start = %+v, want one from nil", r.changes)
	}
	obj, _, _ := informer.GetIndexer().GetByKey("node-1")
	if n := obj.(*v1.Node); n.Annotations != nil || n.Status.Images != nil {
		t.Errorf("cached node keeps more than labels: %+v", n)
	}

	// A change of status only: no change of labels.
	n1, _ := client.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
	n1.Status.Phase = v1.NodeRunning
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, n1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A change of labels.
	n1, _ = client.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
	n1.Labels["pool"] = "fast"
	if _, err := client.CoreV1().Nodes().Update(ctx, n1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the label change", func() bool { return r.len() >= 2 })
	if c := r.last(); r.len() != 2 || c.old.Labels["pool"] != "" || c.cur.Labels["pool"] != "fast" {
		t.Errorf("changes = %+v, want one more, adding pool=fast", r.changes)
	}
	if w.Current().Labels["pool"] != "fast" {
		t.Errorf("Current() = %+v", w.Current())
	}

	// Deleted: nothing is known.
	if err := client.CoreV1().Nodes().Delete(ctx, "node-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the deletion", func() bool { return w.Current() == nil })
	if c := r.last(); r.len() != 3 || c.cur != nil || c.old == nil {
		t.Errorf("changes = %+v, want one more, to nil", r.changes)
	}
}

func TestWatcherSet(t *testing.T) {
	w := NewWatcher("node-1")
	if !w.HasSynced() {
		t.Error("a Watcher without informer is not synced")
	}
	var r recorder
	w.OnChange(r.add)
	w.Set(nil)
	a := &Node{Name: "node-1", Labels: map[string]string{"a": "1"}}
	w.Set(a)
	w.Set(&Node{Name: "node-1", Labels: map[string]string{"a": "1"}}) // same labels
	w.Set(&Node{Name: "node-1", Labels: map[string]string{"a": "2"}})
	w.Set(nil)
	if r.len() != 3 {
		t.Fatalf("changes = %+v, want 3", r.changes)
	}
	if c := r.changes[0]; c.old != nil || c.cur != a {
		t.Errorf("first change = %+v", c)
	}
}
