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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/statuspatch"
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
	what := expanding(pv, d.Target)
	if pods := c.podsBlocking(idOf(key, pvc), pvc.Namespace, pvc.Name); len(pods) > 0 {
		err := errors.New(c.inUseMessage(key, d.Target, pods))
		c.warn(pvc, err.Error())
		return 0, err
	}
	secrets, err := c.secretsFor(ctx, pvc, pv)
	if err != nil {
		err = fmt.Errorf("%s: %w", what, err)
		c.warn(pvc, err.Error()+"; "+nextWithoutSecret)
		return 0, err
	}
	if d.RecordIntent {
		if pvc, err = c.patchClaim(ctx, key, pvc, statuspatch.Intent(pvc, d.Target, c.now())); err != nil {
			return 0, c.writeFailed(ctx, pvc, ReasonResizeFailed, err, what+": record the intent in the claim", "retried with backoff; the driver is not called before")
		}
		c.Recorder.Event(pvc, v1.EventTypeNormal, ReasonResizing, "External resizer is resizing volume "+pv.Name)
	}
	size, nodeStep, err := c.Resizer.Expand(ctx, pv, d.Target, secrets)
	if err == nil {
		size, err = checkCapacity(size, d.Target)
	}
	if err != nil {
		return c.expandFailed(ctx, key, pvc, pv, d.Target, err, start)
	}
	c.memory.clearFailure(idOf(key, pvc))
	return 0, c.record(ctx, key, pvc, pv, expansion{target: d.Target, size: size, nodeStep: nodeStep}, start)
}

// belowTarget is the error of a driver that reported success with a
// capacity below the size it was asked for.
type belowTarget struct{ size, target resource.Quantity }

func (e belowTarget) Error() string {
	return fmt.Sprintf("driver reported capacity %s, below the requested %s", e.size.String(), e.target.String())
}

// checkCapacity validates the driver's answer: 0 means not reported, and a
// size below the target is never accepted (nor written).
func checkCapacity(size, target resource.Quantity) (resource.Quantity, error) {
	if size.IsZero() {
		return target, nil
	}
	if size.Cmp(target) < 0 {
		return size, belowTarget{size: size, target: target}
	}
	return size, nil
}

// expansion is a successful driver call: the size asked for, the capacity
// the driver reported (at least target), and whether kubelet has a step.
type expansion struct {
	target, size resource.Quantity
	nodeStep     bool
}

// record writes a successful expansion: the PV's capacity, then the claim,
// finished (allocatedResources at the driver's capacity, which
// ResourceQuota charges) or handed over to kubelet (see
// statuspatch.NodePending).
func (c *Controller) record(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, x expansion, start time.Time) error {
	var preResize *resource.Quantity
	if x.nodeStep && c.AnnotateFsResize {
		old := pvc.Status.Capacity[v1.ResourceStorage]
		preResize = &old
	}
	what := expanding(pv, x.target)
	if _, err := c.patchVolume(ctx, pv, statuspatch.Grown(pv, x.size, preResize)); err != nil {
		return c.writeFailed(ctx, pvc, ReasonResizeFailed, err, fmt.Sprintf("%s: record the new size %s in the PV", what, x.size.String()), "retried with backoff")
	}
	updated, reason, message, result := statuspatch.Finished(pvc, x.size, c.now()), ReasonResizeSuccessful, "Resize volume succeeded", ResultFinished
	if x.nodeStep {
		updated, reason, message, result = statuspatch.NodePending(pvc, c.now()), ReasonFileSystemResizeRequired, "Require file system resize of volume on node", ResultNodePending
	}
	pvc, err := c.patchClaim(ctx, key, pvc, updated)
	if err != nil {
		return c.writeFailed(ctx, pvc, ReasonResizeFailed, err, fmt.Sprintf("%s: record the new size %s in the claim", what, x.size.String()), "retried with backoff")
	}
	c.Recorder.Event(pvc, v1.EventTypeNormal, reason, message)
	c.observe(result, start)
	return nil
}

// settle records the volume's size, which the driver allocated beyond the
// size kubelet finished at, as the claim's capacity and allocated size
// (resize.Settle): one write, no driver call.
func (c *Controller) settle(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, size resource.Quantity) error {
	if _, err := c.patchClaim(ctx, key, pvc, statuspatch.Settled(pvc, size)); err != nil {
		what := fmt.Sprintf("%s: record the volume's size %s in the claim after kubelet finished", expanding(pv, size), size.String())
		return c.writeFailed(ctx, pvc, ReasonResizeFailed, err, what, "retried with backoff")
	}
	klog.FromContext(ctx).V(2).Info("Recorded the size the driver allocated", "size", size.String())
	return nil
}

// retryOnNode hands the claim back to kubelet at size, the lowered request,
// after kubelet found the recorded size infeasible (resize.NodeRetry): one
// write, no driver call, as the volume already holds size.
func (c *Controller) retryOnNode(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, size resource.Quantity) error {
	pvc, err := c.patchClaim(ctx, key, pvc, statuspatch.NodeRetry(pvc, size, c.now()))
	if err != nil {
		return c.writeFailed(ctx, pvc, ReasonResizeFailed, err, fmt.Sprintf("%s: hand the claim back to kubelet", expanding(pv, size)), "retried with backoff")
	}
	c.Recorder.Event(pvc, v1.EventTypeNormal, ReasonFileSystemResizeRequired, "Require file system resize of volume on node")
	return nil
}

// expandFailed remembers and records a failed driver call. Uncertain
// failures are retried with backoff at the same size and write nothing;
// final ones are recorded so that the user and a restarted controller see
// them; infeasible sizes wait for the slow lane.
func (c *Controller) expandFailed(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, target resource.Quantity, cause error, start time.Time) (time.Duration, error) {
	err := fmt.Errorf("%s: %w", expanding(pv, target), cause)
	class := resize.ClassOf(err)
	c.memory.setFailure(idOf(key, pvc), resize.Failure{Class: class, Target: target, At: c.Clock.Now()})
	c.observe(class.String(), start)
	c.warn(pvc, c.expandFailure(key, pvc, pv, target, cause, class))
	if class.Final() {
		failed := statuspatch.Failed(pvc, class == resize.Infeasible, expanding(pv, target)+": "+driverCause(cause), c.now())
		if _, werr := c.patchClaim(ctx, key, pvc, failed); werr != nil {
			// Not recorded: forget the failure too, so that after the
			// backoff the attempt is made again and its failure written,
			// rather than the claim showing an attempt in progress for as
			// long as the slow lane waits.
			c.memory.clearFailure(idOf(key, pvc))
			return 0, c.writeFailed(ctx, pvc, ReasonResizeFailed, werr, expanding(pv, target)+": record the failure in the claim", "retried with backoff")
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
