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
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

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
	out := &Pod{Meta: p.Meta, Phase: p.Phase, Scheduled: p.Scheduled}
	if p.Claims != nil {
		out.Claims = append(make([]string, 0, len(p.Claims)), p.Claims...)
	}
	return out
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
