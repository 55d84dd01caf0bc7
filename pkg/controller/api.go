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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/secrets"
)

// patchClaim writes what changed from old to updated to the claim's status
// subresource (claimstatus.ClaimPatch), and remembers the result, which is
// newer than the cache until the cache catches up. It makes no call when
// nothing changed, and returns old then and on error.
func (c *Controller) patchClaim(ctx context.Context, key string, old, updated *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	data, err := claimstatus.ClaimPatch(old, updated)
	if data == nil {
		return old, c.writeError(ctx, "persistentvolumeclaims/status", err)
	}
	out, err := c.Client.CoreV1().PersistentVolumeClaims(old.Namespace).Patch(ctx, old.Name, types.MergePatchType, data, metav1.PatchOptions{}, "status")
	if err != nil {
		return old, c.writeError(ctx, "persistentvolumeclaims/status", fmt.Errorf("patch status of claim %s/%s: %w", old.Namespace, old.Name, err))
	}
	c.memory.claims.set(claimID{key: key}, out)
	return out, nil
}

// patchVolume writes what changed from old to updated to the PV
// (claimstatus.VolumePatch) and remembers the result, like patchClaim.
func (c *Controller) patchVolume(ctx context.Context, old, updated *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	data, err := claimstatus.VolumePatch(old, updated)
	if data == nil {
		return old, c.writeError(ctx, "persistentvolumes", err)
	}
	out, err := c.Client.CoreV1().PersistentVolumes().Patch(ctx, old.Name, types.MergePatchType, data, metav1.PatchOptions{})
	if err != nil {
		return old, c.writeError(ctx, "persistentvolumes", fmt.Errorf("patch volume %s: %w", old.Name, err))
	}
	c.memory.volumes.set(claimID{key: out.Name}, out)
	return out, nil
}

// writeError counts a failed patch of resource, and logs it as an error
// when the API server refused it (401, 403): the resizer then cannot do its
// job until its RBAC is fixed, and nothing else would say so loudly. A
// conflict is not a failure: the object changed, and the claim is looked at
// again. It returns err.
func (c *Controller) writeError(ctx context.Context, resource string, err error) error {
	if err == nil || apierrors.IsConflict(err) {
		return err
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
	return err
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

// secretsFor reads the Secret that refFor (secrets.RefFor or
// secrets.ModifyRefFor) names for pv, if any, with the PV's StorageClass
// from the cache (none when it has none or it was deleted).
func (c *Controller) secretsFor(ctx context.Context, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume,
	refFor func(*v1.PersistentVolume, *v1.PersistentVolumeClaim, *storagev1.StorageClass) (*secrets.Ref, error)) (map[string]string, error) {
	name := pv.Spec.StorageClassName
	if name == "" && pvc.Spec.StorageClassName != nil {
		name = *pvc.Spec.StorageClassName
	}
	var class *storagev1.StorageClass
	if name != "" {
		class, _ = c.classes.Get(name)
	}
	ref, err := refFor(pv, pvc, class)
	if err != nil || ref == nil {
		return nil, err
	}
	return secrets.Fetch(ctx, c.Client, *ref)
}
