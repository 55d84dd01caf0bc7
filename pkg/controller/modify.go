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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/pkg/secrets"
)

// classDriver looks a VolumeAttributesClass's driver up in the cache.
func (c *Controller) classDriver(name string) (string, bool) {
	vac, err := c.vacs.Get(name)
	if err != nil {
		return "", false
	}
	return vac.DriverName, true
}

// modifyStep carries out the plan's modify decision.
func (c *Controller) modifyStep(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, p decide.Plan) (time.Duration, error) {
	d := p.Modify
	what := modifying(pv, d.Target) + ": record the claim's state"
	switch d.Action {
	case decide.ModifyCall:
		// The driver call returns nothing: the class it applied is the target.
		op := driverOperation[string, struct{}]{track: &c.memory.modify, rules: decide.ModifyRules, failedReason: events.ReasonModifyFailed,
			result: func(f decide.ModifyFailure) string { return f.Class.String() }, observer: Observer.ObserveModify}
		return attemptCall(c, ctx, op, key, pvc, d, p.WritesOnly, &modifyCall{c: c, key: key, pvc: pvc, pv: pv, target: d.Target})
	case decide.Pend:
		return 0, c.recordOnce(ctx, key, pvc, claimstatus.ModifyPending(pvc, d.Target), event{v1.EventTypeWarning, events.ReasonModifyFailed, d.Reason}, events.ReasonModifyFailed, what)
	case decide.Refuse:
		refused := claimstatus.ModifyFailed(pvc, claimstatus.ModifyFailure{Target: d.Target, Infeasible: true, Reason: "InvalidArgument",
			Message: d.Reason}, c.refusedAt(pvc, d.Target))
		return 0, c.recordOnce(ctx, key, pvc, refused, event{v1.EventTypeWarning, events.ReasonModifyFailed, d.Reason}, events.ReasonModifyFailed, what)
	case decide.Cancel:
		why := fmt.Sprintf("Canceled the modification to class %q: %s", d.Target, d.Reason)
		return 0, c.recordOnce(ctx, key, pvc, claimstatus.ModifyCleared(pvc, c.now()), event{v1.EventTypeNormal, events.ReasonModifyCanceled, why}, events.ReasonModifyFailed, what)
	case decide.Blocked:
		c.emit(pvc, event{v1.EventTypeWarning, events.ReasonModifyFailed, d.Reason})
	}
	return 0, nil
}

// refusedAt is the time to record a refusal of target with: the time of
// the one already recorded, so that refusing again on every later sync
// writes and announces nothing new; now for a new refusal.
func (c *Controller) refusedAt(pvc *v1.PersistentVolumeClaim, target string) metav1.Time {
	if r := pvc.Status.ModifyVolumeStatus; r != nil && r.TargetVolumeAttributesClassName == target &&
		r.Status == v1.PersistentVolumeClaimModifyVolumeInfeasible {
		if _, at, ok := claimstatus.RecordedModifyError(pvc); ok && !at.IsZero() {
			return metav1.NewTime(at)
		}
	}
	return c.now()
}

// modifyCall is a claim's ControllerModifyVolume.
type modifyCall claimCall[string]

func (x *modifyCall) what() string { return modifying(x.pv, x.target) }

// prepare reads the class's parameters and the modification Secret.
func (x *modifyCall) prepare(ctx context.Context) (func(context.Context) (struct{}, error), error) {
	c := x.c
	vac, err := c.vacs.Get(x.target)
	if err != nil {
		return nil, fmt.Errorf("read VolumeAttributesClass %q from cache: %w", x.target, err)
	}
	secret, err := c.secretsFor(ctx, x.pvc, x.pv, secrets.ModifyRefFor)
	if err != nil {
		err = fmt.Errorf("%s: %w", x.what(), err)
		c.emit(x.pvc, event{v1.EventTypeWarning, events.ReasonModifyFailed, err.Error() + "; " + nextWithoutSecret})
		return nil, err
	}
	parameters := decide.Parameters(vac.Parameters, x.pvc.Namespace, x.pvc.Name, x.pv.Name, c.ExtraModifyMetadata)
	return func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.Modifier.Modify(ctx, x.pv, parameters, secret)
	}, nil
}

func (x *modifyCall) intent(pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, event) {
	return claimstatus.ModifyIntent(pvc, x.target, x.c.now()),
		event{v1.EventTypeNormal, events.ReasonModify, fmt.Sprintf("external resizer is modifying volume %s with vac %s", pvc.Name, x.target)}
}

// record writes the PV's class, then the claim's.
func (x *modifyCall) record(ctx context.Context, pvc *v1.PersistentVolumeClaim, _ struct{}) (string, error) {
	done := event{v1.EventTypeNormal, events.ReasonModifySuccessful,
		fmt.Sprintf("external resizer modified volume %s with vac %s successfully", pvc.Name, x.target)}
	return ResultFinished, x.c.recordSuccess(ctx, x.key, pvc, claimstatus.Modified(pvc, x.target, x.c.now()),
		x.pv, claimstatus.VolumeWithClass(x.pv, x.target), done, events.ReasonModifyFailed, x.what()+": record the applied class",
		fmt.Sprintf("the driver has applied class %q", x.target))
}

// failed records every failure: an uncertain one keeps the target (the
// call may still complete), the others say what the user can do.
func (x *modifyCall) failed(pvc *v1.PersistentVolumeClaim, f decide.ModifyFailure, cause error) (*v1.PersistentVolumeClaim, string) {
	recorded := claimstatus.ModifyFailed(pvc, claimstatus.ModifyFailure{Target: x.target, Infeasible: f.Class == decide.Infeasible,
		Uncertain: f.Class == decide.Uncertain, Reason: f.Reason, Message: x.what() + ": " + driverCause(cause)}, x.c.now())
	return recorded, modifyFailure(pvc, x.pv, f, cause, x.c.RetryMax.String())
}
