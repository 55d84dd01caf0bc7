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
// API groups the resizer and kubectl csi-resizer read and write, a
// clientset whose typed clients have only the verbs they call, the check
// that the API server serves a resource, and the informers of the watched
// kinds.
//
// client-go's clientset, informer factory and discovery client register
// every API group of Kubernetes, which doubles the binary and its start-up
// memory; the typed clients here are client-go's generic ones (gentype)
// over that smaller scheme, with client-go's method signatures, so that
// client-go's fake clientset satisfies the same interfaces in tests
// (internal/kubetest).
package kube

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
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
