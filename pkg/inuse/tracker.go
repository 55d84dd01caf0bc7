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

package inuse

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

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

// UsersOf returns the names of the pods in pods that use namespace/claim
// and may have it mounted, as a Tracker's UsedBy answers from its informer:
// the same rule, for a reader that lists pods once instead of watching
// them (`kubectl csi-resizer explain`). The names are sorted; nil when
// there are none.
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
