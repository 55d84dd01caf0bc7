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

package plugin

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// Read reads what List lists through r, each kind of object with one list
// for the whole scope. The claims and PVs are required: without them
// nothing can be said, and the error says why (a *ReadError names the
// missing permission). The rest is read only when a claim may be
// unfinished: pods, the claims' events, VolumeAttributesClasses when a
// claim names one, and the Lease of each driver's resizer (or the node
// Leases of its instances, and the Nodes their claims' volumes name); any
// of them that cannot be read leaves a warning, and items that may be
// wrong for it.
func Read(ctx context.Context, r Reader, req Request) (*Input, error) {
	in := &Input{Request: req, Volumes: map[string]*v1.PersistentVolume{}, Pods: map[string][]v1.Pod{},
		Events: map[types.NamespacedName][]v1.Event{}, AttributesClasses: map[string]*storagev1.VolumeAttributesClass{},
		Resizers: map[string]*Objects{}, NodeOwners: map[types.NamespacedName]map[string]*v1.Node{}}
	pvcs, err := r.Claims(ctx, req.Namespace)
	if err != nil {
		return nil, listError(resClaims, req.Namespace, err)
	}
	if !slices.ContainsFunc(pvcs, func(pvc v1.PersistentVolumeClaim) bool { return pvc.Spec.VolumeName != "" }) {
		return in, nil
	}
	pvs, err := r.Volumes(ctx)
	if err != nil {
		return nil, listError(resVolumes, "", err)
	}
	volumes := map[string]*v1.PersistentVolume{}
	for i := range pvs {
		volumes[pvs[i].Name] = &pvs[i]
	}
	for i := range pvcs {
		pvc := &pvcs[i]
		pv := volumes[pvc.Spec.VolumeName]
		if c, ok := candidateOf(pvc, pv, req.Driver); ok {
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
			listError(resPods, in.Request.Namespace, err))
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
			listError(resEvents, in.Request.Namespace, err))
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
	if !slices.ContainsFunc(in.Claims, func(c candidate) bool { return len(classNames(c.PVC)) > 0 }) {
		return
	}
	classes, err := r.AttributesClasses(ctx)
	switch {
	case apierrors.IsNotFound(err):
		return
	case err != nil:
		in.AttributesClassesUnread = true
		in.warn("%v: whether the classes the claims ask for exist, and for which driver, is not known",
			listError(resVACs, "", err))
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
		o := &Objects{Request: Request{ResizerNamespace: in.Request.ResizerNamespace}}
		o.readLease(ctx, r, c.Driver)
		in.Resizers[c.Driver] = o
		in.Warnings = append(in.Warnings, o.Warnings...)
	}
}

// readNodeOwners reads, for each claim of a driver whose resizers run with
// --node-deployment, the Nodes that its volume's node affinity names, as
// explain reads them to tell which node's instance handles the claim. Each
// Node is read once, however many claims it serves, and each warning is
// said once.
func (in *Input) readNodeOwners(ctx context.Context, r Reader) {
	once := nodesOnce{Reader: r, nodes: map[string]nodeRead{}}
	for _, c := range in.Claims {
		if res := in.Resizers[c.Driver]; res == nil || !res.nodeMode() {
			continue
		}
		o := &Objects{Claim: c.PVC, Volume: in.Volumes[c.PVC.Spec.VolumeName]}
		o.readNodes(ctx, once)
		for _, w := range o.Warnings {
			if !slices.Contains(in.Warnings, w) {
				in.warn("%s", w)
			}
		}
		in.NodeOwners[types.NamespacedName{Namespace: c.PVC.Namespace, Name: c.PVC.Name}] = o.Nodes
	}
}

// nodesOnce is a Reader that gets each Node once.
type nodesOnce struct {
	Reader
	nodes map[string]nodeRead
}

type nodeRead struct {
	node *v1.Node
	err  error
}

func (r nodesOnce) Node(ctx context.Context, name string) (*v1.Node, error) {
	got, ok := r.nodes[name]
	if !ok {
		got.node, got.err = r.Reader.Node(ctx, name)
		r.nodes[name] = got
	}
	return got.node, got.err
}
