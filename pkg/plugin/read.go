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
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/pager"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Resources explain and list read, as RBAC names them.
const (
	resClaims  = "persistentvolumeclaims"
	resVolumes = "persistentvolumes"
	resSCs     = "storageclasses.storage.k8s.io"
	resVACs    = "volumeattributesclasses.storage.k8s.io"
	resEvents  = "events"
	resPods    = "pods"
	resLeases  = "leases.coordination.k8s.io"
	resNodes   = "nodes"
	verbGet    = "get"
	verbList   = "list"
)

// access is one call: a verb on a resource, in a namespace ("" for a
// cluster-scoped resource, or a list across all namespaces).
type access struct {
	verb, resource, namespace, name string
}

// ReadError is a read that failed: what was read, and why, in words that
// name the missing permission when the API server refused it.
type ReadError struct {
	access
	Err error
}

// Error says what could not be read (`persistentvolumeclaims "ns/data"`)
// and why; when forbidden, the permission the call needs (`get
// persistentvolumeclaims in namespace "ns"`).
func (e *ReadError) Error() string {
	what, scope := e.resource+" of all namespaces", " (cluster-wide)"
	switch {
	case e.name == "" && e.namespace != "":
		what = fmt.Sprintf("%s of namespace %q", e.resource, e.namespace)
	case e.name != "" && e.namespace == "":
		what = fmt.Sprintf("%s %q", e.resource, e.name)
	case e.name != "":
		what = fmt.Sprintf("%s %q", e.resource, e.namespace+"/"+e.name)
	}
	if e.namespace != "" {
		scope = fmt.Sprintf(" in namespace %q", e.namespace)
	}
	switch {
	case apierrors.IsNotFound(e.Err):
		return what + " not found"
	case apierrors.IsForbidden(e.Err):
		return fmt.Sprintf("cannot read %s: permission missing: %s (the API server said: %v)", what, e.verb+" "+e.resource+scope, e.Err)
	case apierrors.IsUnauthorized(e.Err):
		return fmt.Sprintf("cannot read %s: the API server does not accept your credentials (%v)", what, e.Err)
	}
	return fmt.Sprintf("read %s: %v", what, e.Err)
}

// Unwrap returns the API server's error.
func (e *ReadError) Unwrap() error { return e.Err }

// readError wraps err, when not nil, as a ReadError of a.
func readError(a access, err error) error {
	if err == nil {
		return nil
	}
	return &ReadError{access: a, Err: err}
}

// isNotFound reports whether err says the object does not exist.
func isNotFound(err error) bool {
	var re *ReadError
	return errors.As(err, &re) && apierrors.IsNotFound(re.Err)
}

// get gets the object name of resource in namespace through g; a failure
// is a ReadError.
func get[T any](ctx context.Context, resource, namespace, name string, g func(context.Context, string, metav1.GetOptions) (T, error)) (T, error) {
	obj, err := g(ctx, name, metav1.GetOptions{})
	return obj, readError(access{verbGet, resource, namespace, name}, err)
}

// list lists every item through l in pages of 500, as kubectl does, not to
// load the API server with one response; a failure is a ReadError of a.
func list[T any, P interface {
	*T
	runtime.Object
}, L runtime.Object](ctx context.Context, a access, opts metav1.ListOptions, l func(context.Context, metav1.ListOptions) (L, error)) ([]T, error) {
	var out []T
	p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		obj, err := l(ctx, o)
		if err != nil {
			return nil, err // not a typed nil
		}
		return obj, nil
	})
	err := p.EachListItem(ctx, opts, func(obj runtime.Object) error {
		item, ok := obj.(P)
		if !ok {
			return fmt.Errorf("list returned a %T", obj)
		}
		out = append(out, *item)
		return nil
	})
	if err != nil {
		return nil, readError(a, err)
	}
	return out, nil
}

// Read reads what List lists through c, each kind of object with one list
// for the whole scope. Only the claims and PVs are required (a *ReadError
// names a missing permission); the rest, read only when a claim may be
// unfinished, leaves a warning when it cannot be read.
func Read(ctx context.Context, c kube.Interface, req Request) (*Input, error) {
	in := &Input{Request: req}
	ns := req.Namespace
	pvcs, err := list[v1.PersistentVolumeClaim](ctx, access{verbList, resClaims, ns, ""}, metav1.ListOptions{}, c.CoreV1().PersistentVolumeClaims(ns).List)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(pvcs, func(pvc v1.PersistentVolumeClaim) bool { return pvc.Spec.VolumeName != "" }) {
		return in, nil
	}
	pvs, err := list[v1.PersistentVolume](ctx, access{verbList, resVolumes, "", ""}, metav1.ListOptions{}, c.CoreV1().PersistentVolumes().List)
	if err != nil {
		return nil, err
	}
	volumes := map[string]*v1.PersistentVolume{}
	for i := range pvs {
		volumes[pvs[i].Name] = &pvs[i]
	}
	for i := range pvcs {
		pvc := &pvcs[i]
		if driver, ok := candidateOf(pvc, volumes[pvc.Spec.VolumeName], req.Driver); ok {
			in.Claims = append(in.Claims, candidate{Driver: driver, Objects: &Objects{Claim: pvc, Volume: volumes[pvc.Spec.VolumeName],
				Request: Request{Namespace: pvc.Namespace, Claim: pvc.Name, Driver: req.Driver, ResizerNamespace: req.ResizerNamespace}}})
		}
	}
	if len(in.Claims) == 0 {
		return in, nil
	}
	pods, err := list[v1.Pod](ctx, access{verbList, resPods, ns, ""}, metav1.ListOptions{}, c.CoreV1().Pods(ns).List)
	if err != nil {
		warn(&in.Warnings, "%v: pods not read: which pods use the claims is not known, so a claim whose expansion pods hold back is not listed as waiting_in_use "+
			"(it is listed in the state its status records, or not at all when it records none), and the next step of node_pending is given to the user, not kubelet", err)
	}
	byNamespace := map[string][]v1.Pod{}
	for _, p := range pods {
		byNamespace[p.Namespace] = append(byNamespace[p.Namespace], p)
	}
	// The field selector asks the API server for the events of claims only;
	// ofClaim still checks each, as a fake client ignores it.
	selector := fields.OneTermEqualSelector("involvedObject.kind", "PersistentVolumeClaim").String()
	events, err := list[v1.Event](ctx, access{verbList, resEvents, ns, ""}, metav1.ListOptions{FieldSelector: selector}, c.CoreV1().Events(ns).List)
	if err != nil {
		warn(&in.Warnings, "%v: the claims' events are not read, and what they tell is not known: whether the driver is being called now "+
			"(controller_in_progress and modify in_progress are given to the resizer), and which expansions pods hold back (waiting_in_use)", err)
	}
	byClaim := map[types.NamespacedName][]v1.Event{}
	for _, e := range events {
		key := types.NamespacedName{Namespace: e.InvolvedObject.Namespace, Name: e.InvolvedObject.Name}
		byClaim[key] = append(byClaim[key], e)
	}
	// The VolumeAttributesClasses, when a claim names one; an API server that
	// does not serve them has none.
	classes, unread := map[string]*storagev1.VolumeAttributesClass{}, false
	if slices.ContainsFunc(in.Claims, func(c candidate) bool { return len(classNames(c.Claim)) > 0 }) {
		found, err := list[storagev1.VolumeAttributesClass](ctx, access{verbList, resVACs, "", ""}, metav1.ListOptions{}, c.StorageV1().VolumeAttributesClasses().List)
		if err != nil && !isNotFound(err) {
			warn(&in.Warnings, "%v: whether the classes the claims ask for exist, and for which driver, is not known", err)
			unread = true
		}
		for i := range found {
			classes[found[i].Name] = &found[i]
		}
	}
	resizers := map[string]*Objects{}
	for _, cl := range in.Claims {
		pvc := cl.Claim
		cl.Pods, cl.AttributesClasses, cl.ClassesUnread = byNamespace[pvc.Namespace], classes, unread
		cl.Events = ofClaim(byClaim[types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}], pvc)
		if resizers[cl.Driver] == nil {
			res := &Objects{Request: Request{ResizerNamespace: req.ResizerNamespace}}
			res.readLease(ctx, c, cl.Driver)
			resizers[cl.Driver] = res
			in.Warnings = append(in.Warnings, res.Warnings...)
		}
		res := resizers[cl.Driver]
		cl.Leases, cl.LeaseUnread, cl.NodeLeases, cl.NodeLeasesUnread = res.Leases, res.LeaseUnread, res.NodeLeases, res.NodeLeasesUnread
	}
	// For each claim of a driver whose resizers run with --node-deployment,
	// the Nodes its volume's node affinity names, as explain reads them:
	// each Node read once, each warning said once.
	nodes, nodeErrs := map[string]*v1.Node{}, map[string]error{}
	for _, cl := range in.Claims {
		if !cl.nodeMode() {
			continue
		}
		cl.readNodes(func(name string) (*v1.Node, error) {
			if _, ok := nodes[name]; !ok {
				nodes[name], nodeErrs[name] = get(ctx, resNodes, "", name, c.CoreV1().Nodes().Get)
			}
			return nodes[name], nodeErrs[name]
		})
		for _, w := range cl.Warnings {
			if !slices.Contains(in.Warnings, w) {
				in.Warnings = append(in.Warnings, w)
			}
		}
		cl.Warnings = nil
	}
	return in, nil
}
