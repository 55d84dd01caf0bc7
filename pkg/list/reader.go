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

package list

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"

	"github.com/csi-resizer/csi-resizer/pkg/explain"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Reader reads the objects list looks at. Each method is one list (in
// pages, as kubectl reads), so that the permissions list needs are exactly
// these calls; the methods of explain.Reader read the resizers' Leases and
// the pods that hold them, as explain does.
type Reader interface {
	explain.Reader
	// Claims lists the PersistentVolumeClaims of namespace; "" lists those
	// of every namespace.
	Claims(ctx context.Context, namespace string) ([]v1.PersistentVolumeClaim, error)
	// Volumes lists the PersistentVolumes.
	Volumes(ctx context.Context) ([]v1.PersistentVolume, error)
	// ClaimEvents lists the events of the claims of namespace; "" lists
	// those of every namespace.
	ClaimEvents(ctx context.Context, namespace string) ([]v1.Event, error)
	// AttributesClasses lists the VolumeAttributesClasses.
	AttributesClasses(ctx context.Context) ([]storagev1.VolumeAttributesClass, error)
	// Pods lists the pods of namespace; "" lists those of every namespace.
	Pods(ctx context.Context, namespace string) ([]v1.Pod, error)
}

// NewReader returns a Reader that reads through client.
func NewReader(client kube.Interface) Reader {
	return clientReader{Reader: explain.NewReader(client), client: client}
}

type clientReader struct {
	explain.Reader
	client kube.Interface
}

func (r clientReader) Claims(ctx context.Context, namespace string) ([]v1.PersistentVolumeClaim, error) {
	return all[v1.PersistentVolumeClaim](ctx, metav1.ListOptions{}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().PersistentVolumeClaims(namespace).List(ctx, o)
	})
}

func (r clientReader) Volumes(ctx context.Context) ([]v1.PersistentVolume, error) {
	return all[v1.PersistentVolume](ctx, metav1.ListOptions{}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().PersistentVolumes().List(ctx, o)
	})
}

// ClaimEvents asks the API server for the events of claims only; the
// caller still checks each, as a fake client ignores field selectors.
func (r clientReader) ClaimEvents(ctx context.Context, namespace string) ([]v1.Event, error) {
	selector := fields.OneTermEqualSelector("involvedObject.kind", "PersistentVolumeClaim").String()
	return all[v1.Event](ctx, metav1.ListOptions{FieldSelector: selector}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().Events(namespace).List(ctx, o)
	})
}

func (r clientReader) AttributesClasses(ctx context.Context) ([]storagev1.VolumeAttributesClass, error) {
	return all[storagev1.VolumeAttributesClass](ctx, metav1.ListOptions{}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.StorageV1().VolumeAttributesClasses().List(ctx, o)
	})
}

func (r clientReader) Pods(ctx context.Context, namespace string) ([]v1.Pod, error) {
	return all[v1.Pod](ctx, metav1.ListOptions{}, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return r.client.CoreV1().Pods(namespace).List(ctx, o)
	})
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
