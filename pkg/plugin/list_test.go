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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
)

// listed reads objs through a fake clientset and lists them at now.
func listed(t *testing.T, req Request, objs ...runtime.Object) Result {
	t.Helper()
	in, err := Read(context.Background(), kubetest.Wrap(fake.NewClientset(objs...)), req)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return List(in, now)
}

// line is what a test checks of an item.
func line(it Item) string {
	since := "-"
	if it.Since != nil {
		since = now.Sub(*it.Since).String()
	}
	return fmt.Sprintf("%s/%s %s %s %s %s %s", it.Namespace, it.Name, it.Operation, it.State, since, it.NextStepBy, it.Driver)
}

func lines(r Result) []string {
	var out []string
	for _, it := range r.Items {
		out = append(out, line(it))
	}
	return out
}

func TestList(t *testing.T) {
	all := []string{
		"apps/failing resize controller_error 3h0m0s resizer " + driver,
		"apps/foreign resize controller_in_progress 2h30m0s nobody " + other,
		"apps/big resize controller_infeasible 2h0m0s user " + driver,
		"web/node resize node_pending 1h0m0s kubelet " + driver,
		"apps/slow modify in_progress 30m0s resizer " + driver,
		"apps/gold modify pending - user " + driver,
		"apps/held resize waiting_in_use - user " + driver,
	}
	tests := []struct {
		name string
		req  Request
		want []string
	}{
		{name: "every namespace, each claim for the driver of its volume", req: Request{}, want: all},
		{name: "one namespace", req: Request{Namespace: "web"}, want: all[3:4]},
		{name: "one driver", req: Request{Driver: driver}, want: append(all[:1:1], all[2:]...)},
		{name: "the other driver", req: Request{Driver: other}, want: all[1:2]},
		{name: "a driver without claims", req: Request{Driver: "none.csi.example.com"}, want: nil},
		{name: "a namespace without claims", req: Request{Namespace: "empty"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := listed(t, tt.req, cluster()...)
			if got := lines(r); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if r.Items == nil {
				t.Error("Items is nil; want an empty list")
			}
			if len(r.Warnings) > 0 {
				t.Errorf("warnings: %q", r.Warnings)
			}
		})
	}
}

// TestSameAsExplain: each item says what explain says of the claim, read
// claim by claim with its own Gather.
func TestSameAsExplain(t *testing.T) {
	objs := cluster()
	r := listed(t, Request{}, objs...)
	reader := kubetest.Wrap(fake.NewClientset(objs...))
	for _, it := range r.Items {
		o, err := Gather(context.Background(), reader, Request{Namespace: it.Namespace, Claim: it.Name})
		if err != nil {
			t.Fatalf("Gather %s/%s: %v", it.Namespace, it.Name, err)
		}
		x := Explain(o, now)
		found := false
		for _, op := range x.Operations {
			if op.Operation != it.Operation {
				continue
			}
			found = true
			if op.State != it.State || op.NextStepBy != it.NextStepBy || op.Summary != it.Reason || op.SinceFrom != it.SinceFrom ||
				(op.Since == nil) != (it.Since == nil) || (op.Since != nil && !op.Since.Equal(*it.Since)) {
				t.Errorf("%s: list says %+v, explain %+v", line(it), it, op)
			}
		}
		if !found || x.Owner.Driver != it.Driver {
			t.Errorf("%s: explain's owner %+v, operations %+v", line(it), x.Owner, x.Operations)
		}
	}
}

func TestTargets(t *testing.T) {
	r := listed(t, Request{}, cluster()...)
	want := map[string]string{"failing": "3Gi", "big": "10Gi", "node": "2Gi", "held": "2Gi", "gold": "gold", "slow": "fast", "foreign": "2Gi"}
	for _, it := range r.Items {
		if it.Target != want[it.Name] || it.Volume != "pv-"+it.Namespace+"-"+it.Name {
			t.Errorf("%s: target %q, volume %q; want %q", line(it), it.Target, it.Volume, want[it.Name])
		}
	}
}

// TestUnreadLists: what cannot be read beyond the claims and PVs leaves a
// warning, and the items that may be wrong for it.
func TestUnreadLists(t *testing.T) {
	client := fake.NewClientset(cluster()...)
	client.PrependReactor("list", "pods", forbidden("pods"))
	client.PrependReactor("list", "events", forbidden("events"))
	in, err := Read(context.Background(), kubetest.Wrap(client), Request{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	r := List(in, now)
	text := strings.Join(r.Warnings, "\n")
	for _, want := range []string{
		`cannot read pods of namespace "apps": permission missing: list pods in namespace "apps"`, "pods not read", "waiting_in_use",
		`cannot read events of namespace "apps": permission missing: list events in namespace "apps"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
	for _, it := range r.Items {
		if it.Name == "held" {
			t.Errorf("without pods nor events, %s is listed", line(it))
		}
	}
}

func TestSort(t *testing.T) {
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	items := []Item{
		{Namespace: "b", Name: "x", Operation: "modify"},
		{Namespace: "b", Name: "x", Operation: "resize"},
		{Namespace: "a", Name: "z", Operation: "resize"},
		{Namespace: "b", Name: "a", Operation: "resize", Since: at(time.Hour)},
		{Namespace: "a", Name: "b", Operation: "modify", Since: at(time.Hour)},
		{Namespace: "c", Name: "c", Operation: "resize", Since: at(0)},
	}
	Sort(items)
	var got []string
	for _, it := range items {
		got = append(got, it.Namespace+"/"+it.Name+" "+it.Operation)
	}
	want := "c/c resize, a/b modify, b/a resize, a/z resize, b/x resize, b/x modify"
	if strings.Join(got, ", ") != want {
		t.Errorf("sorted: %s\nwant:   %s", strings.Join(got, ", "), want)
	}
}
