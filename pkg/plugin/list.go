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
	"cmp"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
)

// Result is what list says: its JSON form (-o json) is meant for scripts,
// with stable field names; a field that does not apply is left out.
type Result struct {
	// At is when the list was made; ages are counted from it.
	At time.Time `json:"at"`
	// Namespace is the namespace listed; absent for every namespace.
	Namespace string `json:"namespace,omitempty"`
	// Driver is the driver given with --driver; absent when every claim
	// is listed for the driver of its volume.
	Driver string `json:"driver,omitempty"`
	// Items are the unfinished operations, the oldest first (see Sort);
	// empty, never null, when there are none.
	Items []Item `json:"items"`
	// Warnings are lists that could not be read, and what the items miss
	// because of it.
	Warnings []string `json:"warnings,omitempty"`
}

// Item is one unfinished operation of a claim.
type Item struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Operation is "resize" or "modify", State its state, as the metric
	// csi_resizer_claims labels them.
	Operation string `json:"operation"`
	State     string `json:"state"`
	// Since is when the claim entered State, from the transition time of
	// the condition SinceFrom; absent when no condition records it.
	Since     *time.Time `json:"since,omitempty"`
	SinceFrom string     `json:"sinceFrom,omitempty"`
	// NextStepBy is who owns the next step, as explain says it: resizer,
	// driver, kubelet, user, or nobody (no resizer runs).
	NextStepBy string `json:"nextStepBy"`
	// Reason is explain's summary of the state.
	Reason string `json:"reason"`
	// Driver is the CSI driver whose resizer handles the claim, Volume the
	// claim's PV.
	Driver string `json:"driver"`
	Volume string `json:"volume"`
	// Node is, when the driver's resizers run with --node-deployment, the
	// node whose instance handles the claim.
	Node string `json:"node,omitempty"`
	// Target is the size (resize: the recorded size, else the request) or
	// the class (modify: the recorded target, else the class asked for)
	// the operation is for.
	Target string `json:"target,omitempty"`
}

// Input is what Read read: the input of List.
type Input struct {
	Request Request
	// Claims are the claims of the scope that may be unfinished (see
	// candidateOf), owned by the driver they are listed for.
	Claims []candidate
	// Volumes are the PVs of Claims, by name.
	Volumes map[string]*v1.PersistentVolume
	// Pods and Events are those of the scope, by namespace and by claim;
	// PodsUnread and EventsUnread are true when they could not be read.
	Pods                     map[string][]v1.Pod
	Events                   map[types.NamespacedName][]v1.Event
	PodsUnread, EventsUnread bool
	AttributesClasses        map[string]*storagev1.VolumeAttributesClass
	AttributesClassesUnread  bool
	// Resizers are what explain read of each driver's resizer: its Lease,
	// or the node Leases of its instances.
	Resizers map[string]*Objects
	// NodeOwners are, for the claims of a driver whose resizers run with
	// --node-deployment, the Nodes their volumes name, read to tell which
	// node's instance handles each.
	NodeOwners map[types.NamespacedName]map[string]*v1.Node
	// Warnings say what could not be read and what that leaves out.
	Warnings []string
}

// candidate is a claim that may be unfinished, and the driver it is listed
// for.
type candidate struct {
	PVC    *v1.PersistentVolumeClaim
	Driver string
}

// candidateOf returns pvc, bound to pv (nil when it does not exist), as a
// claim to list for driver ("" for the driver of its volume), and whether
// it may be unfinished: its status records an unfinished operation (the
// decisions' entries, without the pods), or it requests more than its
// capacity (the only claims whose status records nothing that the resizer
// expands, and so that pods may hold back: waiting_in_use), and the
// driver's resizer owns it (ownership.Check, as the resizer and the
// metrics check it).
func candidateOf(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, driver string) (candidate, bool) {
	c := candidate{PVC: pvc, Driver: driver}
	if pv == nil {
		return c, false // the metrics do not count it either: the resizer waits for its PV
	}
	if c.Driver == "" {
		c.Driver = volumeDriver(pv)
	}
	if c.Driver == "" {
		return c, false
	}
	// The entries do not depend on the time, the settings or the pods.
	d := decisions(&Objects{Claim: pvc, Volume: pv}, c.Driver, defaultSettings(), nil, time.Time{})
	if !d.resizing && !d.modifying && !asksMore(pvc) {
		return c, false
	}
	verdict, _ := ownership.Check(pvc, pv, c.Driver)
	return c, verdict == ownership.Owned
}

// asksMore reports whether pvc requests more storage than its capacity.
func asksMore(pvc *v1.PersistentVolumeClaim) bool {
	request, ok := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	capacity, known := pvc.Status.Capacity[v1.ResourceStorage]
	return ok && (!known || request.Cmp(capacity) > 0)
}

// List lists the unfinished operations of in's claims at now, sorted (see
// Sort): their state is the decisions' (as Explain makes them), the words
// explain's.
func List(in *Input, now time.Time) Result {
	r := Result{At: now.UTC().Truncate(time.Second), Namespace: in.Request.Namespace, Driver: in.Request.Driver,
		Items: []Item{}, Warnings: in.Warnings}
	for _, c := range in.Claims {
		o := in.objects(c)
		d := newFacts(o, c.Driver, now).dec
		if !d.resizing && !d.modifying {
			continue
		}
		x := Explain(o, now)
		if d.resizing {
			r.Items = append(r.Items, item(c, x, d.resizeEntry))
		}
		if d.modifying {
			r.Items = append(r.Items, item(c, x, d.modifyEntry))
		}
	}
	Sort(r.Items)
	return r
}

// objects are what explain would read of c, taken from the lists read.
func (in *Input) objects(c candidate) *Objects {
	pvc := c.PVC
	o := &Objects{
		Request:           Request{Namespace: pvc.Namespace, Claim: pvc.Name, Driver: in.Request.Driver, ResizerNamespace: in.Request.ResizerNamespace},
		Claim:             pvc,
		Volume:            in.Volumes[pvc.Spec.VolumeName],
		AttributesClasses: in.AttributesClasses,
		ClassesUnread:     in.AttributesClassesUnread,
		Events:            ofClaim(in.Events[types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}], pvc),
		Pods:              in.Pods[pvc.Namespace],
		Nodes:             in.NodeOwners[types.NamespacedName{Namespace: pvc.Namespace, Name: pvc.Name}],
	}
	if r := in.Resizers[c.Driver]; r != nil {
		o.Leases, o.LeaseUnread = r.Leases, r.LeaseUnread
		o.NodeLeases, o.NodeLeasesUnread = r.NodeLeases, r.NodeLeasesUnread
	}
	return o
}

// item is entry e of claim c, with what explanation x says of its
// operation.
func item(c candidate, x Explanation, e decide.Entry) Item {
	it := Item{Namespace: c.PVC.Namespace, Name: c.PVC.Name, Operation: string(e.Operation), State: string(e.State),
		Driver: x.Owner.Driver, Volume: c.PVC.Spec.VolumeName, Node: x.Owner.Node, SinceFrom: string(e.SinceFrom)}
	if !e.Since.IsZero() {
		since := e.Since.UTC()
		it.Since = &since
	}
	for _, op := range x.Operations {
		if op.Operation == it.Operation {
			it.NextStepBy, it.Reason = op.NextStepBy, oneLine(op.Summary)
		}
	}
	it.Target = target(x.Claim, e.Operation)
	return it
}

// target is what the operation is for: the recorded size or class, else
// the one asked for.
func target(c Claim, op decide.Operation) string {
	if op == decide.OpModify {
		return cmp.Or(c.ModifyTarget, c.Class)
	}
	return cmp.Or(c.Allocated, c.Request)
}

// oneLine joins the lines of s, which may quote a driver's message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Sort orders items the oldest first; items that record no time last;
// then by namespace, name, and resize before modify.
func Sort(items []Item) {
	slices.SortStableFunc(items, func(a, b Item) int {
		switch {
		case a.Since == nil && b.Since != nil:
			return 1
		case a.Since != nil && b.Since == nil:
			return -1
		case a.Since != nil:
			if c := a.Since.Compare(*b.Since); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(opOrder(a.Operation), opOrder(b.Operation)))
	})
}

func opOrder(op string) int {
	if op == string(decide.OpResize) {
		return 0
	}
	return 1
}
