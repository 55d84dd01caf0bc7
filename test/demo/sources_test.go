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
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// entry is a managedFields entry of a status write by manager at second s
// after t0, owning fields (a FieldsV1 JSON object).
func entry(manager string, s int, fields string) metav1.ManagedFieldsEntry {
	at := metav1.NewTime(t0.Add(time.Duration(s) * time.Second))
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		Subresource: "status", Time: &at, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

const (
	capacity  = `{"f:status":{"f:capacity":{"f:storage":{}}}}`
	resizing  = `{"f:status":{"f:allocatedResources":{".":{},"f:storage":{}},"f:conditions":{"k:{\"type\":\"Resizing\"}":{".":{}}}}}`
	pending   = `{"f:status":{"f:allocatedResources":{".":{},"f:storage":{}},"f:conditions":{"k:{\"type\":\"FileSystemResizePending\"}":{".":{}}}}}`
	noStatus  = `{}`
	allocated = `{"f:status":{"f:allocatedResources":{".":{},"f:storage":{}}}}`
)

func TestWriters(t *testing.T) {
	tests := []struct {
		name          string
		before, after []metav1.ManagedFieldsEntry
		want          string
	}{
		{
			name:   "a new manager",
			before: []metav1.ManagedFieldsEntry{entry("demo", 0, capacity)},
			after:  []metav1.ManagedFieldsEntry{entry("demo", 0, capacity), entry("csi-resizer", 0, resizing)},
			want:   "csi-resizer",
		},
		{
			name:   "stamped anew; another manager lost fields to it",
			before: []metav1.ManagedFieldsEntry{entry("demo", 0, capacity), entry("csi-resizer", 1, allocated)},
			after:  []metav1.ManagedFieldsEntry{entry("demo", 0, noStatus), entry("csi-resizer", 1, allocated), entry("kubelet", 3, capacity)},
			want:   "kubelet",
		},
		{
			name:   "the same second, new fields",
			before: []metav1.ManagedFieldsEntry{entry("user", 1, noStatus), entry("csi-resizer", 1, resizing)},
			after:  []metav1.ManagedFieldsEntry{entry("user", 1, noStatus), entry("csi-resizer", 1, pending)},
			want:   "csi-resizer",
		},
		{
			name:   "the same second, the same fields: the manager stamped last",
			before: []metav1.ManagedFieldsEntry{entry("user", 1, noStatus), entry("csi-resizer", 2, allocated)},
			after:  []metav1.ManagedFieldsEntry{entry("user", 1, noStatus), entry("csi-resizer", 2, allocated)},
			want:   "csi-resizer",
		},
		{
			name:   "the same second, the same fields, two managers stamped last",
			before: []metav1.ManagedFieldsEntry{entry("user", 2, noStatus), entry("csi-resizer", 2, allocated)},
			after:  []metav1.ManagedFieldsEntry{entry("user", 2, noStatus), entry("csi-resizer", 2, allocated)},
			want:   "",
		},
		{
			name:   "no managedFields",
			before: nil,
			after:  nil,
			want:   "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := writers(tt.before, tt.after); got != tt.want {
				t.Errorf("writers() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEventSource(t *testing.T) {
	tests := []struct {
		name  string
		event v1.Event
		want  string
	}{
		{name: "old API with host", event: v1.Event{Source: v1.EventSource{Component: "kubelet", Host: "node-1"}}, want: "kubelet on node-1"},
		{name: "old API", event: v1.Event{Source: v1.EventSource{Component: "external-resizer x"}}, want: "external-resizer x"},
		{name: "new API", event: v1.Event{ReportingController: "kubelet", ReportingInstance: "node-1"}, want: "kubelet on node-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eventSource(&tt.event); got != tt.want {
				t.Errorf("eventSource() = %q, want %q", got, tt.want)
			}
		})
	}
}
