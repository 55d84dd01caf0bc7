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
	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// errVolumeNotCached asks for a retry: the PV informer may lag the claim's.
var errVolumeNotCached = errors.New("PV not in the informer cache yet")

// sync looks at one claim and does what the decisions say: at most one
// step of each operation, the one plan.first picks, then the other if
// it still has work. It returns an error to retry with backoff, or a delay
// to look again later.
//
// A step once started runs to its end even when ctx ends (a driver call in
// flight is finished and recorded, bounded by its timeout), but no step
// starts after ctx has ended: a replica that lost its Lease must not call
// the driver while the new leader works on the volume.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	var (
		done  operation
		after time.Duration
	)
	for {
		if ctx.Err() != nil {
			return after, nil
		}
		pvc, pv, p, err := c.plan(ctx, key, done == noOperation)
		if err != nil || p == nil {
			return 0, err
		}
		op := p.first()
		if op == noOperation || op == done {
			return soonest(after, p.wait()), nil
		}
		next, err := c.run(context.WithoutCancel(ctx), key, pvc, pv, *p, op)
		if err != nil {
			return 0, err
		}
		after = soonest(after, next)
		if done != noOperation {
			return after, nil
		}
		done = op
	}
}

// run carries out the step of op.
func (c *Controller) run(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, p plan, op operation) (time.Duration, error) {
	if op == resizeOperation {
		return c.resizeStep(ctx, key, pvc, pv, p.resize)
	}
	return c.modifyStep(ctx, key, pvc, pv, p.modify)
}

// plan reads a claim and its PV and makes both decisions about them; nil
// when the claim is gone or not ours. warn asks for the warning about a
// size that cannot be decided on (once per sync).
func (c *Controller) plan(ctx context.Context, key string, warn bool) (*v1.PersistentVolumeClaim, *v1.PersistentVolume, *plan, error) {
	logger := klog.FromContext(ctx)
	pvc, pv, err := c.objects(key)
	if err != nil || pvc == nil {
		return nil, nil, nil, err
	}
	verdict, reason := c.scope().Check(pvc, pv)
	if verdict == ownership.Owned || verdict == ownership.Refused {
		if pv, err = c.whole(ctx, pv); err != nil {
			return nil, nil, nil, err
		}
	}
	switch verdict {
	case ownership.WaitForPV:
		return nil, nil, nil, fmt.Errorf("claim %s: %w", key, errVolumeNotCached)
	case ownership.Owned:
	default:
		c.notOwned(logger, key, pvc, pv, verdict, reason)
		logger.V(5).Info("Ignoring claim", "verdict", verdict, "reason", reason)
		return nil, nil, nil, nil
	}
	p := c.decide(logger, key, pvc, pv, warn)
	return pvc, pv, &p, nil
}

// decide makes both decisions about a claim of ours; warn asks for the
// warning about a size that cannot be decided on.
func (c *Controller) decide(logger klog.Logger, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, warn bool) plan {
	var p plan
	now := c.Clock.Now()
	if c.Resizer != nil {
		state := c.resizeStateOf(key, pvc, pv)
		if err := state.Validate(); err != nil && warn {
			// Nothing can be decided about this size until it changes; its
			// update queues the claim again.
			c.warn(pvc, fmt.Sprintf("cannot resize volume %q: %v; nothing is done until that size changes", pv.Name, err))
		}
		p.resize = decide.DecideResize(state, now, c.RetryMax)
		p.resizeFailed = state.LastFailure != nil || state.ErrorRecorded
		logger.V(4).Info("Decided", "operation", "resize", "action", p.resize.Action, "target", p.resize.Target.String(), "reason", p.resize.Reason)
	}
	id := idOf(key, pvc)
	p.failedLast = failedLast(c.memory.resize.failures.get(id), c.memory.modify.failures.get(id))
	if c.Modifier != nil {
		p.modify = decide.DecideModify(decide.ModifyStateOf(c.Driver, pvc, pv, c.classDriver, c.memory.modify.failures.get(id)), now, c.RetryMax)
		logger.V(4).Info("Decided", "operation", "modify", "action", p.modify.Action, "target", p.modify.Target, "reason", p.modify.Reason)
	}
	return p
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

// resizeStateOf is what the resize decision reads of the claim key.
func (c *Controller) resizeStateOf(key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) decide.ResizeState {
	id := idOf(key, pvc)
	s := decide.ResizeStateOf(pvc, pv, c.Recovery, c.memory.resize.failures.get(id))
	s.Rounded = c.memory.rounded.get(id)
	s.HandedBack = c.memory.handedBack.get(id)
	_, annotated := pv.Annotations[claimstatus.AnnPreResizeCapacity]
	s.PreResizeAnnotated = c.AnnotateFsResize && annotated
	return s
}
