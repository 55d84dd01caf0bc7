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
	"k8s.io/utils/ptr"

	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// Request is what to explain or list.
type Request struct {
	// Namespace and Claim name the claim to explain; list lists the claims
	// of Namespace, "" for every namespace.
	Namespace, Claim string
	// Driver, when set, is the driver whose resizer the claims are
	// explained for; by default, each for the driver of its volume.
	Driver string
	// ResizerNamespace is the namespace of the resizers' Leases; "" looks
	// in every namespace.
	ResizerNamespace string
}

// Resources explain reads, as RBAC names them.
const (
	resClaims   = "persistentvolumeclaims"
	resVolumes  = "persistentvolumes"
	resSCs      = "storageclasses.storage.k8s.io"
	resVACs     = "volumeattributesclasses.storage.k8s.io"
	resEvents   = "events"
	resPods     = "pods"
	resLeases   = "leases.coordination.k8s.io"
	resNodes    = "nodes"
	verbGet     = "get"
	verbList    = "list"
	noNamespace = ""
)

// Objects are what explain read about a claim: the input of Explain.
type Objects struct {
	Request Request
	Claim   *v1.PersistentVolumeClaim
	// Volume is nil when the claim names none or it does not exist;
	// VolumeMissing tells the latter.
	Volume        *v1.PersistentVolume
	VolumeMissing bool
	// StorageClass is nil when the claim names none or it could not be
	// read; StorageClassMissing is true when it does not exist.
	StorageClass        *storagev1.StorageClass
	StorageClassMissing bool
	// AttributesClasses are the VolumeAttributesClasses the claim names
	// (spec, current and recorded target) that exist, by name.
	AttributesClasses map[string]*storagev1.VolumeAttributesClass
	// ClassesUnread is true when a class could not be read: whether it
	// exists is then unknown.
	ClassesUnread bool
	// Events are the claim's events.
	Events []v1.Event
	// Pods are the pods of the claim's namespace.
	Pods []v1.Pod
	// Leases are the Leases named after the driver's resizer; LeaseUnread
	// is true when they could not be read.
	Leases      []coordinationv1.Lease
	LeaseUnread bool
	// NodeLeases are the Leases of the driver's --node-deployment
	// instances, one per node (options.NodeLeaseLabel), read when no leader
	// Lease exists; NodeLeasesUnread is true when they could not be read.
	NodeLeases       []coordinationv1.Lease
	NodeLeasesUnread bool
	// Nodes are the Nodes that the volume's node affinity names, read with
	// NodeLeases, by name; those that do not exist are left out.
	Nodes map[string]*v1.Node
	// Warnings say what could not be read and what that leaves out.
	Warnings []string
}

// Gather reads the objects of req through r. Only the claim and its PV are
// required: without them nothing can be said, and the error says why (a
// *ReadError names the missing permission). Every other object that cannot
// be read leaves a warning and a shorter explanation.
func Gather(ctx context.Context, r Reader, req Request) (*Objects, error) {
	o := &Objects{Request: req, AttributesClasses: map[string]*storagev1.VolumeAttributesClass{}}
	var err error
	o.Claim, err = r.Claim(ctx, req.Namespace, req.Claim)
	if err != nil {
		return nil, readError(access{verbGet, resClaims, req.Namespace, req.Claim}, err)
	}
	if err := o.readVolume(ctx, r); err != nil {
		return nil, err
	}
	o.readStorageClass(ctx, r)
	o.readEvents(ctx, r)
	if owner := ownerOf(o); owner.Handled {
		o.readAttributesClasses(ctx, r)
		o.readPods(ctx, r)
		o.readLease(ctx, r, owner.Driver)
	}
	return o, nil
}

func (o *Objects) warn(format string, args ...any) {
	o.Warnings = append(o.Warnings, fmt.Sprintf(format, args...))
}

func (o *Objects) readVolume(ctx context.Context, r Reader) error {
	name := o.Claim.Spec.VolumeName
	if name == "" {
		return nil
	}
	pv, err := r.Volume(ctx, name)
	err = readError(access{verbGet, resVolumes, noNamespace, name}, err)
	switch {
	case isNotFound(err):
		o.VolumeMissing = true
		return nil
	case err != nil:
		return err
	}
	o.Volume = pv
	return nil
}

func (o *Objects) readStorageClass(ctx context.Context, r Reader) {
	name := ptr.Deref(o.Claim.Spec.StorageClassName, "")
	if name == "" {
		return
	}
	sc, err := r.StorageClass(ctx, name)
	err = readError(access{verbGet, resSCs, noNamespace, name}, err)
	switch {
	case isNotFound(err):
		o.StorageClassMissing = true
	case err != nil:
		o.warn("%v: whether the class allows expansion is not shown", err)
	default:
		o.StorageClass = sc
	}
}

func (o *Objects) readEvents(ctx context.Context, r Reader) {
	events, err := r.Events(ctx, o.Claim.Namespace, o.Claim.Name)
	if err != nil {
		o.warn("%v: the claim's events are not shown, and what they tell (a driver call in flight, pods holding an expansion back) is not known", readError(access{verbList, resEvents, o.Claim.Namespace, ""}, err))
		return
	}
	o.Events = ofClaim(events, o.Claim)
}

// readAttributesClasses reads the classes the claim names: the spec's, the
// current one and the recorded target.
func (o *Objects) readAttributesClasses(ctx context.Context, r Reader) {
	for _, name := range classNames(o.Claim) {
		vac, err := r.AttributesClass(ctx, name)
		err = readError(access{verbGet, resVACs, noNamespace, name}, err)
		switch {
		case isNotFound(err):
		case err != nil:
			o.ClassesUnread = true
			o.warn("%v: whether the class exists, and for which driver, is not known", err)
		default:
			o.AttributesClasses[name] = vac
		}
	}
}

// classNames are the distinct classes the claim names.
func classNames(pvc *v1.PersistentVolumeClaim) []string {
	var names []string
	add := func(name string) {
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	add(ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""))
	add(ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, ""))
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		add(m.TargetVolumeAttributesClassName)
	}
	return names
}

func (o *Objects) readPods(ctx context.Context, r Reader) {
	pods, err := r.Pods(ctx, o.Claim.Namespace)
	if err != nil {
		o.warn("%v: which pods use the claim is not known", readError(access{verbList, resPods, o.Claim.Namespace, ""}, err))
		return
	}
	o.Pods = pods
}

// readLease reads the Lease of driver's resizer, which publishes its
// settings, else the node Leases of its --node-deployment instances.
func (o *Objects) readLease(ctx context.Context, r Reader, driver string) {
	name, ns := resizeroptions.LeaseName(driver), o.Request.ResizerNamespace
	leases, err := r.Leases(ctx, ns, name)
	verb := verbGet
	if ns == "" {
		verb = verbList
	}
	err = readError(access{verb, resLeases, ns, name}, err)
	switch {
	case isNotFound(err):
		leases = nil
	case err != nil:
		o.LeaseUnread = true
		hint := ""
		if ns == "" {
			hint = "; with --resizer-namespace, explain needs only get and list on leases in that namespace"
		}
		o.warn("%v: whether a resizer runs for driver %q is not known%s", err, driver, hint)
		return
	}
	o.Leases = ofName(leases, name)
	if len(o.Leases) == 0 {
		o.readNodeInstances(ctx, r, driver)
	}
}
