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

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
)

// Result is what list says: its JSON form (-o json) is meant for scripts,
// with stable field names; a field that does not apply is left out.
type Result struct {
	// At is when the list was made; ages are counted from it.
	At time.Time `json:"at"`
	// Namespace is the namespace listed (absent for every namespace),
	// Driver the one given with --driver.
	Namespace string `json:"namespace,omitempty"`
	Driver    string `json:"driver,omitempty"`
	// Items are the unfinished operations, the oldest first (see Sort);
	// empty, never null, when there are none.
	Items []Item `json:"items"`
	// Warnings are lists that could not be read, and what items miss.
	Warnings []string `json:"warnings,omitempty"`
}

// Item is one unfinished operation of a claim, with the fields of explain's
// Operation and Owner of the same names: Reason is its Summary, Volume the
// claim's PV, and Target the size (the recorded one, else the request) or
// the class (the recorded target, else the one asked for) it is for.
type Item struct {
	Namespace  string     `json:"namespace"`
	Name       string     `json:"name"`
	Operation  string     `json:"operation"`
	State      string     `json:"state"`
	Since      *time.Time `json:"since,omitempty"`
	SinceFrom  string     `json:"sinceFrom,omitempty"`
	NextStepBy string     `json:"nextStepBy"`
	Reason     string     `json:"reason"`
	Driver     string     `json:"driver"`
	Volume     string     `json:"volume"`
	Node       string     `json:"node,omitempty"`
	Target     string     `json:"target,omitempty"`
}

// Input is what Read read, the input of List: the Objects of each claim of
// the scope that may be unfinished (see candidateOf), as explain would
// read them, and the driver it is listed for.
type Input struct {
	Request  Request
	Claims   []candidate
	Warnings []string
}

type candidate struct {
	*Objects
	Driver string
}

// candidateOf returns the driver to list pvc (bound to pv) for, and whether
// that driver's resizer owns it (ownership.Check) and it may be unfinished:
// its status records so, or it asks for more (pods may hold it back).
func candidateOf(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, driver string) (string, bool) {
	if pv == nil {
		return "", false // the metrics do not count it either: the resizer waits for its PV
	}
	if driver = cmp.Or(driver, volumeDriver(pv)); driver == "" {
		return "", false
	}
	// The entries do not depend on the time, the settings or the pods.
	d := newFacts(&Objects{Claim: pvc, Volume: pv}, driver, time.Time{})
	request, ok := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	capacity, known := pvc.Status.Capacity[v1.ResourceStorage]
	if !d.resizing && !d.modifying && (!ok || known && request.Cmp(capacity) <= 0) {
		return "", false
	}
	verdict, _ := ownership.Check(pvc, pv, driver)
	return driver, verdict == ownership.Owned
}

// List lists the unfinished operations of in's claims at now, sorted (see
// Sort), with explain's states and words.
func List(in *Input, now time.Time) Result {
	r := Result{At: now.UTC().Truncate(time.Second), Namespace: in.Request.Namespace, Driver: in.Request.Driver,
		Items: []Item{}, Warnings: in.Warnings}
	for _, c := range in.Claims {
		d := newFacts(c.Objects, c.Driver, now)
		if !d.resizing && !d.modifying {
			continue
		}
		x := Explain(c.Objects, now)
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

// item is entry e of claim c, with what x says of its operation.
func item(c candidate, x Explanation, e decide.Entry) Item {
	it := Item{Namespace: c.Claim.Namespace, Name: c.Claim.Name, Operation: string(e.Operation), State: string(e.State),
		Driver: x.Owner.Driver, Volume: c.Claim.Spec.VolumeName, Node: x.Owner.Node, SinceFrom: string(e.SinceFrom)}
	if !e.Since.IsZero() {
		since := e.Since.UTC()
		it.Since = &since
	}
	for _, op := range x.Operations {
		if op.Operation == it.Operation {
			// One line: the summary may quote a driver's message.
			it.NextStepBy, it.Reason = op.NextStepBy, strings.Join(strings.Fields(op.Summary), " ")
		}
	}
	it.Target = cmp.Or(x.Claim.Allocated, x.Claim.Request)
	if e.Operation == decide.OpModify {
		it.Target = cmp.Or(x.Claim.ModifyTarget, x.Claim.Class)
	}
	return it
}

// Sort orders items the oldest first, those that record no time last, then
// by namespace, name, and resize before modify.
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
		// "resize" sorts after "modify": b before a puts it first.
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(b.Operation, a.Operation))
	})
}
