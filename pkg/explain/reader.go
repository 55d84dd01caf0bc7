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

package explain

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Reader reads the objects explain looks at. Each method is one get or one
// list, so that the permissions explain needs are exactly these calls.
type Reader interface {
	// Claim gets a PersistentVolumeClaim.
	Claim(ctx context.Context, namespace, name string) (*v1.PersistentVolumeClaim, error)
	// Volume gets a PersistentVolume.
	Volume(ctx context.Context, name string) (*v1.PersistentVolume, error)
	// StorageClass gets a StorageClass.
	StorageClass(ctx context.Context, name string) (*storagev1.StorageClass, error)
	// AttributesClass gets a VolumeAttributesClass.
	AttributesClass(ctx context.Context, name string) (*storagev1.VolumeAttributesClass, error)
	// Events lists the events of the claim namespace/name.
	Events(ctx context.Context, namespace, name string) ([]v1.Event, error)
	// Pods lists the pods of namespace.
	Pods(ctx context.Context, namespace string) ([]v1.Pod, error)
	// Pod gets a pod.
	Pod(ctx context.Context, namespace, name string) (*v1.Pod, error)
	// Leases returns the Leases called name: the one of namespace, or
	// those of every namespace when namespace is "".
	Leases(ctx context.Context, namespace, name string) ([]coordinationv1.Lease, error)
	// LabelledLeases lists the Leases of namespace ("" for every namespace)
	// that carry label with value.
	LabelledLeases(ctx context.Context, namespace, label, value string) ([]coordinationv1.Lease, error)
	// Node gets a Node.
	Node(ctx context.Context, name string) (*v1.Node, error)
}

// NewReader returns a Reader that reads through client.
func NewReader(client kube.Interface) Reader {
	return clientReader{client}
}

type clientReader struct {
	client kube.Interface
}

func (r clientReader) Claim(ctx context.Context, namespace, name string) (*v1.PersistentVolumeClaim, error) {
	return r.client.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (r clientReader) Volume(ctx context.Context, name string) (*v1.PersistentVolume, error) {
	return r.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
}

func (r clientReader) StorageClass(ctx context.Context, name string) (*storagev1.StorageClass, error) {
	return r.client.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
}

func (r clientReader) AttributesClass(ctx context.Context, name string) (*storagev1.VolumeAttributesClass, error) {
	return r.client.StorageV1().VolumeAttributesClasses().Get(ctx, name, metav1.GetOptions{})
}

// Events asks the API server for the claim's events only; the caller still
// checks each, as a fake client ignores field selectors.
func (r clientReader) Events(ctx context.Context, namespace, name string) ([]v1.Event, error) {
	selector := fields.Set{"involvedObject.kind": "PersistentVolumeClaim", "involvedObject.name": name}.AsSelector()
	list, err := r.client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: selector.String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (r clientReader) Pods(ctx context.Context, namespace string) ([]v1.Pod, error) {
	list, err := r.client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (r clientReader) Pod(ctx context.Context, namespace, name string) (*v1.Pod, error) {
	return r.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (r clientReader) Leases(ctx context.Context, namespace, name string) ([]coordinationv1.Lease, error) {
	if namespace != "" {
		lease, err := r.client.CoordinationV1().Leases(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return []coordinationv1.Lease{*lease}, nil
	}
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	list, err := r.client.CoordinationV1().Leases("").List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (r clientReader) LabelledLeases(ctx context.Context, namespace, label, value string) ([]coordinationv1.Lease, error) {
	selector := labels.SelectorFromSet(labels.Set{label: value}).String()
	list, err := r.client.CoordinationV1().Leases(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (r clientReader) Node(ctx context.Context, name string) (*v1.Node, error) {
	return r.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
}
