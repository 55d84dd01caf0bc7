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

package kube

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// The informers below are client-go's informers of these kinds without
// the factory (package k8s.io/client-go/informers): same list and watch,
// same options. tweak, when not nil, sets the selectors of every list and
// watch.

// NewPersistentVolumeClaimInformer watches the claims of namespace (all
// with metav1.NamespaceAll).
func NewPersistentVolumeClaimInformer(client Interface, namespace string, resync time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
	return newInformer(client, client.CoreV1().PersistentVolumeClaims(namespace), &corev1.PersistentVolumeClaim{}, resync, indexers, nil)
}

// NewPersistentVolumeInformer watches the PVs.
func NewPersistentVolumeInformer(client Interface, resync time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
	return newInformer(client, client.CoreV1().PersistentVolumes(), &corev1.PersistentVolume{}, resync, indexers, nil)
}

// NewFilteredPodInformer watches the pods of namespace that tweak selects.
func NewFilteredPodInformer(client Interface, namespace string, resync time.Duration, indexers cache.Indexers, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	return newInformer(client, client.CoreV1().Pods(namespace), &corev1.Pod{}, resync, indexers, tweak)
}

// NewFilteredNodeInformer watches the nodes that tweak selects.
func NewFilteredNodeInformer(client Interface, resync time.Duration, indexers cache.Indexers, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	return newInformer(client, client.CoreV1().Nodes(), &corev1.Node{}, resync, indexers, tweak)
}

// NewStorageClassInformer watches the StorageClasses.
func NewStorageClassInformer(client Interface, resync time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
	return newInformer(client, client.StorageV1().StorageClasses(), &storagev1.StorageClass{}, resync, indexers, nil)
}

// NewVolumeAttributesClassInformer watches the VolumeAttributesClasses.
func NewVolumeAttributesClassInformer(client Interface, resync time.Duration, indexers cache.Indexers) cache.SharedIndexInformer {
	return newInformer(client, client.StorageV1().VolumeAttributesClasses(), &storagev1.VolumeAttributesClass{}, resync, indexers, nil)
}

// listWatcher is a typed client that lists and watches.
type listWatcher[L runtime.Object] interface {
	lister[L]
	watcher
}

// newInformer is an informer of example's kind through resources. client
// tells the reflector whether it may use watch lists (client-go's fake
// clientset says it may not).
func newInformer[L runtime.Object](client Interface, resources listWatcher[L], example runtime.Object, resync time.Duration, indexers cache.Indexers, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	options := func(o metav1.ListOptions) metav1.ListOptions {
		if tweak != nil {
			tweak(&o)
		}
		return o
	}
	lw := &cache.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			return resources.List(context.Background(), options(o))
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			return resources.Watch(context.Background(), options(o))
		},
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return resources.List(ctx, options(o))
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return resources.Watch(ctx, options(o))
		},
	}
	return cache.NewSharedIndexInformerWithOptions(cache.ToListWatcherWithWatchListSemantics(lw, client), example,
		cache.SharedIndexInformerOptions{ResyncPeriod: resync, Indexers: indexers})
}
