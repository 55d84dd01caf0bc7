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

package events

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
)

// event is a warning about claim ns/zonal named as client-go's recorder
// names it, with message.
func event(message string) *v1.Event {
	return &v1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "zonal.18eb05f4906d93fd", Namespace: "ns"},
		InvolvedObject: v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "ns", Name: "zonal", UID: "uid-zonal"},
		Reason:         "NodeAffinityConflict",
		Message:        message,
		Type:           v1.EventTypeWarning,
		Source:         v1.EventSource{Component: "external-resizer test.csi.example.com"},
	}
}

// apiServer is a fake clientset holding objs that generates names as the
// API server does.
func apiServer(objs ...runtime.Object) *fake.Clientset {
	client := fake.NewClientset(objs...)
	client.PrependReactor("create", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if e := a.(clienttesting.CreateAction).GetObject().(*v1.Event); e.Name == "" && e.GenerateName != "" {
			e.Name = e.GenerateName + "x7k2p"
		}
		return false, nil, nil
	})
	return client
}

func names(t *testing.T, client *fake.Clientset) []string {
	t.Helper()
	list, err := client.CoreV1().Events("ns").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Name+": "+e.Message)
	}
	return out
}

func TestDistinctFreeName(t *testing.T) {
	client := apiServer()
	got, err := Distinct(kubetest.Wrap(client).CoreV1()).Create(event("node a"))
	if err != nil || got.Name != "zonal.18eb05f4906d93fd" {
		t.Fatalf("Create = %v, %v; want the event under its own name", got, err)
	}
	if n := names(t, client); len(n) != 1 {
		t.Errorf("events %q, want 1", n)
	}
}

// TestDistinctNameTaken: two instances warn about one claim in the same
// nanosecond; the second warning gets a name of its own.
func TestDistinctNameTaken(t *testing.T) {
	client := apiServer(event("node a"))
	got, err := Distinct(kubetest.Wrap(client).CoreV1()).Create(event("node b"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name == "zonal.18eb05f4906d93fd" || !strings.HasPrefix(got.Name, "zonal.") || got.Message != "node b" {
		t.Errorf("Create = %s: %s; want node b's warning under a generated name zonal.*", got.Name, got.Message)
	}
	if n := names(t, client); len(n) != 2 {
		t.Errorf("events %q, want both warnings", n)
	}
}

// TestDistinctOwnRetry: a create whose answer was lost is tried again by
// the recorder; the event it wrote is returned, not written twice.
func TestDistinctOwnRetry(t *testing.T) {
	client := apiServer(event("node a"))
	got, err := Distinct(kubetest.Wrap(client).CoreV1()).Create(event("node a"))
	if err != nil || got.Name != "zonal.18eb05f4906d93fd" {
		t.Fatalf("Create = %v, %v; want the event already written", got, err)
	}
	if n := names(t, client); len(n) != 1 {
		t.Errorf("events %q, want 1", n)
	}
}

// TestDistinctLookupFails: when the holder of the name cannot be read, the
// sink answers as client-go's does (name taken) rather than risk a
// duplicate.
func TestDistinctLookupFails(t *testing.T) {
	client := apiServer(event("node a"))
	client.PrependReactor("list", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	if _, err := Distinct(kubetest.Wrap(client).CoreV1()).Create(event("node b")); !apierrors.IsAlreadyExists(err) {
		t.Errorf("Create: %v, want AlreadyExists", err)
	}
	creates := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "create" {
			creates++
		}
	}
	if creates != 1 {
		t.Errorf("%d creates, want 1 (no second try under another name)", creates)
	}
}

func TestDistinctOtherErrors(t *testing.T) {
	client := apiServer()
	client.PrependReactor("create", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(v1.Resource("events"), "", errors.New("no"))
	})
	if _, err := Distinct(kubetest.Wrap(client).CoreV1()).Create(event("node a")); !apierrors.IsForbidden(err) {
		t.Errorf("Create: %v, want Forbidden", err)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "list" {
			t.Errorf("a refused create read the events: %v", a)
		}
	}
}

func TestSource(t *testing.T) {
	if got, want := Source("ebs.csi.aws.com"), "external-resizer ebs.csi.aws.com"; got != want {
		t.Errorf("Source = %q, want upstream's %q", got, want)
	}
}
