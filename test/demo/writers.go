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
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writers names who wrote after, the version of an object that followed
// before, from their managedFields. The API server names a field manager
// after its client's user agent (kubelet, csi-resizer); at a write that
// changes the object, the writer's entry alone is created, stamped anew (to
// the second) or given fields it did not have, while the entries of others
// at most lose fields. A write in the same second that sets only fields its
// writer had leaves no trace: then the writer is the manager stamped last,
// if that is one manager. "" when unknown.
func writers(before, after []metav1.ManagedFieldsEntry) string {
	old := map[string]metav1.ManagedFieldsEntry{}
	for _, e := range before {
		old[entryKey(e)] = e
	}
	var changed, newest []string
	var last *metav1.Time
	for _, e := range after {
		if o, ok := old[entryKey(e)]; !ok || !o.Time.Equal(e.Time) || gained(o.FieldsV1, e.FieldsV1) {
			changed = appendNew(changed, e.Manager)
		}
		switch {
		case e.Time == nil:
		case last == nil || last.Before(e.Time):
			last, newest = e.Time, []string{e.Manager}
		case last.Equal(e.Time):
			newest = appendNew(newest, e.Manager)
		}
	}
	if len(changed) == 0 {
		changed = newest
	}
	if len(changed) != 1 {
		return ""
	}
	return changed[0]
}

// gained reports whether after holds a field before does not.
func gained(before, after *metav1.FieldsV1) bool {
	had := fieldPaths(before)
	for p := range fieldPaths(after) {
		if !had[p] {
			return true
		}
	}
	return false
}

// fieldPaths are the paths of a FieldsV1 set: nested objects whose keys
// name a field ("f:status"), a list item ("k:{...}", "v:...", "i:0") or
// the node itself (".").
func fieldPaths(f *metav1.FieldsV1) map[string]bool {
	paths := map[string]bool{}
	var tree map[string]any
	if f == nil || json.Unmarshal(f.Raw, &tree) != nil {
		return paths
	}
	var walk func(prefix string, node map[string]any)
	walk = func(prefix string, node map[string]any) {
		for k, child := range node {
			p := prefix + "\x00" + k
			paths[p] = true
			if m, ok := child.(map[string]any); ok {
				walk(p, m)
			}
		}
	}
	walk("", tree)
	return paths
}

func entryKey(e metav1.ManagedFieldsEntry) string {
	return strings.Join([]string{e.Manager, string(e.Operation), e.APIVersion, e.Subresource}, "|")
}

func appendNew(names []string, name string) []string {
	if slices.Contains(names, name) {
		return names
	}
	return append(names, name)
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
