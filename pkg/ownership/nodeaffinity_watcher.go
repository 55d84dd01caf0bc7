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
	"maps"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Watcher knows an instance's own Node as its informer last saw it, and
// tells who asked when the node's labels change.
type Watcher struct {
	name    string
	current atomic.Pointer[Node]
	synced  func() bool

	mu       sync.Mutex
	onChange []func(old, cur *Node)
}

// NewWatcher returns a Watcher of the Node name that knows nothing yet:
// Watch feeds it from an informer, Set by hand.
func NewWatcher(name string) *Watcher {
	return &Watcher{name: name}
}

// Name is the name of the watched Node (NODE_NAME).
func (w *Watcher) Name() string { return w.name }

// Current returns the node as last seen; nil before it is seen, and after
// it is deleted.
func (w *Watcher) Current() *Node { return w.current.Load() }

// OnChange registers f, called with the node before and after each change
// of its labels (nil when it did not exist), in the informer's goroutine.
// Register before the informer starts.
func (w *Watcher) OnChange(f func(old, cur *Node)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onChange = append(w.onChange, f)
}

// Set makes n the current node and calls the OnChange functions when its
// labels (or its existence) changed.
func (w *Watcher) Set(n *Node) {
	old := w.current.Swap(n)
	if old == nil && n == nil || old != nil && n != nil && old.Name == n.Name && maps.Equal(old.Labels, n.Labels) {
		return
	}
	w.mu.Lock()
	fs := w.onChange
	w.mu.Unlock()
	for _, f := range fs {
		f(old, n)
	}
}

// HasSynced reports whether the informer has delivered the node as it was
// at start; true without an informer.
func (w *Watcher) HasSynced() bool {
	return w.synced == nil || w.synced()
}

// Watch feeds w from informer, which must hold w's Node only (see
// NewInformer) and not have started yet.
func (w *Watcher) Watch(informer cache.SharedIndexInformer) error {
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.seen,
		UpdateFunc: func(_, obj any) { w.seen(obj) },
		DeleteFunc: func(any) { w.Set(nil) },
	})
	if err != nil {
		return err
	}
	w.synced = reg.HasSynced
	return nil
}

func (w *Watcher) seen(obj any) {
	if n, ok := obj.(*v1.Node); ok && n.Name == w.name {
		w.Set(NodeOf(n))
	}
}

// NewInformer returns an informer of the one Node name (a field selector
// on metadata.name: list and watch of that object only), which keeps its
// name, UID, resource version and labels only.
func NewInformer(client kube.Interface, name string, resync time.Duration) (cache.SharedIndexInformer, error) {
	informer := kube.NewFilteredNodeInformer(client, resync, cache.Indexers{}, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	})
	if err := informer.SetTransform(labelsOnly); err != nil {
		return nil, err
	}
	return informer, nil
}

// labelsOnly keeps of a Node what Watcher reads: its status (images,
// conditions) and annotations are most of it.
func labelsOnly(obj any) (any, error) {
	n, ok := obj.(*v1.Node)
	if !ok {
		return obj, nil
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion, Labels: n.Labels,
	}}, nil
}
