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
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// Volume describes a bound claim and PV to create.
type Volume struct {
	Namespace, Claim, Class, Driver, Handle, Size string
	// SecretRef, when set, becomes the PV's controllerExpandSecretRef.
	SecretRef   *v1.SecretReference
	Annotations map[string]string // of the claim
	// AttributesClass is the VolumeAttributesClass the volume was
	// provisioned with: in the claim's spec and status and the PV's spec.
	AttributesClass string
	// AccessModes of the claim and the PV; ReadWriteOnce when empty.
	AccessModes  []v1.PersistentVolumeAccessMode
	NodeAffinity *v1.VolumeNodeAffinity // the PV's spec.nodeAffinity
}

// PVName is the name of the claim's PV.
func (v Volume) PVName() string { return testobj.PVName(v.Namespace, v.Claim) }

// RequiredAffinity is a PV's required node affinity of one term, which
// ANDs exprs.
func RequiredAffinity(exprs ...v1.NodeSelectorRequirement) *v1.VolumeNodeAffinity {
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: exprs}}}}
}

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
	last, err := waitForObject(ctx, timeout, func(ctx context.Context) (*v1.PersistentVolumeClaim, error) {
		return c.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, claim, metav1.GetOptions{})
	}, cond)
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
	return patchClaimSpec(ctx, c, namespace, claim, map[string]any{"volumeAttributesClassName": testobj.Optional(class)})
}

// GrowAndSetAttributesClass raises the request and sets the class in one
// update, as a user who edits both fields at once.
func GrowAndSetAttributesClass(ctx context.Context, c kubernetes.Interface, namespace, claim, size, class string) error {
	return patchClaimSpec(ctx, c, namespace, claim, map[string]any{
		"volumeAttributesClassName": testobj.Optional(class),
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

// Capacity is status.capacity[storage] as a string.
func Capacity(pvc *v1.PersistentVolumeClaim) string { return pvc.Status.Capacity.Storage().String() }

// ResizeStatus is allocatedResourceStatuses[storage].
func ResizeStatus(pvc *v1.PersistentVolumeClaim) v1.ClaimResourceStatus {
	return pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage]
}

// HasCondition reports whether the claim has condition t set to True.
func HasCondition(pvc *v1.PersistentVolumeClaim, t v1.PersistentVolumeClaimConditionType) bool {
	return slices.ContainsFunc(pvc.Status.Conditions, func(c v1.PersistentVolumeClaimCondition) bool {
		return c.Type == t && c.Status == v1.ConditionTrue
	})
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
