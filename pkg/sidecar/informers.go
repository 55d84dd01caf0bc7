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
	"runtime/debug"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/pkg/inuse"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// informers are the caches the controller reads.
type informers struct {
	claims, volumes, classes cache.SharedIndexInformer
	pods                     cache.SharedIndexInformer // nil without in-use handling
	attributeClasses         cache.SharedIndexInformer // nil without volume modification
	tracker                  *inuse.Tracker
	// node and nodeWatcher, which knows the Node from node, are nil
	// without --node-deployment.
	node        cache.SharedIndexInformer
	nodeWatcher *ownership.Watcher
}

// newInformers builds the informers; pods are watched only when in-use
// handling is on, through a slim projection. The controller gives the claim
// and PV informers their projections (package slim); StorageClasses, few
// and read whole, only lose their managed fields. node is the instance's
// Node as read at start with --node-deployment, nil otherwise.
func newInformers(client kube.Interface, resync time.Duration, pods, attributeClasses bool, node *v1.Node) (*informers, error) {
	inf := &informers{
		claims:  kube.NewInformer(client, client.CoreV1().PersistentVolumeClaims(metav1.NamespaceAll), resync, nil),
		volumes: kube.NewInformer(client, client.CoreV1().PersistentVolumes(), resync, nil),
		classes: kube.NewInformer(client, client.StorageV1().StorageClasses(), resync, nil),
	}
	if err := inf.classes.SetTransform(withoutManagedFields); err != nil {
		return nil, err
	}
	if attributeClasses {
		inf.attributeClasses = kube.NewInformer(client, client.StorageV1().VolumeAttributesClasses(), resync, nil)
		if err := inf.attributeClasses.SetTransform(withoutManagedFields); err != nil {
			return nil, err
		}
	}
	nodeName := ""
	if node != nil {
		nodeName = node.Name
		informer, err := ownership.NewInformer(client, nodeName, resync)
		if err != nil {
			return nil, err
		}
		inf.node, inf.nodeWatcher = informer, ownership.NewWatcher(nodeName)
		inf.nodeWatcher.Set(ownership.NodeOf(node))
		if err := inf.nodeWatcher.Watch(informer); err != nil {
			return nil, err
		}
	}
	if pods {
		inf.pods = podInformer(client, nodeName)
		t, err := inuse.NewTracker(inf.pods)
		if err != nil {
			return nil, err
		}
		inf.tracker = t
	}
	return inf, nil
}

// podInformer watches the pods of the cluster, or with --node-deployment
// only those of the instance's node (field selector spec.nodeName): a pod
// can mount a volume pinned to the node only there, and one not scheduled
// yet mounts nothing (inuse.MayMount).
func podInformer(client kube.Interface, nodeName string) cache.SharedIndexInformer {
	if nodeName == "" {
		return kube.NewInformer(client, client.CoreV1().Pods(metav1.NamespaceAll), 0, nil)
	}
	onNode := func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", nodeName).String()
	}
	return kube.NewInformer(client, client.CoreV1().Pods(metav1.NamespaceAll), 0, onNode)
}

// all lists the informers; those switched off are nil.
func (inf *informers) all() []cache.SharedIndexInformer {
	return []cache.SharedIndexInformer{inf.claims, inf.volumes, inf.classes, inf.pods, inf.attributeClasses, inf.node}
}

// start runs every informer until stop is closed.
func (inf *informers) start(stop <-chan struct{}) {
	for _, i := range inf.all() {
		if i != nil {
			go i.Run(stop)
		}
	}
}

// releaseAfterSync returns memory to the OS once the caches have synced.
// The initial lists decode every claim, PV and pod of the cluster and keep
// a small projection of each: the rest is garbage that the collector would
// otherwise leave mapped until the heap grows back to twice its size.
func (inf *informers) releaseAfterSync(stop <-chan struct{}) {
	var synced []cache.InformerSynced
	for _, i := range inf.all() {
		if i != nil {
			synced = append(synced, i.HasSynced)
		}
	}
	if cache.WaitForCacheSync(stop, synced...) {
		debug.FreeOSMemory()
	}
}

// withoutManagedFields drops what the resizer never reads from cached
// objects: managed fields and kubectl's last-applied copy often outweigh the
// rest.
func withoutManagedFields(obj any) (any, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	m.SetManagedFields(nil)
	if a := m.GetAnnotations(); a[slim.LastApplied] != "" {
		delete(a, slim.LastApplied)
		m.SetAnnotations(a)
	}
	return obj, nil
}
