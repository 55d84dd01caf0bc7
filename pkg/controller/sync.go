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
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/resize"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// errVolumeNotCached asks for a retry: the PV informer may lag the claim's.
var errVolumeNotCached = errors.New("PV not in the informer cache yet")

// sync looks at one claim and does what the decision says. It returns an
// error to retry with backoff, or a delay to look again later.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	logger := klog.FromContext(ctx)
	pvc, pv, err := c.objects(key)
	if err != nil || pvc == nil {
		return 0, err
	}
	verdict, reason := ownership.Check(pvc, pv, c.Driver)
	switch verdict {
	case ownership.WaitForPV:
		return 0, fmt.Errorf("claim %s: %w", key, errVolumeNotCached)
	case ownership.Ignore:
		logger.V(5).Info("Ignoring claim", "reason", reason)
		return 0, nil
	}
	state := c.stateOf(key, pvc, pv)
	if err := state.Validate(); err != nil {
		// Nothing can be decided about this claim until the size changes;
		// its update queues it again.
		c.warn(pvc, fmt.Errorf("cannot resize volume %q: %w", pv.Name, err))
		return 0, nil
	}
	d := resize.Decide(state, c.Clock.Now(), c.RetryMax)
	logger.V(4).Info("Decided", "action", d.Action, "target", d.Target.String(), "reason", d.Reason)
	switch d.Action {
	case resize.Expand:
		return c.expand(ctx, key, pvc, pv, d)
	case resize.Wait:
		return d.RetryAfter, nil
	default:
		return 0, nil
	}
}

// objects reads the claim and its PV from the caches, each replaced by the
// version this controller wrote last when the cache has not caught up. A
// deleted claim is forgotten and nil is returned.
func (c *Controller) objects(key string) (*v1.PersistentVolumeClaim, *v1.PersistentVolume, error) {
	obj, exists, err := c.Claims.GetIndexer().GetByKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("read claim %s from cache: %w", key, err)
	}
	cached, ok := obj.(*slim.Claim)
	if !exists || !ok {
		c.memory.forget(key)
		return nil, nil, nil
	}
	pvc := c.memory.freshClaim(key, cached.PVC())
	if pvc.Spec.VolumeName == "" {
		return pvc, nil, nil
	}
	obj, exists, err = c.Volumes.GetIndexer().GetByKey(pvc.Spec.VolumeName)
	if err != nil {
		return nil, nil, fmt.Errorf("read PV %s from cache: %w", pvc.Spec.VolumeName, err)
	}
	volume, ok := obj.(*slim.Volume)
	if !exists || !ok {
		return pvc, nil, nil
	}
	return pvc, c.memory.freshVolume(volume.PV()), nil
}

// stateOf gathers what the decision reads.
func (c *Controller) stateOf(key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) resize.State {
	s := resize.State{
		Request:       pvc.Spec.Resources.Requests[v1.ResourceStorage],
		Capacity:      pvc.Status.Capacity[v1.ResourceStorage],
		PVSize:        pv.Spec.Capacity[v1.ResourceStorage],
		Status:        pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage],
		ErrorRecorded: claimstatus.ErrorRecorded(pvc),
		LastFailure:   c.memory.failure(key),
		Recovery:      c.Recovery,
	}
	if a, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]; ok {
		s.Allocated = &a
	}
	return s
}
