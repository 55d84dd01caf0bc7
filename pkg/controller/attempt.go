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
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/resize"
)

// Event reasons and messages: the upstream strings, which tools parse.
const (
	ReasonResizing                 = "Resizing"
	ReasonResizeFailed             = "VolumeResizeFailed"
	ReasonFileSystemResizeRequired = "FileSystemResizeRequired"
	ReasonResizeSuccessful         = "VolumeResizeSuccessful"
)

// Results of an attempt, as the resize duration metric labels them; failed
// attempts are labelled with their resize.Class.
const (
	ResultFinished    = "finished"
	ResultNodePending = "node_pending"
)

// expand runs one attempt to d.Target: record the intent, call the driver,
// record the result. Each step is at most one write.
func (c *Controller) expand(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, d resize.Decision) (time.Duration, error) {
	start := c.Clock.Now()
	if pods := c.podsBlocking(key, pvc); len(pods) > 0 {
		err := fmt.Errorf("unable to expand %s because CSI driver %s only supports offline expansion and volume is currently in-use by pod(s) %v", key, c.Driver, pods)
		c.warn(pvc, err)
		return 0, err
	}
	secrets, err := c.secretsFor(ctx, pvc, pv)
	if err != nil {
		err = fmt.Errorf("expand volume %q: %w", pv.Name, err)
		c.warn(pvc, err)
		return 0, err
	}
	if d.RecordIntent {
		if pvc, err = c.patchClaim(ctx, key, pvc, claimstatus.Intent(pvc, d.Target, c.now())); err != nil {
			return 0, c.writeFailed(ctx, pvc, ReasonResizeFailed, err)
		}
		c.Recorder.Event(pvc, v1.EventTypeNormal, ReasonResizing, "External resizer is resizing volume "+pv.Name)
	}
	size, nodeStep, err := c.Resizer.Expand(ctx, pv, d.Target, secrets)
	if err == nil {
		size, err = checkCapacity(size, d.Target)
	}
	if err != nil {
		return c.expandFailed(ctx, key, pvc, d.Target, fmt.Errorf("expand volume %q to %s: %w", pv.Name, d.Target.String(), err), start)
	}
	c.memory.clearFailure(key)
	return 0, c.record(ctx, key, pvc, pv, size, nodeStep, start)
}

// checkCapacity validates the driver's answer: 0 means not reported, and a
// size below the target is never accepted (nor written).
func checkCapacity(size, target resource.Quantity) (resource.Quantity, error) {
	if size.IsZero() {
		return target, nil
	}
	if size.Cmp(target) < 0 {
		return size, fmt.Errorf("driver reported capacity %s, below the requested %s", size.String(), target.String())
	}
	return size, nil
}

// record writes a successful expansion: the PV's capacity, then the claim,
// finished or handed over to kubelet.
func (c *Controller) record(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, size resource.Quantity, nodeStep bool, start time.Time) error {
	var preResize *resource.Quantity
	if nodeStep && c.AnnotateFsResize {
		old := pvc.Status.Capacity[v1.ResourceStorage]
		preResize = &old
	}
	if _, err := c.patchVolume(ctx, pv, claimstatus.Grown(pv, size, preResize)); err != nil {
		return c.writeFailed(ctx, pvc, ReasonResizeFailed, err)
	}
	var err error
	if nodeStep {
		if pvc, err = c.patchClaim(ctx, key, pvc, claimstatus.NodePending(pvc, c.now())); err != nil {
			return c.writeFailed(ctx, pvc, ReasonResizeFailed, err)
		}
		c.Recorder.Event(pvc, v1.EventTypeNormal, ReasonFileSystemResizeRequired, "Require file system resize of volume on node")
		c.observe(ResultNodePending, start)
		return nil
	}
	if pvc, err = c.patchClaim(ctx, key, pvc, claimstatus.Finished(pvc, size, c.now())); err != nil {
		return c.writeFailed(ctx, pvc, ReasonResizeFailed, err)
	}
	c.Recorder.Event(pvc, v1.EventTypeNormal, ReasonResizeSuccessful, "Resize volume succeeded")
	c.observe(ResultFinished, start)
	return nil
}

// expandFailed remembers and records a failed driver call. Uncertain
// failures are retried with backoff at the same size and write nothing;
// final ones are recorded so that the user and a restarted controller see
// them; infeasible sizes wait for the slow lane.
func (c *Controller) expandFailed(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, target resource.Quantity, err error, start time.Time) (time.Duration, error) {
	class := resize.ClassOf(err)
	c.memory.setFailure(key, resize.Failure{Class: class, Target: target, At: c.Clock.Now()})
	c.observe(class.String(), start)
	c.warn(pvc, err)
	if class.Final() {
		failed := claimstatus.Failed(pvc, class == resize.Infeasible, err.Error(), c.now())
		if _, werr := c.patchClaim(ctx, key, pvc, failed); werr != nil {
			_ = c.writeFailed(ctx, pvc, ReasonResizeFailed, werr)
		}
	}
	if class == resize.Infeasible {
		return c.RetryMax, nil
	}
	return 0, err
}

func (c *Controller) now() metav1.Time {
	return metav1.NewTime(c.Clock.Now())
}

func (c *Controller) observe(result string, start time.Time) {
	if c.Observer != nil {
		c.Observer.ObserveResize(result, c.Clock.Since(start))
	}
}

func (c *Controller) observeModify(result string, start time.Time) {
	if c.Observer != nil {
		c.Observer.ObserveModify(result, c.Clock.Since(start))
	}
}
