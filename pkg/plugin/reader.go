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

package plugin

import (
	"context"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Reader reads the objects explain and list look at. Each method is one
// get or one list (in pages, as kubectl reads), so that the permissions
// they need are exactly these calls.
type Reader interface {
	// Claim gets a PersistentVolumeClaim; Claims lists those of namespace,
	// "" for every namespace.
	Claim(ctx context.Context, namespace, name string) (*v1.PersistentVolumeClaim, error)
	Claims(ctx context.Context, namespace string) ([]v1.PersistentVolumeClaim, error)
	// Volume gets a PersistentVolume; Volumes lists them.
	Volume(ctx context.Context, name string) (*v1.PersistentVolume, error)
	Volumes(ctx context.Context) ([]v1.PersistentVolume, error)
	// StorageClass gets a StorageClass.
	StorageClass(ctx context.Context, name string) (*storagev1.StorageClass, error)
	// AttributesClass gets a VolumeAttributesClass; AttributesClasses lists
	// them.
	AttributesClass(ctx context.Context, name string) (*storagev1.VolumeAttributesClass, error)
	AttributesClasses(ctx context.Context) ([]storagev1.VolumeAttributesClass, error)
	// Events lists the events of the claim namespace/name; ClaimEvents
	// those of the claims of namespace, "" for every namespace.
	Events(ctx context.Context, namespace, name string) ([]v1.Event, error)
	ClaimEvents(ctx context.Context, namespace string) ([]v1.Event, error)
	// Pods lists the pods of namespace; "" lists those of every namespace.
	Pods(ctx context.Context, namespace string) ([]v1.Pod, error)
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

func (r clientReader) Claims(ctx context.Context, namespace string) ([]v1.PersistentVolumeClaim, error) {
	return all[v1.PersistentVolumeClaim](ctx, metav1.ListOptions{}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().PersistentVolumeClaims(namespace).List(ctx, o)
	})
}

func (r clientReader) Volume(ctx context.Context, name string) (*v1.PersistentVolume, error) {
	return r.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
}

func (r clientReader) Volumes(ctx context.Context) ([]v1.PersistentVolume, error) {
	return all[v1.PersistentVolume](ctx, metav1.ListOptions{}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().PersistentVolumes().List(ctx, o)
	})
}

func (r clientReader) StorageClass(ctx context.Context, name string) (*storagev1.StorageClass, error) {
	return r.client.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
}

func (r clientReader) AttributesClass(ctx context.Context, name string) (*storagev1.VolumeAttributesClass, error) {
	return r.client.StorageV1().VolumeAttributesClasses().Get(ctx, name, metav1.GetOptions{})
}

func (r clientReader) AttributesClasses(ctx context.Context) ([]storagev1.VolumeAttributesClass, error) {
	return all[storagev1.VolumeAttributesClass](ctx, metav1.ListOptions{}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.StorageV1().VolumeAttributesClasses().List(ctx, o)
	})
}

// Events asks the API server for the claim's events only; the caller still
// checks each, as a fake client ignores field selectors.
func (r clientReader) Events(ctx context.Context, namespace, name string) ([]v1.Event, error) {
	selector := fields.Set{"involvedObject.kind": "PersistentVolumeClaim", "involvedObject.name": name}.AsSelector()
	return r.events(ctx, namespace, selector)
}

// ClaimEvents asks the API server for the events of claims only, as
// Events does.
func (r clientReader) ClaimEvents(ctx context.Context, namespace string) ([]v1.Event, error) {
	return r.events(ctx, namespace, fields.OneTermEqualSelector("involvedObject.kind", "PersistentVolumeClaim"))
}

func (r clientReader) events(ctx context.Context, namespace string, selector fields.Selector) ([]v1.Event, error) {
	return all[v1.Event](ctx, metav1.ListOptions{FieldSelector: selector.String()}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().Events(namespace).List(ctx, o)
	})
}

func (r clientReader) Pods(ctx context.Context, namespace string) ([]v1.Pod, error) {
	return all[v1.Pod](ctx, metav1.ListOptions{}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().Pods(namespace).List(ctx, o)
	})
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

// all lists every item of a list in pages of 500, as kubectl does, so that
// a large list does not load the API server with one response.
func all[T any, P interface {
	*T
	runtime.Object
}](ctx context.Context, opts metav1.ListOptions, list func(context.Context, metav1.ListOptions) (runtime.Object, error)) ([]T, error) {
	var out []T
	p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		obj, err := list(ctx, o)
		if err != nil {
			return nil, err // not a typed nil
		}
		return obj, nil
	})
	err := p.EachListItem(ctx, opts, func(obj runtime.Object) error {
		item, ok := obj.(P)
		if !ok {
			return fmt.Errorf("list returned a %T", obj)
		}
		out = append(out, *item)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
