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

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// Interface is the part of client-go's kubernetes.Interface that the
// resizer and kubectl csi-resizer call. Every method has client-go's
// signature, so client-go's clientset and its fake satisfy the resource
// interfaces below.
type Interface interface {
	CoreV1() CoreV1Interface
	StorageV1() StorageV1Interface
	CoordinationV1() CoordinationV1Interface
	AuthenticationV1() AuthenticationV1Interface
	Discovery() DiscoveryInterface
}

// CoreV1Interface is the core/v1 API group.
type CoreV1Interface interface {
	// RESTClient is the group's client: its rate limiter is the clientset's.
	RESTClient() rest.Interface
	PersistentVolumeClaims(namespace string) PersistentVolumeClaimInterface
	PersistentVolumes() PersistentVolumeInterface
	Pods(namespace string) PodInterface
	Nodes() NodeInterface
	Secrets(namespace string) SecretInterface
	Events(namespace string) EventInterface
}

// StorageV1Interface is the storage.k8s.io/v1 API group.
type StorageV1Interface interface {
	StorageClasses() StorageClassInterface
	VolumeAttributesClasses() VolumeAttributesClassInterface
}

// CoordinationV1Interface is the coordination.k8s.io/v1 API group.
type CoordinationV1Interface interface {
	Leases(namespace string) LeaseInterface
}

// AuthenticationV1Interface is the authentication.k8s.io/v1 API group.
type AuthenticationV1Interface interface {
	SelfSubjectReviews() SelfSubjectReviewInterface
}

// PersistentVolumeClaimInterface reads and watches claims and patches their
// status.
type PersistentVolumeClaimInterface interface {
	getter[*corev1.PersistentVolumeClaim]
	lister[*corev1.PersistentVolumeClaimList]
	watcher
	patcher[*corev1.PersistentVolumeClaim]
}

// PersistentVolumeInterface reads and watches PVs and patches them.
type PersistentVolumeInterface interface {
	getter[*corev1.PersistentVolume]
	lister[*corev1.PersistentVolumeList]
	watcher
	patcher[*corev1.PersistentVolume]
}

// PodInterface reads and watches pods.
type PodInterface interface {
	getter[*corev1.Pod]
	lister[*corev1.PodList]
	watcher
}

// NodeInterface reads and watches nodes.
type NodeInterface interface {
	getter[*corev1.Node]
	lister[*corev1.NodeList]
	watcher
}

// SecretInterface reads secrets.
type SecretInterface interface {
	getter[*corev1.Secret]
}

// EventInterface writes events, as the event recorder does, and lists them.
type EventInterface interface {
	lister[*corev1.EventList]
	Create(ctx context.Context, event *corev1.Event, opts metav1.CreateOptions) (*corev1.Event, error)
	Update(ctx context.Context, event *corev1.Event, opts metav1.UpdateOptions) (*corev1.Event, error)
	patcher[*corev1.Event]
}

// StorageClassInterface reads and watches StorageClasses.
type StorageClassInterface interface {
	getter[*storagev1.StorageClass]
	lister[*storagev1.StorageClassList]
	watcher
}

// VolumeAttributesClassInterface reads and watches VolumeAttributesClasses.
type VolumeAttributesClassInterface interface {
	getter[*storagev1.VolumeAttributesClass]
	lister[*storagev1.VolumeAttributesClassList]
	watcher
}

// LeaseInterface reads and writes Leases: the node Lease of
// --node-deployment, and the Leases explain reads.
type LeaseInterface interface {
	getter[*coordinationv1.Lease]
	lister[*coordinationv1.LeaseList]
	Create(ctx context.Context, lease *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error)
	Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// SelfSubjectReviewInterface asks the API server who the client is.
type SelfSubjectReviewInterface interface {
	Create(ctx context.Context, review *authenticationv1.SelfSubjectReview, opts metav1.CreateOptions) (*authenticationv1.SelfSubjectReview, error)
}

// DiscoveryInterface tells which resources the API server serves.
type DiscoveryInterface interface {
	// ServerResourcesForGroupVersion lists the resources of groupVersion;
	// an API error NotFound when the server does not serve it.
	ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error)
}

type getter[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
}

type lister[L any] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
}

type watcher interface {
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

type patcher[T any] interface {
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}
