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

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/csi-resizer/csi-resizer/pkg/secrets"
)

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
