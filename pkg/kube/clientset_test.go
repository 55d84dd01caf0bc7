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

package kube

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// apiServer answers the requests of a test, recording their path and
// Accept header.
type apiServer struct {
	*httptest.Server
	paths, accepts []string
}

func newAPIServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) (*apiServer, *Clientset) {
	t.Helper()
	s := &apiServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.paths = append(s.paths, r.URL.Path)
		s.accepts = append(s.accepts, r.Header.Get("Accept"))
		handle(w, r)
	}))
	t.Cleanup(s.Close)
	config := &rest.Config{Host: s.URL, QPS: 100, Burst: 10}
	config.ContentType = runtime.ContentTypeProtobuf
	cs, err := NewForConfig(config)
	if err != nil {
		t.Fatalf("NewForConfig: %v", err)
	}
	return s, cs
}

func writeJSON(t *testing.T, w http.ResponseWriter, status int, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(obj); err != nil {
		t.Error(err)
	}
}

func TestServerResourcesForGroupVersion(t *testing.T) {
	tests := []struct {
		name, groupVersion, wantPath string
		served                       bool
	}{
		{name: "group served", groupVersion: "storage.k8s.io/v1", wantPath: "/apis/storage.k8s.io/v1", served: true},
		{name: "group not served", groupVersion: "storage.k8s.io/v1", wantPath: "/apis/storage.k8s.io/v1"},
		{name: "core group", groupVersion: "v1", wantPath: "/api/v1", served: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, cs := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				if !tc.served {
					writeJSON(t, w, http.StatusNotFound, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
						Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: http.StatusNotFound})
					return
				}
				writeJSON(t, w, http.StatusOK, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
					GroupVersion: tc.groupVersion, APIResources: []metav1.APIResource{{Name: "volumeattributesclasses"}}})
			})
			list, err := cs.Discovery().ServerResourcesForGroupVersion(tc.groupVersion)
			switch {
			case !tc.served && !apierrors.IsNotFound(err):
				t.Errorf("error = %v, want NotFound", err)
			case tc.served && err != nil:
				t.Errorf("error = %v", err)
			case tc.served && (len(list.APIResources) != 1 || list.APIResources[0].Name != "volumeattributesclasses" || list.GroupVersion != tc.groupVersion):
				t.Errorf("list = %+v", list)
			}
			if len(s.paths) != 1 || s.paths[0] != tc.wantPath || s.accepts[0] != runtime.ContentTypeJSON {
				t.Errorf("requests %v, Accept %v; want one GET of %s in JSON", s.paths, s.accepts, tc.wantPath)
			}
		})
	}
}

// TestTypedClientsAskForProtobuf checks the path of each group and that
// the client asks for protobuf, as the resizer's configuration says.
func TestTypedClientsAskForProtobuf(t *testing.T) {
	s, cs := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/persistentvolumeclaims/data"):
			writeJSON(t, w, http.StatusOK, corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{Kind: "PersistentVolumeClaim", APIVersion: "v1"},
				ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "ns"}})
		default:
			writeJSON(t, w, http.StatusOK, storagev1.StorageClassList{TypeMeta: metav1.TypeMeta{Kind: "StorageClassList", APIVersion: "storage.k8s.io/v1"},
				Items: []storagev1.StorageClass{{ObjectMeta: metav1.ObjectMeta{Name: "fast"}}}})
		}
	})
	ctx := context.Background()
	pvc, err := cs.CoreV1().PersistentVolumeClaims("ns").Get(ctx, "data", metav1.GetOptions{})
	if err != nil || pvc.Name != "data" {
		t.Fatalf("Get claim = %v, %v", pvc, err)
	}
	classes, err := cs.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil || len(classes.Items) != 1 || classes.Items[0].Name != "fast" {
		t.Fatalf("List classes = %v, %v", classes, err)
	}
	wantPaths := []string{"/api/v1/namespaces/ns/persistentvolumeclaims/data", "/apis/storage.k8s.io/v1/storageclasses"}
	for i, want := range wantPaths {
		if i >= len(s.paths) || s.paths[i] != want {
			t.Errorf("requests %v, want %v", s.paths, wantPaths)
			break
		}
		if !strings.HasPrefix(s.accepts[i], runtime.ContentTypeProtobuf) {
			t.Errorf("request %s: Accept %q, want protobuf first", want, s.accepts[i])
		}
	}
}

// TestOneRateLimiter checks that every group shares the clientset's rate
// limiter, as client-go's clientset does: --kube-api-qps is the budget of
// the whole client.
func TestOneRateLimiter(t *testing.T) {
	cs, err := NewForConfig(&rest.Config{Host: "https://10.0.0.1:6443", QPS: 1, Burst: 2})
	if err != nil {
		t.Fatal(err)
	}
	limiter := cs.core.GetRateLimiter()
	for _, rc := range []*rest.RESTClient{cs.storage, cs.coordination, cs.authentication} {
		if rc.GetRateLimiter() != limiter {
			t.Errorf("%s has a rate limiter of its own", rc.Get().URL())
		}
	}
	if _, err := NewForConfig(&rest.Config{Host: "https://10.0.0.1:6443", QPS: 1}); err == nil {
		t.Error("NewForConfig with QPS and no burst: no error")
	}
}

// TestSchemeKnowsTheResizersKinds checks the kinds the event recorder
// names and the options the clients encode.
func TestSchemeKnowsTheResizersKinds(t *testing.T) {
	for _, obj := range []runtime.Object{&corev1.PersistentVolumeClaim{}, &corev1.PersistentVolume{}, &storagev1.VolumeAttributesClass{}} {
		if _, _, err := Scheme.ObjectKinds(obj); err != nil {
			t.Errorf("%T: %v", obj, err)
		}
	}
	if _, err := ParameterCodec.EncodeParameters(&metav1.ListOptions{FieldSelector: "spec.nodeName=n"}, corev1.SchemeGroupVersion); err != nil {
		t.Errorf("encode list options: %v", err)
	}
}
