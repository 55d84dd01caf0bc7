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

package sidecar

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/pkg/inuse"
)

// lastApplied is kubectl's copy of the whole object, dead weight here.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// informers are the caches the controller reads.
type informers struct {
	claims, volumes, classes cache.SharedIndexInformer
	pods                     cache.SharedIndexInformer // nil without in-use handling
	tracker                  *inuse.Tracker
}

// newInformers builds the informers; pods are watched only when in-use
// handling is on, through a slim projection.
func newInformers(client kubernetes.Interface, resync time.Duration, pods bool) (*informers, error) {
	inf := &informers{
		claims:  coreinformers.NewPersistentVolumeClaimInformer(client, metav1.NamespaceAll, resync, cache.Indexers{}),
		volumes: coreinformers.NewPersistentVolumeInformer(client, resync, cache.Indexers{}),
		classes: storageinformers.NewStorageClassInformer(client, resync, cache.Indexers{}),
	}
	for _, i := range []cache.SharedIndexInformer{inf.claims, inf.volumes, inf.classes} {
		if err := i.SetTransform(slim); err != nil {
			return nil, err
		}
	}
	if pods {
		inf.pods = coreinformers.NewPodInformer(client, metav1.NamespaceAll, 0, cache.Indexers{})
		t, err := inuse.NewTracker(inf.pods)
		if err != nil {
			return nil, err
		}
		inf.tracker = t
	}
	return inf, nil
}

// start runs every informer until stop is closed.
func (inf *informers) start(stop <-chan struct{}) {
	for _, i := range []cache.SharedIndexInformer{inf.claims, inf.volumes, inf.classes, inf.pods} {
		if i != nil {
			go i.Run(stop)
		}
	}
}

// slim drops what the resizer never reads from cached objects: managed
// fields and kubectl's last-applied copy often outweigh the rest.
func slim(obj any) (any, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	m.SetManagedFields(nil)
	if a := m.GetAnnotations(); a[lastApplied] != "" {
		delete(a, lastApplied)
		m.SetAnnotations(a)
	}
	return obj, nil
}
