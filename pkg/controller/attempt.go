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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
)

// driverOperation is what the attempt needs to know of expansion or of
// modification, the same for every claim: its memory, how its driver's
// errors are classed, and how its outcomes are named.
type driverOperation[T, R any] struct {
	track *track[T, R]
	rules decide.Rules
	// failedReason is the reason of the operation's warning events.
	failedReason string
	// result names a failure for the duration metric.
	result func(decide.Failure[T]) string
	// observer is the Observer's method that records an attempt.
	observer func(o Observer, result string, d time.Duration)
}

// observe records an attempt's result and its duration since start.
func (op driverOperation[T, R]) observe(c *Controller, result string, start time.Time) {
	if c.Observer != nil {
		op.observer(c.Observer, result, c.Clock.Since(start))
	}
}

// call is one claim's driver call of an operation: the parts the two
// operations do differently. attempt runs them in the same order for both.
type call[T, R any] interface {
	// what names the call in events and errors: `expand volume "pv-1" to 2Gi`.
	what() string
	// prepare reads what the call needs (a Secret, a class) and checks that
	// it may be made now, and returns it. An error ends the attempt before
	// anything is recorded; prepare has emitted its warning.
	prepare(ctx context.Context) (func(context.Context) (R, error), error)
	// intent is the claim recording that the target is in progress, and the
	// event that announces it.
	intent(pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, event)
	// record writes the driver's success, and returns the result for the
	// duration metric.
	record(ctx context.Context, pvc *v1.PersistentVolumeClaim, r R) (string, error)
	// failed is the claim recording f, nil when nothing is recorded, and
	// the warning that explains f.
	failed(pvc *v1.PersistentVolumeClaim, f decide.Failure[T], cause error) (*v1.PersistentVolumeClaim, string)
}

// claimCall is what a call knows of its claim: the claim's key and objects,
// and the call's target.
type claimCall[T any] struct {
	c      *Controller
	key    string
	pvc    *v1.PersistentVolumeClaim
	pv     *v1.PersistentVolume
	target T
}

// event is an event to emit on a claim.
type event struct {
	kind, reason, message string
}

// attemptCall runs one attempt of op to d's target, the same way for both
// operations: read what the call needs, record the intent when d asks, call
// the driver, remember the outcome, record it. Each step is at most one
// write. A failure is handled by failedCall. A driver success whose writes
// failed is remembered, and the plan then says writesOnly: the writes are
// retried, the driver is not called again, and what the call needed (a
// class, a Secret) is not read again, as it may be gone.
func attemptCall[A fmt.Stringer, T, R any](c *Controller, ctx context.Context, op driverOperation[T, R], key string, pvc *v1.PersistentVolumeClaim, d decide.Decision[A, T], writesOnly bool, x call[T, R]) (time.Duration, error) {
	start := c.Clock.Now()
	id := idOf(key, pvc)
	done := op.track.applied.get(id)
	if !writesOnly || done == nil {
		driverCall, err := x.prepare(ctx)
		if err != nil {
			return 0, err
		}
		if d.RecordIntent {
			updated, announce := x.intent(pvc)
			if pvc, err = c.patchClaim(ctx, key, pvc, updated); err != nil {
				return 0, c.writeFailed(ctx, pvc, op.failedReason, err, x.what()+": record the intent in the claim", "retried with backoff; the driver is not called before")
			}
			c.emit(pvc, announce)
		}
		result, err := driverCall(ctx)
		if err != nil {
			return failedCall(c, ctx, op, key, pvc, d.Target, x, err, start)
		}
		done = &applied[T, R]{target: d.Target, result: result}
		op.track.failures.forget(key)
		op.track.applied.set(id, *done)
	}
	result, err := x.record(ctx, pvc, done.result)
	if err != nil {
		return 0, err
	}
	op.track.applied.forget(key)
	op.observe(c, result, start)
	return 0, nil
}

// failedCall remembers a failed driver call, announces it and records it
// when the operation does. An infeasible target waits for the slow lane,
// the others are retried with backoff. A failure whose recording failed is
// forgotten, so that after the backoff the attempt is made again and its
// failure written, rather than the claim showing an attempt in progress
// for as long as the slow lane waits; but not after a conflict, which is
// looked at again at once, often before the cache has the write that
// caused it (a user's new request): forgotten, the infeasible target would
// be asked for again at once.
func failedCall[T, R any](c *Controller, ctx context.Context, op driverOperation[T, R], key string, pvc *v1.PersistentVolumeClaim, target T, x call[T, R], cause error, start time.Time) (time.Duration, error) {
	f := decide.Failed(op.rules, cause, target, c.Clock.Now())
	op.track.failures.set(idOf(key, pvc), f)
	op.observe(c, op.result(f), start)
	updated, warning := x.failed(pvc, f, cause)
	c.Recorder.AnnotatedEventf(pvc, map[string]string{events.AnnotationCode: f.Reason}, v1.EventTypeWarning, op.failedReason, "%s", warning)
	if updated != nil {
		if _, err := c.patchClaim(ctx, key, pvc, updated); err != nil {
			if !apierrors.IsConflict(err) {
				op.track.failures.forget(key)
			}
			return 0, c.writeFailed(ctx, pvc, op.failedReason, err, x.what()+": record the failure in the claim", "retried with backoff")
		}
	}
	if after := f.RetryAfter(c.RetryMax); after > 0 {
		return after, nil
	}
	return 0, fmt.Errorf("%s: %w", x.what(), cause)
}

// recordOnce writes updated, a claim's new state after a step that calls no
// driver, and emits e when that changed the claim: a state that is already
// recorded is not announced again. what names the step in the warning of a
// failed write, of reason failedReason.
func (c *Controller) recordOnce(ctx context.Context, key string, pvc, updated *v1.PersistentVolumeClaim, e event, failedReason, what string) error {
	out, err := c.patchClaim(ctx, key, pvc, updated)
	if err != nil {
		return c.writeFailed(ctx, pvc, failedReason, err, what, "retried with backoff")
	}
	if out != pvc && e.reason != "" {
		c.emit(out, e)
	}
	return nil
}

// recordSuccess writes a driver's success: the PV first, so that a claim
// never says more than its volume, then the claim, then emits e. A failed
// write is retried with backoff, the writes only (see attemptCall); done
// says what the driver did.
func (c *Controller) recordSuccess(ctx context.Context, key string, pvc, claim *v1.PersistentVolumeClaim, pv, volume *v1.PersistentVolume, e event, failedReason, what, done string) error {
	again := "retried with backoff, the writes only: " + done
	if _, err := c.patchVolume(ctx, pv, volume); err != nil {
		return c.writeFailed(ctx, pvc, failedReason, err, what+" in the PV", again)
	}
	pvc, err := c.patchClaim(ctx, key, pvc, claim)
	if err != nil {
		return c.writeFailed(ctx, pvc, failedReason, err, what+" in the claim", again)
	}
	c.emit(pvc, e)
	return nil
}

func (c *Controller) now() metav1.Time {
	return metav1.NewTime(c.Clock.Now())
}
