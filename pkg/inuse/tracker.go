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

// Package inuse tells which running pods use a claim, so that a driver
// that can only expand volumes offline is not called while a pod may have
// the volume mounted. It keeps a slim projection of each pod, not the whole
// object: a cluster's pods outnumber its claims by far.
package inuse

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// Pod is the slim projection of a pod that the resizer keeps.
//
// It is a runtime.Object because parts of client-go assert that on stored
// objects: the watch-list consistency detector, the cache mutation detector
// and the generic listers.
type Pod struct {
	// Meta is the key, the identity, and what the informer compares to
	// tell a resync from a change.
	slim.Meta
	// Phase is status.phase.
	Phase v1.PodPhase
	// Scheduled is true when spec.nodeName is set.
	Scheduled bool
	// Claims are the names of the claims the pod uses, each once:
	// persistentVolumeClaim.claimName, and "<pod name>-<volume name>" for a
	// generic ephemeral volume.
	Claims []string
}

var _ runtime.Object = &Pod{}

// DeepCopyObject returns a deep copy of p.
func (p *Pod) DeepCopyObject() runtime.Object { return p.DeepCopy() }

// DeepCopy returns a deep copy of p.
func (p *Pod) DeepCopy() *Pod {
	if p == nil {
		return nil
	}
	return &Pod{Meta: p.Meta, Phase: p.Phase, Scheduled: p.Scheduled, Claims: slices.Clone(p.Claims)}
}

// Transform is a cache.TransformFunc that turns a *v1.Pod into a *Pod;
// other objects pass through unchanged (tombstones are not transformed by
// client-go, and a re-list may hand back an already slim object).
func Transform(obj any) (any, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok || pod == nil {
		return obj, nil
	}
	return project(pod), nil
}

func project(pod *v1.Pod) *Pod {
	return &Pod{
		Meta:      slim.MetaOf(&pod.ObjectMeta),
		Phase:     pod.Status.Phase,
		Scheduled: pod.Spec.NodeName != "",
		Claims:    claimNames(pod),
	}
}

// claimNames returns the claims pod uses, each once, in volume order; nil
// when it uses none, so that a pod without claims costs no slice.
func claimNames(pod *v1.Pod) []string {
	n := 0
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	names := make([]string, 0, n)
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		var name string
		switch {
		case v.PersistentVolumeClaim != nil:
			name = v.PersistentVolumeClaim.ClaimName
		case v.Ephemeral != nil:
			// The name the ephemeral volume controller gives the claim
			// (k8s.io/component-helpers/storage/ephemeral.VolumeClaimName).
			name = pod.Name + "-" + v.Name
		default:
			continue
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// claimIndex is the index from "namespace/claim" to the pods that may have
// that claim mounted. Pods that cannot (finished, or not yet scheduled) are
// left out, so that the many finished pods of Jobs cost no index entries.
const claimIndex = "inuse/claim"

// Tracker answers which pods use a claim, from a pod informer that holds
// *Pod objects.
type Tracker struct {
	informer cache.SharedIndexInformer
}

// NewTracker sets Transform and a claim index ("namespace/claim") on
// informer; call it before the informer starts. The informer then holds
// *Pod objects, not *v1.Pod: it must be one of its own, never the pod
// informer of a shared factory that other code lists *v1.Pod from.
func NewTracker(informer cache.SharedIndexInformer) (*Tracker, error) {
	if err := informer.SetTransform(Transform); err != nil {
		return nil, fmt.Errorf("set the slim pod transform: %w", err)
	}
	if err := informer.AddIndexers(cache.Indexers{claimIndex: indexClaims}); err != nil {
		return nil, fmt.Errorf("add the pod index by claim: %w", err)
	}
	return &Tracker{informer: informer}, nil
}

// HasSynced reports whether the pod informer has synced: before that,
// UsedBy knows no pods.
func (t *Tracker) HasSynced() bool {
	return t.informer.HasSynced()
}

// UsedBy returns the names of pods that use namespace/claim and may have it
// mounted (see MayMount). The names are sorted; nil when there are none.
// Until the informer has synced it knows no pods, so wait for it first.
func (t *Tracker) UsedBy(namespace, claim string) []string {
	// ByIndex fails only for an index that does not exist, and NewTracker
	// added this one.
	objs, _ := t.informer.GetIndexer().ByIndex(claimIndex, claimKey(namespace, claim))
	var names []string
	for _, obj := range objs {
		if pod, ok := asPod(obj); ok {
			names = append(names, pod.Name)
		}
	}
	slices.Sort(names)
	return names
}

// OnRelease calls release(namespace, claim) for every claim of a pod that
// is deleted (including DeletedFinalStateUnknown tombstones), so a resize
// waiting for the pod can be retried at once. release runs on the
// informer's goroutine: it should only enqueue.
func (t *Tracker) OnRelease(release func(namespace, claim string)) error {
	if _, err := t.informer.AddEventHandler(releaseHandler(release)); err != nil {
		return fmt.Errorf("watch pods for released claims: %w", err)
	}
	return nil
}

func releaseHandler(release func(namespace, claim string)) cache.ResourceEventHandlerFuncs {
	releaseAll := func(pod *Pod) {
		for _, claim := range pod.Claims {
			release(pod.Namespace, claim)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if pod, ok := asPod(obj); ok {
				releaseAll(pod)
			}
		},
	}
}

// MayMount reports whether pod may have its volumes published on a node:
// from the moment a node takes it until the pod object is gone. kubelet
// reports a finished or deleted pod's terminal phase before it unpublishes
// its volumes, and deletes the object only after that, so the phase tells
// nothing: a pod that has finished but is kept (a completed Job's pod)
// counts until it is deleted, as nothing in the API says when kubelet has
// unmounted it. A pod no node has taken has mounted nothing.
func MayMount(pod *Pod) bool {
	return pod.Scheduled
}

// UsersOf is UsedBy for a reader that lists pods once instead of watching
// them (`kubectl csi-resizer explain`): the same rule, over pods.
func UsersOf(pods []v1.Pod, namespace, claim string) []string {
	key := claimKey(namespace, claim)
	var names []string
	for i := range pods {
		pod := project(&pods[i])
		if keys, _ := indexClaims(pod); slices.Contains(keys, key) {
			names = append(names, pod.Name)
		}
	}
	slices.Sort(names)
	return names
}

func indexClaims(obj any) ([]string, error) {
	pod, ok := asPod(obj)
	if !ok || !MayMount(pod) || len(pod.Claims) == 0 {
		return nil, nil
	}
	keys := make([]string, len(pod.Claims))
	for i, claim := range pod.Claims {
		keys[i] = claimKey(pod.Namespace, claim)
	}
	return keys, nil
}

func claimKey(namespace, claim string) string {
	return namespace + "/" + claim
}

// asPod returns obj as a *Pod. A *v1.Pod is projected first: the store only
// holds *Pod, but a handler should not depend on how client-go built a
// tombstone.
func asPod(obj any) (*Pod, bool) {
	out, _ := Transform(obj)
	pod, ok := out.(*Pod)
	return pod, ok && pod != nil
}
