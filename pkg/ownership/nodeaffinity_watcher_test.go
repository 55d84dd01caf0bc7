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
