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

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// patchClaim writes what changed from old to updated to the claim's status
// subresource (claimstatus.ClaimPatch). It makes no call when nothing
// changed and then returns old.
func patchClaim(ctx context.Context, client kube.Interface, old, updated *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
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

// patchVolume writes what changed from old to updated to the PV
// (claimstatus.VolumePatch), like patchClaim.
func patchVolume(ctx context.Context, client kube.Interface, old, updated *v1.PersistentVolume) (*v1.PersistentVolume, error) {
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
