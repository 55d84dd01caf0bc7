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
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/flowcontrol"
)

// discoveryTimeout bounds a discovery request, as client-go's discovery
// client's default timeout does.
const discoveryTimeout = 32 * time.Second

// Clientset is Interface over the API server: one REST client per API
// group, sharing one transport and one rate limiter, as client-go's
// clientset does.
type Clientset struct {
	core, storage, coordination, authentication *rest.RESTClient
}

var _ Interface = &Clientset{}

// NewForConfig makes a Clientset. Its requests share c's rate limiter or,
// without one, a token bucket of c's QPS and burst; c's content type (the
// resizer asks for protobuf) applies to every group, and the types that
// client-go's clients prefer in protobuf get it even without.
func NewForConfig(c *rest.Config) (*Clientset, error) {
	config := *c
	if config.UserAgent == "" {
		config.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	if config.RateLimiter == nil && config.QPS > 0 {
		if config.Burst <= 0 {
			return nil, fmt.Errorf("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")
		}
		config.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(config.QPS, config.Burst)
	}
	httpClient, err := rest.HTTPClientFor(&config)
	if err != nil {
		return nil, err
	}
	var cs Clientset
	for _, g := range []struct {
		out     **rest.RESTClient
		apiPath string
		gv      schema.GroupVersion
	}{
		{&cs.core, "/api", corev1.SchemeGroupVersion},
		{&cs.storage, "/apis", storagev1.SchemeGroupVersion},
		{&cs.coordination, "/apis", coordinationv1.SchemeGroupVersion},
		{&cs.authentication, "/apis", authenticationv1.SchemeGroupVersion},
	} {
		groupConfig := config
		groupConfig.APIPath, groupConfig.GroupVersion = g.apiPath, &g.gv
		groupConfig.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(Scheme, Codecs).WithoutConversion()
		rc, err := rest.RESTClientForConfigAndClient(&groupConfig, httpClient)
		if err != nil {
			return nil, err
		}
		*g.out = rc
	}
	return &cs, nil
}

// CoreV1 is the core/v1 group.
func (c *Clientset) CoreV1() CoreV1Interface { return group{c.core} }

// StorageV1 is the storage.k8s.io/v1 group.
func (c *Clientset) StorageV1() StorageV1Interface { return group{c.storage} }

// CoordinationV1 is the coordination.k8s.io/v1 group.
func (c *Clientset) CoordinationV1() CoordinationV1Interface { return group{c.coordination} }

// AuthenticationV1 is the authentication.k8s.io/v1 group.
func (c *Clientset) AuthenticationV1() AuthenticationV1Interface { return group{c.authentication} }

// Discovery reads the API server's resource lists through the core
// group's client (and rate limiter).
func (c *Clientset) Discovery() DiscoveryInterface { return group{c.core} }

// group is the client of one API group: each accessor of Clientset returns
// it as the interface of its group, which offers that group's resources.
type group struct{ rest *rest.RESTClient }

func (g group) RESTClient() rest.Interface { return g.rest }

func (g group) PersistentVolumeClaims(namespace string) PersistentVolumeClaimInterface {
	return typed[corev1.PersistentVolumeClaim, corev1.PersistentVolumeClaimList](g.rest, "persistentvolumeclaims", namespace)
}

func (g group) PersistentVolumes() PersistentVolumeInterface {
	return typed[corev1.PersistentVolume, corev1.PersistentVolumeList](g.rest, "persistentvolumes", "")
}

func (g group) Pods(namespace string) PodInterface {
	return typed[corev1.Pod, corev1.PodList](g.rest, "pods", namespace)
}

func (g group) Nodes() NodeInterface { return typed[corev1.Node, corev1.NodeList](g.rest, "nodes", "") }

func (g group) Secrets(namespace string) SecretInterface {
	return typed[corev1.Secret, corev1.SecretList](g.rest, "secrets", namespace)
}

func (g group) Events(namespace string) EventInterface {
	return typed[corev1.Event, corev1.EventList](g.rest, "events", namespace)
}

func (g group) StorageClasses() StorageClassInterface {
	return typed[storagev1.StorageClass, storagev1.StorageClassList](g.rest, "storageclasses", "")
}

func (g group) VolumeAttributesClasses() VolumeAttributesClassInterface {
	return typed[storagev1.VolumeAttributesClass, storagev1.VolumeAttributesClassList](g.rest, "volumeattributesclasses", "")
}

func (g group) Leases(namespace string) LeaseInterface {
	return typed[coordinationv1.Lease, coordinationv1.LeaseList](g.rest, "leases", namespace)
}

func (g group) SelfSubjectReviews() SelfSubjectReviewInterface {
	return gentype.NewClient("selfsubjectreviews", g.rest, ParameterCodec, "",
		func() *authenticationv1.SelfSubjectReview { return &authenticationv1.SelfSubjectReview{} },
		gentype.PrefersProtobuf[*authenticationv1.SelfSubjectReview]())
}

// typed is client-go's generic client of resource in namespace ("" for
// cluster-scoped resources or all namespaces), with protobuf preferred as
// every typed client of these groups does.
func typed[T, L any, PT interface {
	*T
	runtime.Object
	metav1.Object
}, PL interface {
	*L
	runtime.Object
}](rc rest.Interface, resource, namespace string) *gentype.ClientWithList[PT, PL] {
	return gentype.NewClientWithList(resource, rc, ParameterCodec, namespace,
		func() PT { return new(T) }, func() PL { return new(L) }, gentype.PrefersProtobuf[PT]())
}

// ServerResourcesForGroupVersion reads /api/v1 or /apis/<group>/<version>,
// in JSON as client-go's discovery client does.
func (g group) ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error) {
	gv, err := schema.ParseGroupVersion(groupVersion)
	if err != nil {
		return nil, err
	}
	path := "/apis/" + groupVersion
	if gv.Group == "" {
		path = "/api/" + gv.Version
	}
	ctx, cancel := context.WithTimeout(context.Background(), discoveryTimeout)
	defer cancel()
	list := &metav1.APIResourceList{GroupVersion: groupVersion}
	if err := g.rest.Get().AbsPath(path).SetHeader("Accept", runtime.ContentTypeJSON).Do(ctx).Into(list); err != nil {
		return nil, err
	}
	return list, nil
}

// NewInformer is client-go's informer of T without the factory (package
// k8s.io/client-go/informers): same list and watch through resources, same
// options. tweak, when not nil, sets the selectors of every list and watch.
// client tells the reflector whether it may use watch lists (client-go's
// fake clientset says it may not).
func NewInformer[T any, L runtime.Object](client Interface, resources ReadInterface[*T, L], resync time.Duration, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
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
	return cache.NewSharedIndexInformerWithOptions(cache.ToListWatcherWithWatchListSemantics(lw, client), any(new(T)).(runtime.Object),
		cache.SharedIndexInformerOptions{ResyncPeriod: resync, Indexers: cache.Indexers{}})
}
