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

package list

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-resizer/csi-resizer/pkg/explain"
)

// Request is what to list.
type Request struct {
	// Namespace is the namespace of the claims; "" lists every namespace.
	Namespace string
	// Driver, when set, lists the claims its resizer handles; else each
	// claim is listed for the driver of its volume, as explain explains
	// it.
	Driver string
	// ResizerNamespace is the namespace of the resizers' Leases; "" looks
	// in every namespace.
	ResizerNamespace string
}

// Read reads what Unfinished lists through r, each kind of object with
// one list for the whole scope. The claims and PVs are required: without
// them nothing can be said, and the error says why (an *explain.ReadError
// names the missing permission). The rest is read only when a claim may be
// unfinished: pods, the claims' events, VolumeAttributesClasses when a
// claim names one, and the Lease of each driver's resizer with the pod that
// holds it; any of them that cannot be read leaves a warning, and items
// that may be wrong for it.
func Read(ctx context.Context, r Reader, req Request) (*Input, error) {
	in := &Input{Request: req, Volumes: map[string]*v1.PersistentVolume{}, Pods: map[string][]v1.Pod{},
		Events: map[types.NamespacedName][]v1.Event{}, AttributesClasses: map[string]*storagev1.VolumeAttributesClass{},
		Resizers: map[string]*explain.Objects{}, NodeOwners: map[types.NamespacedName]*explain.Objects{}}
	pvcs, err := r.Claims(ctx, req.Namespace)
	if err != nil {
		return nil, explain.ListError(explain.ResourceClaims, req.Namespace, err)
	}
	if !slices.ContainsFunc(pvcs, func(pvc v1.PersistentVolumeClaim) bool { return pvc.Spec.VolumeName != "" }) {
		return in, nil
	}
	pvs, err := r.Volumes(ctx)
	if err != nil {
		return nil, explain.ListError(explain.ResourceVolumes, "", err)
	}
	volumes := map[string]*v1.PersistentVolume{}
	for i := range pvs {
		volumes[pvs[i].Name] = &pvs[i]
	}
	for i := range pvcs {
		pvc := &pvcs[i]
		pv := volumes[pvc.Spec.VolumeName]
		if c, ok := Candidate(pvc, pv, req.Driver); ok {
			in.Claims = append(in.Claims, c)
			in.Volumes[pv.Name] = pv
		}
	}
	if len(in.Claims) == 0 {
		return in, nil
	}
	in.readPods(ctx, r)
	in.readEvents(ctx, r)
	in.readAttributesClasses(ctx, r)
	in.readResizers(ctx, r)
	in.readNodeOwners(ctx, r)
	return in, nil
}

func (in *Input) warn(format string, args ...any) {
	in.Warnings = append(in.Warnings, fmt.Sprintf(format, args...))
}

func (in *Input) readPods(ctx context.Context, r Reader) {
	pods, err := r.Pods(ctx, in.Request.Namespace)
	if err != nil {
		in.PodsUnread = true
		in.warn("%v: pods not read: which pods use the claims is not known, so a claim whose expansion pods hold back is not listed as waiting_in_use "+
			"(it is listed in the state its status records, or not at all when it records none), and the next step of node_pending is given to the user, not kubelet",
			explain.ListError(explain.ResourcePods, in.Request.Namespace, err))
		return
	}
	for _, p := range pods {
		in.Pods[p.Namespace] = append(in.Pods[p.Namespace], p)
	}
}

func (in *Input) readEvents(ctx context.Context, r Reader) {
	events, err := r.ClaimEvents(ctx, in.Request.Namespace)
	if err != nil {
		in.EventsUnread = true
		in.warn("%v: the claims' events are not read, and what they tell is not known: whether the driver is being called now "+
			"(controller_in_progress and modify in_progress are given to the resizer), and which expansions pods hold back (waiting_in_use)",
			explain.ListError(explain.ResourceEvents, in.Request.Namespace, err))
		return
	}
	for _, e := range events {
		ref := e.InvolvedObject
		key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
		in.Events[key] = append(in.Events[key], e)
	}
}

// readAttributesClasses lists the VolumeAttributesClasses when a claim
// names one. An API server that does not serve them has none.
func (in *Input) readAttributesClasses(ctx context.Context, r Reader) {
	if !slices.ContainsFunc(in.Claims, func(c Claim) bool { return c.Slim.Classes != nil }) {
		return
	}
	classes, err := r.AttributesClasses(ctx)
	switch {
	case apierrors.IsNotFound(err):
		return
	case err != nil:
		in.AttributesClassesUnread = true
		in.warn("%v: whether the classes the claims ask for exist, and for which driver, is not known",
			explain.ListError(explain.ResourceAttributesClasses, "", err))
		return
	}
	for i := range classes {
		in.AttributesClasses[classes[i].Name] = &classes[i]
	}
}

// readResizers reads what explain reads of the resizer of each driver the
// claims are listed for.
func (in *Input) readResizers(ctx context.Context, r Reader) {
	for _, c := range in.Claims {
		if _, ok := in.Resizers[c.Driver]; ok {
			continue
		}
		o := &explain.Objects{Request: explain.Request{ResizerNamespace: in.Request.ResizerNamespace}}
		o.ReadResizer(ctx, r, c.Driver)
		in.Resizers[c.Driver] = o
		in.Warnings = append(in.Warnings, o.Warnings...)
	}
}

// readNodeOwners reads, for each claim of a driver whose resizers run with
// --node-deployment, what explain reads of the instance that handles it.
// Each Node and pod is read once, however many claims it serves.
func (in *Input) readNodeOwners(ctx context.Context, r Reader) {
	once := &readOnce{Reader: r, nodes: map[string]nodeRead{}, pods: map[types.NamespacedName]podRead{}}
	for _, c := range in.Claims {
		if res := in.Resizers[c.Driver]; res == nil || !res.NodeMode() {
			continue
		}
		o := in.objects(c)
		o.ReadNodeOwner(ctx, once, c.Driver)
		once.warn(o)
		in.NodeOwners[types.NamespacedName{Namespace: c.PVC.Namespace, Name: c.PVC.Name}] = o
	}
	in.Warnings = append(in.Warnings, once.warnings...)
}
