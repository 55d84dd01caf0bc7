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
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/statuspatch"
	"github.com/csi-resizer/csi-resizer/pkg/modify"
	"github.com/csi-resizer/csi-resizer/pkg/resize"
)

// Event reasons of volume modification: the upstream strings, "Canceled"
// spelled as upstream spells it.
const (
	ReasonModify           = "VolumeModify"
	ReasonModifySuccessful = "VolumeModifySuccessful"
	ReasonModifyFailed     = "VolumeModifyFailed"
	ReasonModifyCanceled   = "VolumeModifyCanceled"
)

// modifyStateOf gathers what the modify decision reads.
func (c *Controller) modifyStateOf(key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) modify.State {
	s := modify.State{
		Driver:      c.Driver,
		Spec:        ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""),
		Current:     ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, ""),
		Modifying:   statuspatch.Modifying(pvc),
		LastFailure: c.memory.modifyFailure(idOf(key, pvc)),
		Classes:     map[string]string{},
	}
	if r := pvc.Status.ModifyVolumeStatus; r != nil {
		s.Recorded = &modify.Recorded{Target: r.TargetVolumeAttributesClassName, Status: r.Status}
	}
	if reason, at, ok := statuspatch.RecordedModifyError(pvc); ok {
		s.ErrorCode, s.ErrorAt = reason, at
		if reason == "" {
			s.ErrorCode = modify.ReasonUncertain
		}
	}
	for _, name := range []string{s.Spec, ptr.Deref(pvc.Status.ModifyVolumeStatus, v1.ModifyVolumeStatus{}).TargetVolumeAttributesClassName} {
		if vac, err := c.vacs.Get(name); name != "" && err == nil {
			s.Classes[name] = vac.DriverName
		}
	}
	if pv.Spec.CSI == nil {
		s.NotCSI = fmt.Sprintf("volume %q is an in-tree volume migrated to CSI: Kubernetes allows a VolumeAttributesClass on CSI volumes only", pv.Name)
	}
	return s
}

// modifyStep carries out a modify decision that acts (see plan.next).
func (c *Controller) modifyStep(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, d modify.Decision) (time.Duration, error) {
	switch d.Action {
	case modify.Modify:
		return c.modify(ctx, key, pvc, pv, d)
	case modify.Pend:
		return 0, c.recordOnce(ctx, key, pvc, pv, d.Target, statuspatch.ModifyPending(pvc, d.Target), v1.EventTypeWarning, ReasonModifyFailed, d.Reason)
	case modify.Refuse:
		refused := statuspatch.ModifyFailed(pvc, statuspatch.ModifyFailure{Target: d.Target, Infeasible: true, Reason: "InvalidArgument",
			Message: d.Reason}, c.refusedAt(pvc, d.Target))
		return 0, c.recordOnce(ctx, key, pvc, pv, d.Target, refused, v1.EventTypeWarning, ReasonModifyFailed, d.Reason)
	case modify.Cancel:
		why := fmt.Sprintf("Canceled the modification to class %q: %s", d.Target, d.Reason)
		return 0, c.recordOnce(ctx, key, pvc, pv, d.Target, statuspatch.ModifyCleared(pvc, c.now()), v1.EventTypeNormal, ReasonModifyCanceled, why)
	case modify.Blocked:
		c.Recorder.Event(pvc, v1.EventTypeWarning, ReasonModifyFailed, d.Reason)
	}
	return 0, nil
}

// refusedAt is the time to record a refusal of target with: the time of
// the one already recorded, so that refusing again on every later sync
// writes and announces nothing new; now for a new refusal.
func (c *Controller) refusedAt(pvc *v1.PersistentVolumeClaim, target string) metav1.Time {
	if r := pvc.Status.ModifyVolumeStatus; r != nil && r.TargetVolumeAttributesClassName == target &&
		r.Status == v1.PersistentVolumeClaimModifyVolumeInfeasible {
		if _, at, ok := statuspatch.RecordedModifyError(pvc); ok && !at.IsZero() {
			return metav1.NewTime(at)
		}
	}
	return c.now()
}

// recordOnce writes updated, the claim's state for class target, and,
// when that changed the claim, emits the event: a state that is already
// recorded is not announced again.
func (c *Controller) recordOnce(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, target string, updated *v1.PersistentVolumeClaim, eventType, reason, message string) error {
	out, err := c.patchClaim(ctx, key, pvc, updated)
	if err != nil {
		return c.writeFailed(ctx, pvc, ReasonModifyFailed, err, modifying(pv, target)+": record the claim's state", "retried with backoff")
	}
	if out != pvc {
		c.Recorder.Event(out, eventType, reason, message)
	}
	return nil
}

// modify runs one attempt to d.Target: record the intent, call the driver,
// then the PV's class and the claim's. Each step is at most one write. A
// class the driver applied in an earlier attempt of this process, whose
// writes failed, is not sent again: only the writes are retried, which need
// neither the class nor the Secret (either may be gone by now).
func (c *Controller) modify(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, d modify.Decision) (time.Duration, error) {
	start := c.Clock.Now()
	if c.memory.appliedClass(idOf(key, pvc)) != d.Target {
		applied, after, err := c.applyClass(ctx, key, pvc, pv, d, start)
		if applied == nil {
			return after, err
		}
		pvc = applied
	}
	if err := c.recordModified(ctx, key, pvc, pv, d.Target, start); err != nil {
		return 0, err
	}
	c.memory.clearAppliedClass(idOf(key, pvc))
	return 0, nil
}

// applyClass records the intent to modify to d.Target and calls the driver
// with the class's parameters. It returns the claim as written, or nil and
// what the sync returns when the class was not applied.
func (c *Controller) applyClass(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, d modify.Decision, start time.Time) (*v1.PersistentVolumeClaim, time.Duration, error) {
	vac, err := c.vacs.Get(d.Target)
	if err != nil {
		return nil, 0, fmt.Errorf("read VolumeAttributesClass %q from cache: %w", d.Target, err)
	}
	secrets, err := c.modifySecretsFor(ctx, pvc, pv)
	if err != nil {
		err = fmt.Errorf("%s: %w", modifying(pv, d.Target), err)
		c.Recorder.Event(pvc, v1.EventTypeWarning, ReasonModifyFailed, err.Error()+"; "+nextWithoutSecret)
		return nil, 0, err
	}
	if d.RecordIntent {
		if pvc, err = c.patchClaim(ctx, key, pvc, statuspatch.ModifyIntent(pvc, d.Target, c.now())); err != nil {
			return nil, 0, c.writeFailed(ctx, pvc, ReasonModifyFailed, err, modifying(pv, d.Target)+": record the intent in the claim", "retried with backoff; the driver is not called before")
		}
		c.Recorder.Event(pvc, v1.EventTypeNormal, ReasonModify,
			fmt.Sprintf("external resizer is modifying volume %s with vac %s", pvc.Name, d.Target))
	}
	parameters := modify.Parameters(vac.Parameters, pvc.Namespace, pvc.Name, pv.Name, c.ExtraModifyMetadata)
	if err := c.Modifier.Modify(ctx, pv, parameters, secrets); err != nil {
		after, err := c.modifyFailed(ctx, key, pvc, pv, d.Target, err, start)
		return nil, after, err
	}
	c.memory.clearModifyFailure(idOf(key, pvc))
	c.memory.setAppliedClass(idOf(key, pvc), d.Target)
	return pvc, 0, nil
}

// recordModified writes a successful modification: the PV's class first,
// so that a claim never says more than its volume, then the claim.
func (c *Controller) recordModified(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, target string, start time.Time) error {
	again := fmt.Sprintf("retried with backoff, the writes only: the driver has applied class %q", target)
	if _, err := c.patchVolume(ctx, pv, statuspatch.Classed(pv, target)); err != nil {
		return c.writeFailed(ctx, pvc, ReasonModifyFailed, err, modifying(pv, target)+": record the applied class in the PV", again)
	}
	pvc, err := c.patchClaim(ctx, key, pvc, statuspatch.Modified(pvc, target, c.now()))
	if err != nil {
		return c.writeFailed(ctx, pvc, ReasonModifyFailed, err, modifying(pv, target)+": record the applied class in the claim", again)
	}
	c.Recorder.Event(pvc, v1.EventTypeNormal, ReasonModifySuccessful,
		fmt.Sprintf("external resizer modified volume %s with vac %s successfully", pvc.Name, target))
	c.observeModify(ResultFinished, start)
	return nil
}

// modifyFailed remembers and records a failed driver call. Uncertain
// failures keep the target (the call may still complete) and are retried
// with backoff; infeasible classes wait for the slow lane; other final
// failures are retried with backoff, following the spec.
func (c *Controller) modifyFailed(ctx context.Context, key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, target string, cause error, start time.Time) (time.Duration, error) {
	err := fmt.Errorf("%s: %w", modifying(pv, target), cause)
	class := modify.ClassOf(err)
	c.memory.setModifyFailure(idOf(key, pvc), modify.Failure{Class: class, Target: target, At: c.Clock.Now()})
	c.observeModify(class.String(), start)
	c.Recorder.Event(pvc, v1.EventTypeWarning, ReasonModifyFailed, modifyFailure(pvc, pv, target, cause, class, c.RetryMax.String()))
	failed := statuspatch.ModifyFailed(pvc, statuspatch.ModifyFailure{Target: target, Infeasible: class == resize.Infeasible,
		Uncertain: class == resize.Uncertain, Reason: modify.ReasonOf(err), Message: modifying(pv, target) + ": " + driverCause(cause)}, c.now())
	if _, werr := c.patchClaim(ctx, key, pvc, failed); werr != nil {
		// Not recorded: forget the failure too, so that the attempt is made
		// again after the backoff (see expandFailed).
		c.memory.clearModifyFailure(idOf(key, pvc))
		return 0, c.writeFailed(ctx, pvc, ReasonModifyFailed, werr, modifying(pv, target)+": record the failure in the claim", "retried with backoff")
	}
	if class == resize.Infeasible {
		return c.RetryMax, nil
	}
	return 0, err
}
