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

package controller

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

func (c *Controller) registerHandlers() error {
	if _, err := c.Claims.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: c.claimUpdated,
		DeleteFunc: c.claimDeleted,
	}); err != nil {
		return err
	}
	if _, err := c.Volumes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: c.volumeDeleted,
	}); err != nil {
		return err
	}
	if c.Modifier != nil {
		// The claims that wait for a class are queued when it is created, so
		// that a Pending modification starts by itself.
		if err := c.Claims.AddIndexers(cache.Indexers{byClass: claimClasses}); err != nil {
			return err
		}
		if _, err := c.AttributeClasses.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: c.classCreated, UpdateFunc: c.classReplaced}); err != nil {
			return err
		}
	}
	if c.Node != nil {
		c.Node.OnChange(c.nodeChanged)
	}
	if c.Pods != nil {
		return c.Pods.OnRelease(func(namespace, claim string) {
			c.queue.Add(namespace + "/" + claim)
		})
	}
	return nil
}

// byClass indexes claims by the VolumeAttributesClasses their next
// modification waits for: the spec's class and the recorded target.
const byClass = "volumeAttributesClass"

// classReplaced handles a class deleted and created again while the watch
// was down: the relist shows it as an update with a new UID.
func (c *Controller) classReplaced(old, obj any) {
	o, err1 := meta.Accessor(old)
	n, err2 := meta.Accessor(obj)
	if err1 == nil && err2 == nil && o.GetUID() != n.GetUID() {
		c.classCreated(obj)
	}
}

func claimClasses(obj any) ([]string, error) {
	cl, ok := obj.(*slim.Claim)
	if !ok || cl.Classes == nil {
		return nil, nil
	}
	var names []string
	if s := cl.Classes.Spec; s != nil && *s != "" {
		names = append(names, *s)
	}
	if m := cl.Classes.Modify; m != nil && m.TargetVolumeAttributesClassName != "" {
		names = append(names, m.TargetVolumeAttributesClassName)
	}
	return names, nil
}

func (c *Controller) classCreated(obj any) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	claims, err := c.Claims.GetIndexer().ByIndex(byClass, key)
	if err != nil {
		return
	}
	for _, cl := range claims {
		c.enqueue(cl)
	}
}

func (c *Controller) enqueue(obj any) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		klog.Background().Error(err, "Cannot queue object", "object", obj)
		return
	}
	c.queue.Add(key)
}

// claimUpdated queues a claim when something the decisions read was changed
// by someone else: the request, the capacity (kubelet finished), kubelet's
// own status (see kubeletStatusChanged), the resizer annotation (CSI
// migration), the class. The resizer's own status writes do not requeue
// it, so a retry waits for its backoff. A resync (same version) always
// queues, as the safety net.
func (c *Controller) claimUpdated(oldObj, newObj any) {
	old, ok1 := oldObj.(*slim.Claim)
	cur, ok2 := newObj.(*slim.Claim)
	if !ok1 || !ok2 {
		return
	}
	if old.ResourceVersion == cur.ResourceVersion ||
		!sameQuantity(old.Request, cur.Request) ||
		!sameQuantity(old.Capacity, cur.Capacity) ||
		kubeletStatusChanged(old, cur) ||
		old.Phase != cur.Phase ||
		old.Annotations.Get(ownership.ResizerAnnotation) != cur.Annotations.Get(ownership.ResizerAnnotation) ||
		classChanged(old.Classes, cur.Classes) {
		c.enqueue(cur)
	}
}

// kubeletStatusChanged tells whether kubelet changed the claim's expansion
// status: a resize status it writes (NodeResizeInProgress,
// NodeResizeInfeasible) appeared or went, or its NodeResizeError condition
// changed. Its NodeResizeInfeasible is often the only news that a lowered
// request can be handed back to it (KEP-1790), and nothing else would wake
// the resizer before the resync.
func kubeletStatusChanged(old, cur *slim.Claim) bool {
	oldStatus, curStatus := ptr.Deref(old.ResizeStatus, ""), ptr.Deref(cur.ResizeStatus, "")
	kubelets := func(s v1.ClaimResourceStatus) bool {
		return s == v1.PersistentVolumeClaimNodeResizeInProgress || s == v1.PersistentVolumeClaimNodeResizeInfeasible
	}
	return oldStatus != curStatus && (kubelets(oldStatus) || kubelets(curStatus)) || nodeError(old.Conditions) != nodeError(cur.Conditions)
}

// nodeError is kubelet's NodeResizeError condition, or the zero condition.
func nodeError(conditions []v1.PersistentVolumeClaimCondition) v1.PersistentVolumeClaimCondition {
	for _, c := range conditions {
		if c.Type == v1.PersistentVolumeClaimNodeResizeError {
			return v1.PersistentVolumeClaimCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
		}
	}
	return v1.PersistentVolumeClaimCondition{}
}

// classChanged tells whether the spec's or the current class differ.
func classChanged(old, cur *slim.ClaimClasses) bool {
	o, n := ptr.Deref(old, slim.ClaimClasses{}), ptr.Deref(cur, slim.ClaimClasses{})
	return ptr.Deref(o.Spec, "") != ptr.Deref(n.Spec, "") || ptr.Deref(o.Current, "") != ptr.Deref(n.Current, "")
}

func (c *Controller) claimDeleted(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	c.memory.forget(key)
	c.queue.Forget(key)
}

func (c *Controller) volumeDeleted(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if pv, ok := obj.(*slim.Volume); ok {
		c.memory.volumes.forget(pv.Name)
	}
}

// sameQuantity tells whether a and b are both absent or equal. Quantities
// out of decide.CheckSize's range are compared by their text: Quantity.Cmp
// of a valid quantity such as "1e2000000000" does not return in any useful
// time, and this runs in the informer's delivery of every claim in the
// cluster.
func sameQuantity(a, b *resource.Quantity) bool {
	if a == nil || b == nil {
		return a == b
	}
	if decide.CheckSize(*a) != nil || decide.CheckSize(*b) != nil {
		return a.String() == b.String()
	}
	return a.Cmp(*b) == 0
}
