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

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// Request is what to explain or list: the claim Namespace/Claim (list: the
// claims of Namespace, "" for all), for the resizer of Driver (default: of
// its volume's), with its Lease in ResizerNamespace ("" for any).
type Request struct {
	Namespace, Claim, Driver, ResizerNamespace string
}

// Objects are what explain read about a claim: the input of Explain. A
// Missing field says that the object does not exist, an Unread one that it
// could not be read, and a warning says what that leaves out.
type Objects struct {
	Request             Request
	Claim               *v1.PersistentVolumeClaim
	Volume              *v1.PersistentVolume
	VolumeMissing       bool
	StorageClass        *storagev1.StorageClass
	StorageClassMissing bool
	// AttributesClasses are the classes the claim names that exist.
	AttributesClasses map[string]*storagev1.VolumeAttributesClass
	ClassesUnread     bool
	Events            []v1.Event
	// Pods are those of the claim's namespace.
	Pods []v1.Pod
	// Leases are those named after the driver's resizer; NodeLeases those
	// of its --node-deployment instances (options.NodeLeaseLabel), read
	// when there is none.
	Leases           []coordinationv1.Lease
	LeaseUnread      bool
	NodeLeases       []coordinationv1.Lease
	NodeLeasesUnread bool
	// Nodes are those the volume's node affinity names that exist, read
	// with NodeLeases.
	Nodes    map[string]*v1.Node
	Warnings []string
}

// Gather reads the objects of req through c. Only the claim and its PV are
// required (a *ReadError names a missing permission); any other object
// that cannot be read leaves a warning and a shorter explanation.
func Gather(ctx context.Context, c kube.Interface, req Request) (*Objects, error) {
	o := &Objects{Request: req, AttributesClasses: map[string]*storagev1.VolumeAttributesClass{}}
	var err error
	if o.Claim, err = get(ctx, resClaims, req.Namespace, req.Claim, c.CoreV1().PersistentVolumeClaims(req.Namespace).Get); err != nil {
		return nil, err
	}
	pvc := o.Claim
	if name := pvc.Spec.VolumeName; name != "" {
		pv, err := get(ctx, resVolumes, "", name, c.CoreV1().PersistentVolumes().Get)
		switch {
		case isNotFound(err):
			o.VolumeMissing = true
		case err != nil:
			return nil, err
		default:
			o.Volume = pv
		}
	}
	if name := ptr.Deref(pvc.Spec.StorageClassName, ""); name != "" {
		sc, err := get(ctx, resSCs, "", name, c.StorageV1().StorageClasses().Get)
		switch {
		case isNotFound(err):
			o.StorageClassMissing = true
		case err != nil:
			warn(&o.Warnings, "%v: whether the class allows expansion is not shown", err)
		default:
			o.StorageClass = sc
		}
	}
	// The field selector asks the API server for the claim's events only;
	// ofClaim still checks each, as a fake client ignores it.
	selector := fields.Set{"involvedObject.kind": "PersistentVolumeClaim", "involvedObject.name": pvc.Name}.AsSelector().String()
	events, err := list[v1.Event](ctx, access{verbList, resEvents, pvc.Namespace, ""}, metav1.ListOptions{FieldSelector: selector}, c.CoreV1().Events(pvc.Namespace).List)
	if err != nil {
		warn(&o.Warnings, "%v: the claim's events are not shown, and what they tell (a driver call in flight, pods holding an expansion back) is not known", err)
	}
	o.Events = ofClaim(events, pvc)
	owner := ownerOf(o)
	if !owner.Handled {
		return o, nil
	}
	for _, name := range classNames(pvc) {
		vac, err := get(ctx, resVACs, "", name, c.StorageV1().VolumeAttributesClasses().Get)
		switch {
		case isNotFound(err):
		case err != nil:
			o.ClassesUnread = true
			warn(&o.Warnings, "%v: whether the class exists, and for which driver, is not known", err)
		default:
			o.AttributesClasses[name] = vac
		}
	}
	if o.Pods, err = list[v1.Pod](ctx, access{verbList, resPods, pvc.Namespace, ""}, metav1.ListOptions{}, c.CoreV1().Pods(pvc.Namespace).List); err != nil {
		warn(&o.Warnings, "%v: which pods use the claim is not known", err)
	}
	o.readLease(ctx, c, owner.Driver)
	return o, nil
}

// warn adds a warning to warnings: what could not be read, and what that
// leaves out.
func warn(warnings *[]string, format string, args ...any) {
	*warnings = append(*warnings, fmt.Sprintf(format, args...))
}

// classNames are the distinct classes of the claim's spec, status and target.
func classNames(pvc *v1.PersistentVolumeClaim) []string {
	names := []string{ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""), ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, "")}
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		names = append(names, m.TargetVolumeAttributesClassName)
	}
	var out []string
	for _, name := range names {
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// readLease reads the Lease of driver's resizer, which publishes its
// settings, else the node Leases of its --node-deployment instances.
func (o *Objects) readLease(ctx context.Context, c kube.Interface, driver string) {
	name, ns := resizeroptions.LeaseName(driver), o.Request.ResizerNamespace
	leases := c.CoordinationV1().Leases(ns)
	var found []coordinationv1.Lease
	var err error
	if ns != "" {
		var l *coordinationv1.Lease
		if l, err = get(ctx, resLeases, ns, name, leases.Get); err == nil {
			found = []coordinationv1.Lease{*l}
		}
	} else {
		selector := fields.OneTermEqualSelector("metadata.name", name).String()
		found, err = list[coordinationv1.Lease](ctx, access{verbList, resLeases, ns, name}, metav1.ListOptions{FieldSelector: selector}, leases.List)
	}
	switch {
	case isNotFound(err):
		found = nil
	case err != nil:
		o.LeaseUnread = true
		hint := ""
		if ns == "" {
			hint = "; with --resizer-namespace, explain needs only get and list on leases in that namespace"
		}
		warn(&o.Warnings, "%v: whether a resizer runs for driver %q is not known%s", err, driver, hint)
		return
	}
	// A fake client, unlike the API server, ignores the field selector.
	o.Leases = slices.DeleteFunc(found, func(l coordinationv1.Lease) bool { return l.Name != name })
	if len(o.Leases) > 0 {
		return
	}
	selector := labels.SelectorFromSet(labels.Set{resizeroptions.NodeLeaseLabel: resizeroptions.NodeLeaseValue(driver)}).String()
	if o.NodeLeases, err = list[coordinationv1.Lease](ctx, access{verbList, resLeases, ns, ""}, metav1.ListOptions{LabelSelector: selector}, leases.List); err != nil {
		o.NodeLeasesUnread = true
		warn(&o.Warnings, "%v: whether the resizers of driver %q run with --node-deployment, one per node, is not known", err, driver)
	} else if len(o.NodeLeases) > 0 {
		o.readNodes(func(name string) (*v1.Node, error) { return get(ctx, resNodes, "", name, c.CoreV1().Nodes().Get) })
	}
}

// readNodes reads, with node, the Nodes the volume's node affinity names.
func (o *Objects) readNodes(node func(name string) (*v1.Node, error)) {
	if o.Volume == nil {
		return
	}
	o.Nodes = map[string]*v1.Node{}
	for _, name := range namedNodes(o.Volume) {
		n, err := node(name)
		switch {
		case isNotFound(err):
		case err != nil:
			warn(&o.Warnings, "%v: whether node %s's resizer handles the claim is not known", err, name)
		default:
			o.Nodes[name] = n
		}
	}
}
