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

package sidecar

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// heavy returns metadata with what withoutManagedFields drops and what it keeps.
func heavy(annotations map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:          "x",
		Namespace:     testNamespace,
		Labels:        map[string]string{"app": "db"},
		Annotations:   annotations,
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}},
	}
}

func TestWithoutManagedFields(t *testing.T) {
	const keep = "volume.kubernetes.io/storage-resizer"
	tests := []struct {
		name            string
		obj             any
		wantAnnotations map[string]string
	}{
		{
			name:            "claim: last-applied dropped, other annotations kept",
			obj:             &v1.PersistentVolumeClaim{ObjectMeta: heavy(map[string]string{slim.LastApplied: "{...}", keep: testDriver})},
			wantAnnotations: map[string]string{keep: testDriver},
		},
		{
			name:            "volume without annotations",
			obj:             &v1.PersistentVolume{ObjectMeta: heavy(nil)},
			wantAnnotations: nil,
		},
		{
			name:            "class with only last-applied",
			obj:             &storagev1.StorageClass{ObjectMeta: heavy(map[string]string{slim.LastApplied: "{...}"})},
			wantAnnotations: map[string]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withoutManagedFields(tc.obj)
			if err != nil {
				t.Fatalf("withoutManagedFields: %v", err)
			}
			if got != tc.obj {
				t.Errorf("withoutManagedFields returned another object")
			}
			m := got.(metav1.Object)
			if m.GetManagedFields() != nil {
				t.Errorf("managedFields = %v, want none", m.GetManagedFields())
			}
			if a := m.GetAnnotations(); !reflect.DeepEqual(a, tc.wantAnnotations) {
				t.Errorf("annotations = %#v, want %#v", a, tc.wantAnnotations)
			}
			if m.GetName() != "x" || m.GetLabels()["app"] != "db" {
				t.Errorf("withoutManagedFields changed name or labels: %q %v", m.GetName(), m.GetLabels())
			}
		})
	}
}

func TestWithoutManagedFieldsPassesThrough(t *testing.T) {
	pvc := &v1.PersistentVolumeClaim{ObjectMeta: heavy(map[string]string{slim.LastApplied: "{...}"})}
	tests := []struct {
		name string
		obj  any
	}{
		{name: "deleted final state unknown", obj: cache.DeletedFinalStateUnknown{Key: "default/x", Obj: pvc}},
		{name: "string", obj: "not an object"},
		{name: "nil", obj: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withoutManagedFields(tc.obj)
			if err != nil {
				t.Fatalf("withoutManagedFields: %v", err)
			}
			if !reflect.DeepEqual(got, tc.obj) {
				t.Errorf("withoutManagedFields(%#v) = %#v, want it unchanged", tc.obj, got)
			}
		})
	}
}

func TestInformers(t *testing.T) {
	tests := []struct {
		name                   string
		pods, attributeClasses bool
		node                   string
	}{
		{name: "in-use handling on watches pods", pods: true},
		{name: "in-use handling off watches no pods"},
		{name: "modification on watches VolumeAttributesClasses", attributeClasses: true},
		{name: "node deployment watches its node", node: "node-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			class := &storagev1.StorageClass{ObjectMeta: heavy(map[string]string{slim.LastApplied: "{...}", "keep": "me"})}
			class.Namespace = ""
			vac := &storagev1.VolumeAttributesClass{ObjectMeta: heavy(map[string]string{slim.LastApplied: "{...}", "keep": "me"}), DriverName: "d"}
			vac.Namespace = ""
			node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"a": "b"}}}
			client := fake.NewClientset(class, vac, node)
			var atStart *v1.Node
			if tc.node != "" {
				atStart = node
			}
			inf, err := newInformers(kubetest.Wrap(client), 0, tc.pods, tc.attributeClasses, atStart)
			if err != nil {
				t.Fatal(err)
			}
			if got := inf.pods != nil && inf.tracker != nil; got != tc.pods {
				t.Fatalf("pods watched = %v, want %v", got, tc.pods)
			}
			if got := inf.attributeClasses != nil; got != tc.attributeClasses {
				t.Fatalf("VolumeAttributesClasses watched = %v, want %v", got, tc.attributeClasses)
			}
			if got := inf.node != nil && inf.nodeWatcher != nil; got != (tc.node != "") {
				t.Fatalf("node watched = %v, want %v", got, tc.node != "")
			}
			stop := make(chan struct{})
			defer close(stop)
			inf.start(stop)
			var synced []cache.InformerSynced
			for _, i := range inf.all() {
				if i != nil {
					synced = append(synced, i.HasSynced)
				}
			}
			if !cache.WaitForCacheSync(stop, synced...) {
				t.Fatal("caches did not sync")
			}
			if tc.node != "" {
				if n := inf.nodeWatcher.Current(); n == nil || n.Name != tc.node || n.Labels["a"] != "b" {
					t.Errorf("node known after sync: %+v", n)
				}
			}
			lean := []cache.SharedIndexInformer{inf.classes}
			if inf.attributeClasses != nil {
				lean = append(lean, inf.attributeClasses)
			}
			for _, i := range lean {
				obj, ok, err := i.GetIndexer().GetByKey("x")
				if err != nil || !ok {
					t.Fatalf("class not cached: %v", err)
				}
				m, _ := meta.Accessor(obj)
				if m.GetManagedFields() != nil || m.GetAnnotations()[slim.LastApplied] != "" || m.GetAnnotations()["keep"] != "me" {
					t.Errorf("cached %T metadata has managed fields or last-applied, or lost annotations: %v", obj, m.GetAnnotations())
				}
			}
		})
	}
}
