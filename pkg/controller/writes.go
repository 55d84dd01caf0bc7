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
	"strconv"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/secrets"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// patchClaim writes a claim's new status and remembers the result, which
// is newer than the cache until the cache catches up.
func (c *Controller) patchClaim(ctx context.Context, key string, old, updated *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	out, err := patchClaim(ctx, c.Client, old, updated)
	switch {
	case err != nil:
		c.writeError(ctx, "persistentvolumeclaims/status", err)
	case out != old:
		c.memory.wroteClaim(key, out)
	}
	return out, err
}

// patchVolume writes a PV's new capacity and remembers the result.
func (c *Controller) patchVolume(ctx context.Context, old, updated *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	out, err := patchVolume(ctx, c.Client, old, updated)
	switch {
	case err != nil:
		c.writeError(ctx, "persistentvolumes", err)
	case out != old:
		c.memory.wroteVolume(out)
	}
	return out, err
}

// writeError counts a failed patch of resource, and logs it as an error
// when the API server refused it (401, 403): the resizer then cannot do its
// job until its RBAC is fixed, and nothing else would say so loudly. A
// conflict is not a failure: the object changed, and the claim is looked at
// again.
func (c *Controller) writeError(ctx context.Context, resource string, err error) {
	if apierrors.IsConflict(err) {
		return
	}
	code := "error"
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code = strconv.Itoa(int(status.Status().Code))
	}
	if c.Observer != nil {
		c.Observer.ObserveWriteFailure(resource, code)
	}
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		klog.FromContext(ctx).Error(err, "The API server refused a write: check the resizer's RBAC",
			"verb", "patch", "resource", resource, "user", c.Identity)
	}
}

// writeFailed reports a failed API write, made to do what, with a warning
// event of reason that says what happens next, and returns err wrapped
// with what. A conflict means the object changed under the decision: not a
// failure of the operation, so the claim is requeued without a warning.
func (c *Controller) writeFailed(ctx context.Context, pvc *v1.PersistentVolumeClaim, reason string, err error, what, next string) error {
	if apierrors.IsConflict(err) {
		klog.FromContext(ctx).V(4).Info("Write conflict, will look again", "pvc", klog.KObj(pvc), "err", err)
		return err
	}
	c.Recorder.Event(pvc, v1.EventTypeWarning, reason, fmt.Sprintf("%s: %v; %s", what, err, next))
	return fmt.Errorf("%s: %w", what, err)
}

// warn emits the VolumeResizeFailed event.
func (c *Controller) warn(pvc *v1.PersistentVolumeClaim, message string) {
	c.Recorder.Event(pvc, v1.EventTypeWarning, ReasonResizeFailed, message)
}

// HeldBackByPods reports whether the claim's plan holds an expansion back
// because pods use the claim (decide.Plan.HeldBackBy). The claims-by-state
// metrics count such a claim as waiting_in_use. It reads the caches only,
// and the claim's objects only when pods use it.
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

// secretsFor reads the expansion secret, when the driver takes one.
func (c *Controller) secretsFor(ctx context.Context, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) (map[string]string, error) {
	if !c.Resizer.UsesSecrets() {
		return nil, nil
	}
	ref, err := secrets.RefFor(pv, pvc, c.classOf(pv, pvc))
	return c.fetch(ctx, ref, err)
}

// modifySecretsFor reads the modification secret.
func (c *Controller) modifySecretsFor(ctx context.Context, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) (map[string]string, error) {
	ref, err := secrets.ModifyRefFor(pv, pvc, c.classOf(pv, pvc))
	return c.fetch(ctx, ref, err)
}

// fetch reads the Secret ref names, if any.
func (c *Controller) fetch(ctx context.Context, ref *secrets.Ref, err error) (map[string]string, error) {
	if err != nil || ref == nil {
		return nil, err
	}
	return secrets.Fetch(ctx, c.Client, *ref)
}

// classOf returns the PV's StorageClass from the cache, nil when there is
// none or it was deleted.
func (c *Controller) classOf(pv *v1.PersistentVolume, pvc *v1.PersistentVolumeClaim) *storagev1.StorageClass {
	name := pv.Spec.StorageClassName
	if name == "" && pvc.Spec.StorageClassName != nil {
		name = *pvc.Spec.StorageClassName
	}
	if name == "" {
		return nil
	}
	sc, err := c.classes.Get(name)
	if err != nil {
		return nil
	}
	return sc
}
