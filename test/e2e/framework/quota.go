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
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// CreateStorageQuota creates ResourceQuota name in namespace with a hard
// limit of requests.storage, and plays the quota controller of
// kube-controller-manager (which this cluster does not run) once: its
// status gets the hard limit and no usage. From then on the quota
// admission of kube-apiserver keeps status.used up to date as claims are
// written. Create it before the namespace has claims.
func CreateStorageQuota(ctx context.Context, c kubernetes.Interface, namespace, name, hard string) error {
	limits := v1.ResourceList{v1.ResourceRequestsStorage: resource.MustParse(hard)}
	q, err := c.CoreV1().ResourceQuotas(namespace).Create(ctx, &v1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1.ResourceQuotaSpec{Hard: limits},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create quota %s/%s: %w", namespace, name, err)
	}
	q.Status = v1.ResourceQuotaStatus{Hard: limits, Used: v1.ResourceList{v1.ResourceRequestsStorage: resource.MustParse("0")}}
	if _, err := c.CoreV1().ResourceQuotas(namespace).UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("set the status of quota %s/%s: %w", namespace, name, err)
	}
	return nil
}

// StorageUsed is the quota's status.used[requests.storage]. (Compare it
// with Cmp: the admission adds to a usage of 0, so its sums read in bytes.)
func StorageUsed(ctx context.Context, c kubernetes.Interface, namespace, name string) (resource.Quantity, error) {
	q, err := c.CoreV1().ResourceQuotas(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return resource.Quantity{}, err
	}
	return q.Status.Used[v1.ResourceRequestsStorage], nil
}
