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

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
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
		if p.Again {
			after = decide.Soonest(after, c.RetryStart)
		}
		if p.Next == decide.NoJob {
			return decide.Soonest(after, p.Wait), nil
		}
		step := c.resizeStep
		if p.Next == decide.ModifyJob {
			step = c.modifyStep
		}
		next, err := step(context.WithoutCancel(ctx), key, pvc, pv, *p)
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
	pvc := fresh(&c.memory.claims, key, cached.PVC())
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
	return pvc, fresh(&c.memory.volumes, volume.Name, volume.PV()), nil
}

// plan reads a claim and its PV and makes its plan; nil when the claim is
// gone or not ours. done is the job that took its step in this sync
// already; the warning about a size that cannot be decided on is given on
// the first plan of a sync only.
func (c *Controller) plan(ctx context.Context, key string, done decide.Job) (*v1.PersistentVolumeClaim, *v1.PersistentVolume, *decide.Plan, error) {
	logger := klog.FromContext(ctx)
	pvc, pv, err := c.objects(key)
	if err != nil || pvc == nil {
		return nil, nil, nil, err
	}
	// What this controller handles: its driver's volumes, and with
	// --node-deployment only those pinned to its node.
	verdict, reason := ownership.Scope{Driver: c.Driver, Node: c.Node}.Check(pvc, pv)
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
	in := c.input(key, pvc, pv)
	in.Done = done
	p := decide.Claim(in)
	if p.Invalid != nil && done == decide.NoJob {
		// The size's update queues the claim again.
		c.warn(pvc, fmt.Sprintf("cannot resize volume %q: %v; nothing is done until that size changes", pv.Name, p.Invalid))
	}
	logger.V(4).Info("Decided", c.decided(p)...)
	return pvc, pv, &p, nil
}

// input is what the plan of the claim key is made from.
func (c *Controller) input(key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) decide.Input {
	id := idOf(key, pvc)
	in := decide.Input{Claim: pvc, Volume: pv, ClassDriver: c.classDriver, Now: c.Clock.Now(),
		Settings: decide.Settings{Driver: c.Driver, Resize: c.Resizer != nil, Modify: c.Modifier != nil, Recovery: c.Recovery,
			AnnotateFsResize: c.AnnotateFsResize, OnlyOffline: c.OnlyOffline, RetryMax: c.RetryMax},
		Memory: decide.Memory{ResizeFailure: c.memory.resize.failures.get(id), ModifyFailure: c.memory.modify.failures.get(id),
			Rounded: c.memory.rounded.get(id), HandedBack: c.memory.handedBack.get(id)}}
	if a := c.memory.resize.applied.get(id); a != nil {
		in.Memory.ResizeApplied = &a.target
	}
	if a := c.memory.modify.applied.get(id); a != nil {
		in.Memory.ModifyApplied = &a.target
	}
	if c.Pods != nil {
		in.PodsUsing = c.Pods.UsedBy(pvc.Namespace, pvc.Name)
	}
	return in
}

// HeldBackByPods reports whether the claim's plan holds an expansion back
// because pods use the claim (decide.Plan.HeldBackBy): the claims-by-state
// metrics' waiting_in_use. It reads the claim's objects only when pods use it.
func (c *Controller) HeldBackByPods(claim *slim.Claim) bool {
	if c.Resizer == nil || c.Pods == nil || len(c.Pods.UsedBy(claim.Namespace, claim.Name)) == 0 {
		return false
	}
	key := claim.Namespace + "/" + claim.Name
	pvc, pv, err := c.objects(key)
	if err != nil || pvc == nil || pv == nil {
		return false
	}
	return len(decide.Claim(c.input(key, pvc, pv)).HeldBackBy) > 0
}

// decided is the plan as the "Decided" log line gives it: the next job, its
// owner and why, and the decision of each job the resizer does.
func (c *Controller) decided(p decide.Plan) []any {
	kv := []any{"next", p.Next, "owner", p.Owner, "why", p.Why}
	if c.Resizer != nil {
		kv = append(kv, "resize", p.Resize.Action, "resizeTarget", p.Resize.Target.String(), "resizeReason", p.Resize.Reason)
	}
	if c.Modifier != nil {
		kv = append(kv, "modify", p.Modify.Action, "modifyTarget", p.Modify.Target, "modifyReason", p.Modify.Reason)
	}
	return kv
}
