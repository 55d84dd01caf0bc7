//go:build e2e

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

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestEventNameTaken writes, with the resizer's own rights (rbac.yaml),
// the warning of an instance whose event name another instance took in the
// same nanosecond, as two --node-deployment instances did in
// TestNodeDeployment: the real API server generates it a name of its own,
// and both warnings are kept. A second write of the event that holds the
// name (a retry whose first answer was lost) writes nothing.
func TestEventNameTaken(t *testing.T) {
	ctx := context.Background()
	ns := fmt.Sprintf("e2e-%d", counter.Add(1))
	must(t, framework.CreateNamespace(ctx, cluster.Admin, ns))
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	must(t, err)
	client, err := kubernetes.NewForConfig(config)
	must(t, err)
	warning := func(node string) *v1.Event {
		return &v1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: "zonal.18eb05f4906d93fd", Namespace: ns},
			InvolvedObject: v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "zonal", UID: "uid-zonal"},
			Reason:         "NodeAffinityConflict",
			Message:        "node " + node + " can use the volume, but not alone",
			Type:           v1.EventTypeWarning,
			Source:         v1.EventSource{Component: "external-resizer e2e.csi.example.com"},
		}
	}
	sink := events.Distinct(kubetest.Wrap(client).CoreV1())
	a, err := sink.Create(warning("a"))
	must(t, err)
	b, err := sink.Create(warning("b"))
	must(t, err)
	if b.Name == a.Name || !strings.HasPrefix(b.Name, "zonal.") || !strings.Contains(b.Message, "node b") {
		t.Errorf("node b's warning written as %s (%q); want a generated name zonal.*, node a's being %s", b.Name, b.Message, a.Name)
	}
	again, err := sink.Create(warning("a"))
	must(t, err)
	if again.Name != a.Name || again.UID != a.UID {
		t.Errorf("node a's warning written again: %s (uid %s), want the one there, %s (uid %s)", again.Name, again.UID, a.Name, a.UID)
	}
	list, err := cluster.Admin.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	must(t, err)
	var got []string
	for _, e := range list.Items {
		got = append(got, e.Name+": "+e.Message)
	}
	if len(got) != 2 {
		t.Errorf("events of the claim:\n%s\nwant node a's and node b's warnings, once each", strings.Join(got, "\n"))
	}
}
