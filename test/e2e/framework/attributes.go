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

package framework

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// CreateAttributesClass creates a VolumeAttributesClass of driver.
func CreateAttributesClass(ctx context.Context, c kubernetes.Interface, name, driver string, params map[string]string) error {
	_, err := c.StorageV1().VolumeAttributesClasses().Create(ctx, testobj.AttributesClass(name, driver, params), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create VolumeAttributesClass %s: %w", name, err)
	}
	return nil
}

// SetAttributesClass sets the claim's spec.volumeAttributesClassName, as a
// user does; "" removes it.
func SetAttributesClass(ctx context.Context, c kubernetes.Interface, namespace, claim, class string) error {
	return patchClaimSpec(ctx, c, namespace, claim, map[string]any{"volumeAttributesClassName": nullable(class)})
}

// GrowAndSetAttributesClass raises the request and sets the class in one
// update, as a user who edits both fields at once.
func GrowAndSetAttributesClass(ctx context.Context, c kubernetes.Interface, namespace, claim, size, class string) error {
	return patchClaimSpec(ctx, c, namespace, claim, map[string]any{
		"volumeAttributesClassName": nullable(class),
		"resources":                 map[string]any{"requests": map[string]string{"storage": size}},
	})
}

func patchClaimSpec(ctx context.Context, c kubernetes.Interface, namespace, claim string, spec map[string]any) error {
	patch, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		return err
	}
	if _, err := c.CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, claim, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patch claim %s/%s with %s: %w", namespace, claim, patch, err)
	}
	return nil
}

// nullable is nil (JSON null, which removes the field) for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CurrentAttributesClass is the claim's status.currentVolumeAttributesClassName.
func CurrentAttributesClass(pvc *v1.PersistentVolumeClaim) string {
	return ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, "")
}

// ModifyStatus is the claim's status.modifyVolumeStatus; "" when none.
func ModifyStatus(pvc *v1.PersistentVolumeClaim) (target string, status v1.PersistentVolumeClaimModifyVolumeStatus) {
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		return m.TargetVolumeAttributesClassName, m.Status
	}
	return "", ""
}
