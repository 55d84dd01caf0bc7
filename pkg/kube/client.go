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

// Package kube is the resizer's own Kubernetes client: a scheme of the few
// API groups the resizer and kubectl csi-resizer use, typed clients with only
// the verbs they call, discovery of one resource, and informers. client-go's
// clientset, informer factory and discovery client register every API group,
// which doubles the binary and its start-up memory; these are client-go's
// generic clients (gentype) over the smaller scheme, with client-go's
// signatures, so that its fake clientset serves in tests (internal/kubetest).
package kube

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// Scheme knows the API types of the groups the resizer uses: core/v1
// (claims, volumes, pods, nodes, secrets, events), storage/v1 (classes and
// attribute classes), coordination/v1 (leases) and authentication/v1 (the
// SelfSubjectReview that names the resizer's user), with the options and
// statuses of meta/v1. The event recorder reads the kind of an object from
// it.
var Scheme = runtime.NewScheme()

// Codecs are Scheme's serializers: JSON, YAML and protobuf.
var Codecs = serializer.NewCodecFactory(Scheme)

// ParameterCodec encodes list, get, patch and delete options as query
// parameters.
var ParameterCodec = runtime.NewParameterCodec(Scheme)

func init() {
	metav1.AddToGroupVersion(Scheme, schema.GroupVersion{Version: "v1"})
	utilruntime.Must(AddToScheme(Scheme))
}

// AddToScheme adds the resizer's API groups to s.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme,
		storagev1.AddToScheme,
		coordinationv1.AddToScheme,
		authenticationv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

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

// ReadInterface gets, lists and watches objects T, listed as L.
type ReadInterface[T, L any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// PatchInterface is a ReadInterface that patches objects too.
type PatchInterface[T, L any] interface {
	ReadInterface[T, L]
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}

type (
	// PersistentVolumeClaimInterface reads and watches claims and patches their status.
	PersistentVolumeClaimInterface = PatchInterface[*corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaimList]
	// PersistentVolumeInterface reads and watches PVs and patches them.
	PersistentVolumeInterface = PatchInterface[*corev1.PersistentVolume, *corev1.PersistentVolumeList]
	// PodInterface reads and watches pods.
	PodInterface = ReadInterface[*corev1.Pod, *corev1.PodList]
	// NodeInterface reads and watches nodes.
	NodeInterface = ReadInterface[*corev1.Node, *corev1.NodeList]
	// StorageClassInterface reads and watches StorageClasses.
	StorageClassInterface = ReadInterface[*storagev1.StorageClass, *storagev1.StorageClassList]
	// VolumeAttributesClassInterface reads and watches VolumeAttributesClasses.
	VolumeAttributesClassInterface = ReadInterface[*storagev1.VolumeAttributesClass, *storagev1.VolumeAttributesClassList]
)

// SecretInterface reads secrets.
type SecretInterface interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error)
}

// EventInterface writes events, as the event recorder does, and lists them.
type EventInterface interface {
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.EventList, error)
	Create(ctx context.Context, event *corev1.Event, opts metav1.CreateOptions) (*corev1.Event, error)
	Update(ctx context.Context, event *corev1.Event, opts metav1.UpdateOptions) (*corev1.Event, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*corev1.Event, error)
}

// LeaseInterface reads and writes Leases: the node Lease of
// --node-deployment, and the Leases explain reads.
type LeaseInterface interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error)
	List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error)
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
