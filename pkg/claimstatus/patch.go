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

package claimstatus

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
)

// PatchClaim writes what changed from old to updated to the claim's status
// subresource. The patch carries old's resourceVersion, so a claim that
// changed since the decision was made is a conflict, never overwritten. It
// makes no call when nothing changed and then returns old.
func PatchClaim(ctx context.Context, client kubernetes.Interface, old, updated *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	data, err := patchData(old, updated, old.ResourceVersion)
	if err != nil || data == nil {
		return old, err
	}
	out, err := client.CoreV1().PersistentVolumeClaims(old.Namespace).Patch(ctx, old.Name,
		types.StrategicMergePatchType, data, metav1.PatchOptions{}, "status")
	if err != nil {
		return old, fmt.Errorf("patch status of claim %s/%s: %w", old.Namespace, old.Name, err)
	}
	return out, nil
}

// PatchVolume writes what changed from old to updated to the PV, guarded by
// old's resourceVersion like PatchClaim.
func PatchVolume(ctx context.Context, client kubernetes.Interface, old, updated *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	data, err := patchData(old, updated, old.ResourceVersion)
	if err != nil || data == nil {
		return old, err
	}
	out, err := client.CoreV1().PersistentVolumes().Patch(ctx, old.Name,
		types.StrategicMergePatchType, data, metav1.PatchOptions{})
	if err != nil {
		return old, fmt.Errorf("patch volume %s: %w", old.Name, err)
	}
	return out, nil
}

// patchData returns the strategic merge patch from old to updated with the
// resourceVersion precondition, or nil when they do not differ.
func patchData[T any](old, updated *T, resourceVersion string) ([]byte, error) {
	oldJSON, err := json.Marshal(old)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	newJSON, err := json.Marshal(updated)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	var schema T
	data, err := strategicpatch.CreateTwoWayMergePatch(oldJSON, newJSON, schema)
	if err != nil {
		return nil, fmt.Errorf("compute patch: %w", err)
	}
	var patch map[string]any
	if err := json.Unmarshal(data, &patch); err != nil {
		return nil, fmt.Errorf("decode patch: %w", err)
	}
	if len(patch) == 0 {
		return nil, nil
	}
	meta, _ := patch["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		patch["metadata"] = meta
	}
	meta["resourceVersion"] = resourceVersion
	return json.Marshal(patch)
}
