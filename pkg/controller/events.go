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
	"errors"
	"fmt"

	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/pkg/events"
)

// A failure event says what failed (the volume and the size or class it
// was for), why (the driver's gRPC code and message, or the error), what
// happens next, and what the user can do about it.

// nextWithoutSecret is what happens when the driver's Secret cannot be read.
const nextWithoutSecret = "the driver is not called without it: retried with backoff"

// expanding names an expansion: `expand volume "pv-1" to 10Gi`.
func expanding(pv *v1.PersistentVolume, target resource.Quantity) string {
	return fmt.Sprintf("expand volume %q to %s", pv.Name, target.String())
}

// modifying names a modification: `modify volume "pv-1" to class "gold"`.
func modifying(pv *v1.PersistentVolume, class string) string {
	return fmt.Sprintf("modify volume %q to class %q", pv.Name, class)
}

// driverCause renders why a driver call failed: its gRPC code and message
// as gRPC prints them, without the wrappers that name the volume again; a
// request refused before it reached the driver says so; any other error
// reads as itself.
func driverCause(err error) string {
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) || withStatus.GRPCStatus() == nil {
		return err.Error()
	}
	s := withStatus.GRPCStatus()
	if driver.Refused(err) {
		return fmt.Sprintf("not sent to the driver (%s): %s", s.Code(), s.Message())
	}
	return fmt.Sprintf("rpc error: code = %s desc = %s", s.Code(), s.Message())
}

// expandFailure is the event of an expansion that failed with cause, as f:
// what follows is what the failure vocabulary says (decide.MeaningOf).
func (c *Controller) expandFailure(key string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, f decide.ResizeFailure, cause error) string {
	t := f.Target.String()
	var next string
	var below belowTarget
	m := decide.MeaningOf(decide.ResizeJob, f.Reason)
	switch {
	case errors.As(cause, &below):
		next = fmt.Sprintf("the answer is not recorded, and %s is asked for again until the driver reports at least that", t)
	case m.Next == decide.RetrySame:
		next = fmt.Sprintf("the call may still complete, so %s is retried until it does, whatever the request says meanwhile", t)
	case m.Next == decide.RetrySlow && !m.RetargetHelps:
		next = fmt.Sprintf("%s is retried every %s; the driver does not know the volume, so no size helps: check the PV's volume handle against the driver", t, c.RetryMax)
	case m.Next == decide.RetrySlow:
		next = fmt.Sprintf("%s is retried every %s unless the request changes", t, c.RetryMax) + lowering(decide.ResizeStateFor(c.input(key, pvc, pv)), f.Target)
	case m.Next == decide.RetryWhenUnused && c.Pods != nil:
		next = events.CannotExpandInUse + ": retried once the pods that use the claim are deleted"
	case m.Next == decide.RetryWhenUnused:
		next = events.CannotExpandInUse + ": retried with backoff"
	default:
		next = "retried with backoff, at the request as it is then" + lowering(decide.ResizeStateFor(c.input(key, pvc, pv)), f.Target)
	}
	return fmt.Sprintf("%s: %s; %s", expanding(pv, f.Target), driverCause(cause), next)
}

// lowering says which lower request leads to another attempt after target
// failed, as decide.State.LowerRange works it out for Decide.
func lowering(s decide.ResizeState, target resource.Quantity) string {
	above, below, ok := s.LowerRange(target)
	switch {
	case ok:
		return fmt.Sprintf("; to recover, lower the request to between %s (exclusive, the current capacity) and %s (exclusive)", above.String(), below.String())
	case !s.Recovery:
		return "; a lower request is not followed: the RecoverVolumeExpansionFailure feature gate is off"
	case s.PVSize.Cmp(target) >= 0:
		return fmt.Sprintf("; a lower request does not help: the volume is already %s", s.PVSize.String())
	}
	return ""
}

// inUseMessage is the event of an expansion held back while pods use the
// claim: the driver expands offline only, or said the volume is in use.
func (c *Controller) inUseMessage(key string, target resource.Quantity, pods []string) string {
	why := events.OfflineOnly
	if !c.OnlyOffline {
		why = events.AnsweredInUse
	}
	return fmt.Sprintf("unable to expand %s to %s because CSI driver %s %s and volume is currently in-use by pod(s) %v; "+
		"the expansion starts once the pods that use the claim are deleted (a finished pod counts until it is deleted): delete these pods", key, target.String(), c.Driver, why, pods)
}

// modifyFailure is the event of a modification that failed with cause, as
// f: what follows is what the failure vocabulary says (decide.MeaningOf).
func modifyFailure(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, f decide.ModifyFailure, cause error, retry string) string {
	var next string
	switch decide.MeaningOf(decide.ModifyJob, f.Reason).Next {
	case decide.RetrySame:
		next = fmt.Sprintf("the call may still complete, so class %q is retried until it does, whatever the spec asks meanwhile", f.Target)
	case decide.RetrySlow:
		next = fmt.Sprintf("retried every %s unless the class changes; to cancel, %s", retry, cancelling(pvc))
	default:
		next = "retried with backoff, at the class the spec names then"
	}
	return fmt.Sprintf("%s: %s; %s", modifying(pv, f.Target), driverCause(cause), next)
}

// cancelling says how the user cancels a modification: back to the
// current class, or to no class while none is current (the API server
// refuses to remove a class once one was applied).
func cancelling(pvc *v1.PersistentVolumeClaim) string {
	if current := pvc.Status.CurrentVolumeAttributesClassName; current != nil && *current != "" {
		return fmt.Sprintf("set the class back to %q", *current)
	}
	return "remove the class from the claim"
}

// warn emits the VolumeResizeFailed event.
func (c *Controller) warn(pvc *v1.PersistentVolumeClaim, message string) {
	c.Recorder.Event(pvc, v1.EventTypeWarning, events.ReasonResizeFailed, message)
}

// emit emits e on pvc.
func (c *Controller) emit(pvc *v1.PersistentVolumeClaim, e event) {
	c.Recorder.Event(pvc, e.kind, e.reason, e.message)
}
