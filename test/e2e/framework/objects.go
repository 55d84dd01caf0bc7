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
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// Volume describes a bound claim and PV to create.
type Volume struct {
	Namespace, Claim string
	Class            string
	Driver           string
	Handle           string
	Size             string
	// SecretRef, when set, becomes the PV's controllerExpandSecretRef.
	SecretRef *v1.SecretReference
	// Annotations of the claim.
	Annotations map[string]string
	// AttributesClass is the VolumeAttributesClass the volume was
	// provisioned with: in the claim's spec and status and the PV's spec.
	AttributesClass string
	// AccessModes of the claim and the PV; ReadWriteOnce when empty.
	AccessModes []v1.PersistentVolumeAccessMode
	// NodeAffinity is the PV's spec.nodeAffinity.
	NodeAffinity *v1.VolumeNodeAffinity
}

// PVName is the name of the claim's PV.
func (v Volume) PVName() string { return testobj.PVName(v.Namespace, v.Claim) }

// CreateClass creates an expandable StorageClass of driver.
func CreateClass(ctx context.Context, c kubernetes.Interface, name, driver string, params map[string]string) error {
	_, err := c.StorageV1().StorageClasses().Create(ctx, testobj.StorageClass(name, driver, params), metav1.CreateOptions{})
	return err
}

// CreateNamespace creates a namespace and its default ServiceAccount (no
// controller-manager creates it here, and pods need it).
func CreateNamespace(ctx context.Context, c kubernetes.Interface, name string) error {
	if _, err := c.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	_, err := c.CoreV1().ServiceAccounts(name).Create(ctx, &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	return err
}

// CreateBound creates the claim and its PV, bound to each other, as the
// PV controller and a provisioner would leave them.
func CreateBound(ctx context.Context, c kubernetes.Interface, v Volume) (*v1.PersistentVolumeClaim, error) {
	opts := []testobj.ClaimOpt{testobj.InStorageClass(v.Class), testobj.AttributesClasses(v.AttributesClass, v.AttributesClass)}
	if len(v.AccessModes) > 0 {
		opts = append(opts, testobj.AccessModes(v.AccessModes...))
	}
	for k, val := range v.Annotations {
		opts = append(opts, testobj.Annotated(k, val))
	}
	want := testobj.Claim(v.Namespace, v.Claim, v.Size, v.Size, opts...)
	want.UID = "" // the API server's
	pvc, err := c.CoreV1().PersistentVolumeClaims(v.Namespace).Create(ctx, want, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create claim %s/%s: %w", v.Namespace, v.Claim, err)
	}
	pv := testobj.Volume(pvc, v.Driver, v.Size, testobj.Handle(v.Handle), testobj.ExpandSecret(v.SecretRef), testobj.NodeAffinity(v.NodeAffinity))
	status := pv.Status
	if pv, err = c.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create PV %s: %w", v.PVName(), err)
	}
	pv.Status = status
	if _, err = c.CoreV1().PersistentVolumes().UpdateStatus(ctx, pv, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("bind PV %s: %w", v.PVName(), err)
	}
	pvc.Status = want.Status
	if pvc, err = c.CoreV1().PersistentVolumeClaims(v.Namespace).UpdateStatus(ctx, pvc, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("bind claim %s/%s: %w", v.Namespace, v.Claim, err)
	}
	return pvc, nil
}

// Grow raises the claim's request, as a user does.
func Grow(ctx context.Context, c kubernetes.Interface, namespace, claim, size string) error {
	patch := fmt.Sprintf(`{"spec":{"resources":{"requests":{"storage":%q}}}}`, size)
	_, err := c.CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, claim, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("grow claim %s/%s to %s: %w", namespace, claim, size, err)
	}
	return nil
}

// WaitForClaim waits until cond holds for the claim, and returns it.
func WaitForClaim(ctx context.Context, c kubernetes.Interface, namespace, claim string, timeout time.Duration, cond func(*v1.PersistentVolumeClaim) bool) (*v1.PersistentVolumeClaim, error) {
	var last *v1.PersistentVolumeClaim
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		pvc, err := c.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, claim, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = pvc
		return cond(pvc), nil
	})
	if err != nil {
		return last, fmt.Errorf("claim %s/%s: %w; last status: %s", namespace, claim, err, Describe(last))
	}
	return last, nil
}

// Describe is a one-line summary of a claim's resize state.
func Describe(pvc *v1.PersistentVolumeClaim) string {
	if pvc == nil {
		return "<none>"
	}
	capacity := pvc.Status.Capacity[v1.ResourceStorage]
	request := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	allocated := pvc.Status.AllocatedResources[v1.ResourceStorage]
	var conds []string
	for _, c := range pvc.Status.Conditions {
		conds = append(conds, string(c.Type))
	}
	line := fmt.Sprintf("request=%s capacity=%s allocated=%s status=%s conditions=%v",
		request.String(), capacity.String(), allocated.String(),
		pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage], conds)
	if pvc.Spec.VolumeAttributesClassName != nil || pvc.Status.CurrentVolumeAttributesClassName != nil || pvc.Status.ModifyVolumeStatus != nil {
		target, status := ModifyStatus(pvc)
		line += fmt.Sprintf(" class=%s currentClass=%s modify=%s%s", ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""),
			CurrentAttributesClass(pvc), status, map[bool]string{true: "(" + target + ")"}[target != ""])
	}
	return line
}

// Capacity is status.capacity[storage] as a string.
func Capacity(pvc *v1.PersistentVolumeClaim) string {
	q := pvc.Status.Capacity[v1.ResourceStorage]
	return q.String()
}

// ResizeStatus is allocatedResourceStatuses[storage].
func ResizeStatus(pvc *v1.PersistentVolumeClaim) v1.ClaimResourceStatus {
	return pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage]
}

// HasCondition reports whether the claim has condition t set to True.
func HasCondition(pvc *v1.PersistentVolumeClaim, t v1.PersistentVolumeClaimConditionType) bool {
	for _, c := range pvc.Status.Conditions {
		if c.Type == t && c.Status == v1.ConditionTrue {
			return true
		}
	}
	return false
}

// Events returns the reasons and messages of the events of an object.
func Events(ctx context.Context, c kubernetes.Interface, namespace, name string) ([]string, error) {
	list, err := c.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Reason+": "+e.Message)
	}
	return out, nil
}
