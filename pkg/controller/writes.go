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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// patchClaim writes a claim's new status and remembers the result, which
// is newer than the cache until the cache catches up.
func (c *Controller) patchClaim(ctx context.Context, key string, old, updated *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	out, err := sendClaimPatch(ctx, c.Client, old, updated)
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
	out, err := sendVolumePatch(ctx, c.Client, old, updated)
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

// sendClaimPatch writes what changed from old to updated to the claim's status
// subresource (claimstatus.ClaimPatch). It makes no call when nothing
// changed and then returns old.
func sendClaimPatch(ctx context.Context, client kube.Interface, old, updated *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	data, err := claimstatus.ClaimPatch(old, updated)
	if err != nil || data == nil {
		return old, err
	}
	out, err := client.CoreV1().PersistentVolumeClaims(old.Namespace).Patch(ctx, old.Name, types.MergePatchType, data, metav1.PatchOptions{}, "status")
	if err != nil {
		return old, fmt.Errorf("patch status of claim %s/%s: %w", old.Namespace, old.Name, err)
	}
	return out, nil
}

// sendVolumePatch writes what changed from old to updated to the PV
// (claimstatus.VolumePatch), like sendClaimPatch.
func sendVolumePatch(ctx context.Context, client kube.Interface, old, updated *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	data, err := claimstatus.VolumePatch(old, updated)
	if err != nil || data == nil {
		return old, err
	}
	out, err := client.CoreV1().PersistentVolumes().Patch(ctx, old.Name, types.MergePatchType, data, metav1.PatchOptions{})
	if err != nil {
		return old, fmt.Errorf("patch volume %s: %w", old.Name, err)
	}
	return out, nil
}
