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

// Package kubetest lets tests drive code written against kube.Interface
// with client-go's clientsets, the fake one above all: its recorded
// actions, reactors and object tracker work as they do with client-go's
// own interfaces.
package kubetest

import (
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Wrap returns client as a kube.Interface.
func Wrap(client kubernetes.Interface) kube.Interface {
	return wrapped{client}
}

type wrapped struct{ c kubernetes.Interface }

func (w wrapped) CoreV1() kube.CoreV1Interface                 { return core{w.c} }
func (w wrapped) StorageV1() kube.StorageV1Interface           { return storage{w.c} }
func (w wrapped) CoordinationV1() kube.CoordinationV1Interface { return coordination{w.c} }
func (w wrapped) AuthenticationV1() kube.AuthenticationV1Interface {
	return authentication{w.c}
}
func (w wrapped) Discovery() kube.DiscoveryInterface { return w.c.Discovery() }

// IsWatchListSemanticsUnSupported passes on what the wrapped client says
// of watch lists: the fake clientset does not support them, and informers
// must not wait for their bookmark.
func (w wrapped) IsWatchListSemanticsUnSupported() bool {
	u, ok := w.c.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && u.IsWatchListSemanticsUnSupported()
}

type core struct{ c kubernetes.Interface }

func (g core) RESTClient() rest.Interface { return g.c.CoreV1().RESTClient() }
func (g core) PersistentVolumeClaims(namespace string) kube.PersistentVolumeClaimInterface {
	return g.c.CoreV1().PersistentVolumeClaims(namespace)
}
func (g core) PersistentVolumes() kube.PersistentVolumeInterface {
	return g.c.CoreV1().PersistentVolumes()
}
func (g core) Pods(namespace string) kube.PodInterface       { return g.c.CoreV1().Pods(namespace) }
func (g core) Nodes() kube.NodeInterface                     { return g.c.CoreV1().Nodes() }
func (g core) Secrets(namespace string) kube.SecretInterface { return g.c.CoreV1().Secrets(namespace) }
func (g core) Events(namespace string) kube.EventInterface   { return g.c.CoreV1().Events(namespace) }

type storage struct{ c kubernetes.Interface }

func (g storage) StorageClasses() kube.StorageClassInterface { return g.c.StorageV1().StorageClasses() }
func (g storage) VolumeAttributesClasses() kube.VolumeAttributesClassInterface {
	return g.c.StorageV1().VolumeAttributesClasses()
}

type coordination struct{ c kubernetes.Interface }

func (g coordination) Leases(namespace string) kube.LeaseInterface {
	return g.c.CoordinationV1().Leases(namespace)
}

type authentication struct{ c kubernetes.Interface }

func (g authentication) SelfSubjectReviews() kube.SelfSubjectReviewInterface {
	return g.c.AuthenticationV1().SelfSubjectReviews()
}
