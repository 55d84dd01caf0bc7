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
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// TestNodeLeaseRenewal: the renewal creates a missing Lease, then updates
// the copy it wrote without reading it; after a failed update (a conflict:
// someone else wrote) it reads the Lease again and takes it over; a Lease
// deleted meanwhile is created again.
func TestNodeLeaseRenewal(t *testing.T) {
	client := fake.NewClientset()
	failUpdates := 0
	client.PrependReactor("update", "leases", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failUpdates > 0 {
			failUpdates--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "n", nil)
		}
		return false, nil, nil
	})
	leases := kubetest.Wrap(client).CoordinationV1().Leases("ns")
	l := &nodeLease{leases: leases, name: "n", namespace: "ns", holder: "me", driver: "d.example.com",
		labels: map[string]string{"team": "storage"}, logger: klog.Background()}
	ctx := context.Background()

	steps := []struct {
		name   string
		before func()
		verbs  []string
	}{
		{name: "missing: created", verbs: []string{"get", "create"}},
		{name: "renewed from the copy written", verbs: []string{"update"}},
		{name: "a conflict: read again and taken over", before: func() {
			failUpdates = 1
			other := "other"
			lease, err := client.CoordinationV1().Leases("ns").Get(ctx, "n", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			lease.Spec.HolderIdentity = &other
			if err := client.Tracker().Update(coordinationv1.SchemeGroupVersion.WithResource("leases"), lease, "ns"); err != nil {
				t.Fatal(err)
			}
		}, verbs: []string{"update", "get", "update"}},
		{name: "deleted meanwhile: created again", before: func() {
			if err := client.Tracker().Delete(coordinationv1.SchemeGroupVersion.WithResource("leases"), "ns", "n"); err != nil {
				t.Fatal(err)
			}
		}, verbs: []string{"update", "get", "create"}},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		client.ClearActions()
		l.renew(ctx)
		var verbs []string
		for _, a := range client.Actions() {
			verbs = append(verbs, a.GetVerb())
		}
		if len(verbs) != len(s.verbs) {
			t.Fatalf("%s: calls %v, want %v", s.name, verbs, s.verbs)
		}
		for i := range verbs {
			if verbs[i] != s.verbs[i] {
				t.Fatalf("%s: calls %v, want %v", s.name, verbs, s.verbs)
			}
		}
		lease, err := client.CoordinationV1().Leases("ns").Get(ctx, "n", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if h := lease.Spec.HolderIdentity; h == nil || *h != "me" || lease.Spec.RenewTime == nil ||
			lease.Labels["team"] != "storage" || lease.Labels[options.NodeLeaseLabel] != options.NodeLeaseValue("d.example.com") {
			t.Errorf("%s: Lease %+v %+v, want held by me, renewed, with its labels", s.name, lease.Labels, lease.Spec)
		}
	}
}
