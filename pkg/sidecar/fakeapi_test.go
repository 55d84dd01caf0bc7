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

package sidecar

import (
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// newFakeAPI returns a fake clientset that behaves like an API server in
// the one respect the resizer depends on: every write gives the object a
// new, increasing resourceVersion, and a write that carries a stale
// resourceVersion fails with a conflict. client-go's fake tracker does
// neither, so the controller could not tell its own writes from an older
// cache and would expand a volume twice where a real cluster would not.
func newFakeAPI(objs ...runtime.Object) *fake.Clientset {
	client := fake.NewClientset()
	t := &versionedTracker{ObjectTracker: client.Tracker()}
	for _, o := range objs {
		if err := t.Add(o); err != nil {
			panic(err)
		}
	}
	client.ReactionChain = nil
	client.WatchReactionChain = nil
	client.AddReactor("*", "*", clienttesting.ObjectReaction(t))
	client.AddWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := t.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		return true, w, nil
	})
	return client
}

// versionedTracker adds resourceVersions and optimistic concurrency to an
// object tracker. The fake clientset serialises all reactions, so the read
// and the write of one update do not interleave with another.
type versionedTracker struct {
	clienttesting.ObjectTracker
	last uint64
}

func (t *versionedTracker) next(obj runtime.Object) (runtime.Object, error) {
	obj = obj.DeepCopyObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	t.last++
	m.SetResourceVersion(strconv.FormatUint(t.last, 10))
	return obj, nil
}

// checked fails with a conflict when obj carries a resourceVersion that is
// not the stored one, and returns obj with the next resourceVersion.
func (t *versionedTracker) checked(gvr schema.GroupVersionResource, obj runtime.Object, ns string) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	if rv := m.GetResourceVersion(); rv != "" {
		cur, err := t.ObjectTracker.Get(gvr, ns, m.GetName())
		if err != nil {
			return nil, err
		}
		cm, err := meta.Accessor(cur)
		if err != nil {
			return nil, err
		}
		if cm.GetResourceVersion() != rv {
			return nil, apierrors.NewConflict(gvr.GroupResource(), m.GetName(),
				&resourceVersionError{want: cm.GetResourceVersion(), got: rv})
		}
	}
	return t.next(obj)
}

type resourceVersionError struct{ want, got string }

func (e *resourceVersionError) Error() string {
	return "the object has been modified: resourceVersion " + e.got + ", stored " + e.want
}

func (t *versionedTracker) Add(obj runtime.Object) error {
	obj, err := t.next(obj)
	if err != nil {
		return err
	}
	return t.ObjectTracker.Add(obj)
}

func (t *versionedTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	obj, err := t.next(obj)
	if err != nil {
		return err
	}
	return t.ObjectTracker.Create(gvr, obj, ns, opts...)
}

func (t *versionedTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	obj, err := t.checked(gvr, obj, ns)
	if err != nil {
		return err
	}
	return t.ObjectTracker.Update(gvr, obj, ns, opts...)
}

func (t *versionedTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	checked, err := t.checked(gvr, obj, ns)
	if err != nil {
		return err
	}
	if err := t.ObjectTracker.Patch(gvr, checked, ns, opts...); err != nil {
		return err
	}
	// ObjectReaction returns obj itself as the patched object.
	return copyMeta(checked, obj)
}

func copyMeta(from, to runtime.Object) error {
	f, err := meta.Accessor(from)
	if err != nil {
		return err
	}
	t, err := meta.Accessor(to)
	if err != nil {
		return err
	}
	t.SetResourceVersion(f.GetResourceVersion())
	return nil
}
