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

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// errVolumeNotCached asks for a retry: the PV informer may lag the claim's.
var errVolumeNotCached = errors.New("PV not in the informer cache yet")

// sync looks at one claim and does what its plan says (decide.Claim): at
// most one step of each job, the one the plan puts first, then the other if
// it still has work. It returns an error to retry with backoff, or a delay
// to look again later.
//
// A step once started runs to its end even when ctx ends (a driver call in
// flight is finished and recorded, bounded by its timeout), but no step
// starts after ctx has ended: a replica that lost its Lease must not call
// the driver while the new leader works on the volume.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	var (
		done  decide.Job
		after time.Duration
	)
	for {
		if ctx.Err() != nil {
			return after, nil
		}
		pvc, pv, p, err := c.plan(ctx, key, done)
		if err != nil || p == nil {
			return 0, err
		}
		if p.Next == decide.NoJob {
			return decide.Soonest(after, p.Wait), nil
		}
		next, err := c.run(context.WithoutCancel(ctx), key, pvc, pv, *p)
		if err != nil {
			return 0, err
		}
		after = decide.Soonest(after, next)
		if done != decide.NoJob {
			return after, nil
		}
		done = p.Next
	}
}

// run carries out the step of the plan's next job.
func (c *Controller) run(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, p decide.Plan) (time.Duration, error) {
	if p.Next == decide.ResizeJob {
		return c.resizeStep(ctx, key, pvc, pv, p)
	}
	return c.modifyStep(ctx, key, pvc, pv, p)
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
