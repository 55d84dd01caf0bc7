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
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/resize"
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
	if c.Pods != nil {
		return c.Pods.OnRelease(func(namespace, claim string) {
			c.queue.Add(namespace + "/" + claim)
		})
	}
	return nil
}

func (c *Controller) enqueue(obj any) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		klog.Background().Error(err, "Cannot queue object", "object", obj)
		return
	}
	c.queue.Add(key)
}

// claimUpdated queues a claim when something the decision reads was changed
// by someone else: the request, the capacity (kubelet finished), the resizer
// annotation (CSI migration). The resizer's own status writes do not requeue
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
		old.Phase != cur.Phase ||
		old.Annotations.Get(ownership.ResizerAnnotation) != cur.Annotations.Get(ownership.ResizerAnnotation) {
		c.enqueue(cur)
	}
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
		c.memory.forgetVolume(pv.Name)
	}
}

// sameQuantity tells whether a and b are both absent or equal. Quantities
// out of resize.CheckSize's range are compared by their text: Quantity.Cmp
// of a valid quantity such as "1e2000000000" does not return in any useful
// time, and this runs in the informer's delivery of every claim in the
// cluster.
func sameQuantity(a, b *resource.Quantity) bool {
	if a == nil || b == nil {
		return a == b
	}
	if resize.CheckSize(*a) != nil || resize.CheckSize(*b) != nil {
		return a.String() == b.String()
	}
	return a.Cmp(*b) == 0
}
