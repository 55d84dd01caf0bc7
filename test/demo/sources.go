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

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// Who did what: the writer of an object's version, the sender of an event,
// the caller of a CSI method.

// writers names who wrote after, the version of an object that followed
// before, from their managedFields. The API server names a field manager
// after its client's user agent (kubelet, csi-resizer); at a write that
// changes the object, the writer's entry alone is created, stamped anew (to
// the second) or given fields it did not have, while the entries of others
// at most lose fields. A write in the same second that sets only fields its
// writer had leaves no trace: then the writer is the manager stamped last,
// if that is one manager. "" when unknown.
func writers(before, after []metav1.ManagedFieldsEntry) string {
	key := func(e metav1.ManagedFieldsEntry) string {
		return strings.Join([]string{e.Manager, string(e.Operation), e.APIVersion, e.Subresource}, "|")
	}
	old := map[string]metav1.ManagedFieldsEntry{}
	for _, e := range before {
		old[key(e)] = e
	}
	changed, newest := sets.New[string](), sets.New[string]()
	var last *metav1.Time
	for _, e := range after {
		if o, ok := old[key(e)]; !ok || !o.Time.Equal(e.Time) || !fieldPaths(o.FieldsV1).IsSuperset(fieldPaths(e.FieldsV1)) {
			changed.Insert(e.Manager)
		}
		switch {
		case e.Time == nil:
		case last == nil || last.Before(e.Time):
			last, newest = e.Time, sets.New(e.Manager)
		case last.Equal(e.Time):
			newest.Insert(e.Manager)
		}
	}
	if changed.Len() == 0 {
		changed = newest
	}
	if changed.Len() != 1 {
		return ""
	}
	return changed.UnsortedList()[0]
}

// fieldPaths are the paths of a FieldsV1 set: nested objects whose keys
// name a field ("f:status"), a list item ("k:{...}", "v:...", "i:0") or
// the node itself (".").
func fieldPaths(f *metav1.FieldsV1) sets.Set[string] {
	paths := sets.New[string]()
	var tree map[string]any
	if f == nil || json.Unmarshal(f.Raw, &tree) != nil {
		return paths
	}
	var walk func(prefix string, node map[string]any)
	walk = func(prefix string, node map[string]any) {
		for k, child := range node {
			p := prefix + "\x00" + k
			paths.Insert(p)
			if m, ok := child.(map[string]any); ok {
				walk(p, m)
			}
		}
	}
	walk("", tree)
	return paths
}

// byWriter is " (by <writer>)", or "" when the writer is unknown.
func byWriter(before, after []metav1.ManagedFieldsEntry) string {
	if w := writers(before, after); w != "" {
		return " (by " + w + ")"
	}
	return ""
}

// eventSource is who sent an event: the component and host of the old
// events API, or the reporting controller and instance of the new one.
func eventSource(e *v1.Event) string {
	component, host := e.Source.Component, e.Source.Host
	if component == "" {
		component, host = e.ReportingController, e.ReportingInstance
	}
	if host != "" {
		return component + " on " + host
	}
	return component
}

// shownMethods are the CSI calls the timeline shows, from the mock's call
// log. The controller service is called by the resizer alone, the node
// service by kubelet alone: the call says who made it.
var shownMethods = map[string]string{
	csidriver.MethodExpand:      "csi-resizer",
	csidriver.MethodModify:      "csi-resizer",
	csidriver.MethodNodeStage:   "kubelet",
	csidriver.MethodNodePublish: "kubelet",
	csidriver.MethodNodeExpand:  "kubelet",
}

// readCalls adds the calls the driver received since it last read its
// call log, at the time each ended.
func (d *demo) readCalls(out *lines) error {
	for _, method := range slices.Sorted(maps.Keys(shownMethods)) {
		all, err := d.driver.Calls(method)
		if err != nil {
			return err
		}
		for _, c := range all[min(d.callsRead[method], len(all)):] {
			out.add(c.End, "CSI     %s", describeCall(c))
		}
		d.callsRead[method] = len(all)
	}
	return nil
}

// describeCall is who made a call, its arguments and its answer, on one
// line.
func describeCall(c framework.Call) string {
	var args []string
	if c.RequiredBytes > 0 {
		args = append(args, sizeOf(c.RequiredBytes))
	}
	for _, k := range slices.Sorted(maps.Keys(c.Parameters)) {
		args = append(args, k+"="+c.Parameters[k])
	}
	call := c.Method
	if len(args) > 0 {
		call += "(" + strings.Join(args, ", ") + ")"
	}
	answer := []string{c.Code}
	if c.Code == "OK" && c.CapacityBytes > 0 {
		answer = append(answer, "capacity "+sizeOf(c.CapacityBytes))
	}
	if c.Code == "OK" && c.NodeExpansionRequired {
		answer = append(answer, "node expansion required")
	}
	return fmt.Sprintf("%s called %s: %s", shownMethods[c.Method], call, strings.Join(answer, ", "))
}

// sizeOf is a size as Kubernetes writes it (2Gi).
func sizeOf(n int64) string {
	return resource.NewQuantity(n, resource.BinarySI).String()
}
