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

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/pkg/secrets"
)

// Results of an attempt, as the duration metrics label them; failed
// attempts are labelled with their class (see decide.ResizeResult).
const (
	ResultFinished    = "finished"
	ResultNodePending = "node_pending"
)

// expansion is a successful ControllerExpandVolume: the capacity the driver
// reported, whether kubelet has a step, and whether that capacity is short
// of the target (a driver that gives what it has, not what was asked).
type expansion struct {
	size     resource.Quantity
	nodeStep bool
	short    bool
}

// resizeStep carries out the plan's resize decision.
func (c *Controller) resizeStep(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, p decide.Plan) (time.Duration, error) {
	d := p.Resize
	what := expanding(pv, d.Target)
	switch d.Action {
	case decide.RecordVolumeSize:
		return 0, c.recordOnce(ctx, key, pvc, claimstatus.VolumeSizeRecorded(pvc, d.Target), event{},
			events.ReasonResizeFailed, fmt.Sprintf("%s: record the volume's size %s in the claim after kubelet finished", what, d.Target.String()))
	case decide.NodeRetry:
		if err := c.recordOnce(ctx, key, pvc, claimstatus.NodeRetry(pvc, d.Target, c.now()), fileSystemResizeRequired,
			events.ReasonResizeFailed, what+": hand the claim back to kubelet"); err != nil {
			return 0, err
		}
		// Remembered with whether it is the second time (decide.HandBack).
		last := c.memory.handedBack.get(idOf(key, pvc))
		c.memory.handedBack.set(idOf(key, pvc), decide.HandBack{Target: d.Target, Again: last != nil && last.Target.Cmp(d.Target) == 0})
		return 0, nil
	case decide.RecordShort:
		capacity := pvc.Status.Capacity[v1.ResourceStorage]
		return 0, c.recordOnce(ctx, key, pvc, claimstatus.ShortAnswer(pvc, capacity, false, answeredShort(what, capacity, d.Target), c.now()), event{},
			events.ReasonResizeFailed, fmt.Sprintf("%s: record again that the driver gave %s", what, capacity.String()))
	case decide.DropPreResizeCapacity:
		if _, err := c.patchVolume(ctx, pv, claimstatus.VolumeWithoutPreResize(pv)); err != nil {
			return 0, c.writeFailed(ctx, pvc, events.ReasonResizeFailed, err,
				fmt.Sprintf("remove the annotation %s of volume %q", claimstatus.AnnPreResizeCapacity, pv.Name), "retried with backoff")
		}
		return 0, nil
	}
	if len(p.HeldBackBy) > 0 {
		err := errors.New(c.inUseMessage(key, d.Target, p.HeldBackBy))
		c.warn(pvc, err.Error())
		return 0, err
	}
	op := driverOperation[resource.Quantity, expansion]{track: &c.memory.resize, rules: decide.ResizeRules,
		failedReason: events.ReasonResizeFailed, result: decide.ResizeResult, observer: Observer.ObserveResize}
	return attemptCall(c, ctx, op, key, pvc, d, p.WritesOnly, &expandCall{c: c, key: key, pvc: pvc, pv: pv, target: d.Target})
}

var fileSystemResizeRequired = event{v1.EventTypeNormal, events.ReasonFileSystemResizeRequired, "Require file system resize of volume on node"}

// expandCall is a claim's ControllerExpandVolume.
type expandCall claimCall[resource.Quantity]

func (x *expandCall) what() string { return expanding(x.pv, x.target) }

// prepare reads the expansion Secret.
func (x *expandCall) prepare(ctx context.Context) (func(context.Context) (expansion, error), error) {
	c := x.c
	var secret map[string]string
	var err error
	if c.Resizer.UsesSecrets() {
		secret, err = c.secretsFor(ctx, x.pvc, x.pv, secrets.RefFor)
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", x.what(), err)
		c.warn(x.pvc, err.Error()+"; "+nextWithoutSecret)
		return nil, err
	}
	return func(ctx context.Context) (expansion, error) {
		size, nodeStep, err := c.Resizer.Expand(ctx, x.pv, x.target, secret)
		var short bool
		if err == nil {
			size, short, err = checkCapacity(size, x.target)
		}
		return expansion{size: size, nodeStep: nodeStep, short: short}, err
	}, nil
}

func (x *expandCall) intent(pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, event) {
	return claimstatus.ResizeIntent(pvc, x.target, x.c.now()),
		event{v1.EventTypeNormal, events.ReasonResizing, "External resizer is resizing volume " + x.pv.Name}
}

// record writes the PV's capacity, then the claim: finished
// (allocatedResources at the driver's capacity, which ResourceQuota
// charges), or handed over to kubelet (see claimstatus.NodePending).
func (x *expandCall) record(ctx context.Context, pvc *v1.PersistentVolumeClaim, r expansion) (string, error) {
	c := x.c
	c.rememberRounding(idOf(x.key, pvc), x.pv, x.target, r)
	if r.short {
		return x.recordShort(ctx, pvc, r)
	}
	var preResize *resource.Quantity
	if r.nodeStep && c.AnnotateFsResize && !preResizeKept(pvc, x.pv) {
		old := pvc.Status.Capacity[v1.ResourceStorage]
		preResize = &old
	}
	volume := claimstatus.VolumeWithCapacity(x.pv, r.size, preResize)
	claim, done, result := claimstatus.ResizeFinished(pvc, r.size, c.now()), event{v1.EventTypeNormal, events.ReasonResizeSuccessful, "Resize volume succeeded"}, ResultFinished
	if r.nodeStep {
		claim, done, result = claimstatus.NodePending(pvc, c.now()), fileSystemResizeRequired, ResultNodePending
	}
	what := fmt.Sprintf("%s: record the new size %s", x.what(), r.size.String())
	return result, c.recordSuccess(ctx, x.key, pvc, claim, x.pv, volume, done, events.ReasonResizeFailed, what,
		"the driver has expanded the volume to "+r.size.String())
}

// preResizeKept tells whether pv's pre-resize-capacity annotation is kept
// through a new expansion: it is written when absent, as upstream writes it,
// and replaced when left over from a finished expansion (the claim has the
// volume's size), which upstream removes before it expands again.
func preResizeKept(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) bool {
	if _, ok := pv.Annotations[claimstatus.AnnPreResizeCapacity]; !ok {
		return false
	}
	capacity, size := pvc.Status.Capacity[v1.ResourceStorage], pv.Spec.Capacity[v1.ResourceStorage]
	return capacity.Cmp(size) < 0
}

// recordShort records a driver that answered success with less than the
// target: the PV and the claim get that size (and kubelet a node step to
// it, when the claim does not have it yet), and a warning names both sizes.
// No retry cures a driver that gives what it has: the target is remembered
// as infeasible, asked for again only on the slow lane unless the request
// changes.
func (x *expandCall) recordShort(ctx context.Context, pvc *v1.PersistentVolumeClaim, r expansion) (string, error) {
	c := x.c
	gave := answeredShort(x.what(), r.size, x.target)
	warning := event{v1.EventTypeWarning, events.ReasonResizeFailed, fmt.Sprintf(
		"%s; %s is recorded, the size the volume has, and %s is asked for again every %s unless the request changes; to stop asking, lower the request to %s",
		gave, r.size.String(), x.target.String(), c.RetryMax, r.size.String())}
	claim := claimstatus.ShortAnswer(pvc, r.size, r.nodeStep, gave, c.now())
	volume := claimstatus.VolumeWithCapacity(x.pv, r.size, nil)
	what := fmt.Sprintf("%s: record the size %s the driver gave", x.what(), r.size.String())
	if err := c.recordSuccess(ctx, x.key, pvc, claim, x.pv, volume, warning, events.ReasonResizeFailed, what,
		"the driver has expanded the volume to "+r.size.String()); err != nil {
		return "", err
	}
	f := decide.ResizeFailure{Class: decide.Infeasible, Reason: decide.ReasonShort, Target: x.target, At: c.Clock.Now()}
	c.memory.resize.failures.set(idOf(x.key, pvc), f)
	return decide.ResizeResult(f), nil
}

// answeredShort is the message of a driver's short answer: gave of target.
func answeredShort(what string, gave, target resource.Quantity) string {
	return fmt.Sprintf("%s: %s %s, below the %s asked for", what, events.AnsweredShort, gave.String(), target.String())
}

// rememberRounding remembers an expansion that the driver answered with
// more than its target when that answer grew the volume: once kubelet has
// finished at the target, that larger size is recorded
// (decide.RecordVolumeSize). A volume that was as large already (grown for
// a target kubelet then refused) is no such answer: any earlier one is
// forgotten.
func (c *Controller) rememberRounding(id claimID, before *v1.PersistentVolume, target resource.Quantity, r expansion) {
	was := before.Spec.Capacity[v1.ResourceStorage]
	if r.nodeStep && r.size.Cmp(target) > 0 && was.Cmp(r.size) < 0 {
		c.memory.rounded.set(id, decide.Rounding{Target: target, Size: r.size})
		return
	}
	c.memory.rounded.forget(id.key)
}

// failed records final failures, so that the user and a restarted
// controller see them; an uncertain one writes nothing, as the same size
// is retried.
func (x *expandCall) failed(pvc *v1.PersistentVolumeClaim, f decide.ResizeFailure, cause error) (*v1.PersistentVolumeClaim, string) {
	warning := x.c.expandFailure(x.key, pvc, x.pv, f, cause)
	if !f.Class.Final() {
		return nil, warning
	}
	return claimstatus.ResizeFailed(pvc, f.Class == decide.Infeasible, f.Reason, x.what()+": "+driverCause(cause), x.c.now()), warning
}

// belowTarget is the error of a driver that reported success with a
// negative capacity.
type belowTarget struct{ size, target resource.Quantity }

func (e belowTarget) Error() string {
	return fmt.Sprintf("driver reported capacity %s, below the requested %s", e.size.String(), e.target.String())
}

// checkCapacity validates the driver's answer: 0 means not reported (the
// target), a negative size is never accepted (nor written), and a positive
// size below the target is what the driver gave (short).
func checkCapacity(size, target resource.Quantity) (resource.Quantity, bool, error) {
	switch {
	case size.IsZero():
		return target, false, nil
	case size.Sign() < 0:
		return size, false, belowTarget{size: size, target: target}
	}
	return size, size.Cmp(target) < 0, nil
}
