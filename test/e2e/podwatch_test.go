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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// resizerUser is who every resizer of the suite is to the API server
// (TestMain's kubeconfig).
const resizerUser = "system:serviceaccount:" + resizerNamespace + ":csi-resizer"

// TestPodWatch: pods are watched only for a driver that expands offline
// only, as the API server's audit log shows. A driver that expands online
// but answers FailedPrecondition (volume in use) is retried with backoff,
// and its claim finishes while the pod still runs once the driver lets it.
func TestPodWatch(t *testing.T) {
	tests := []struct {
		name    string
		offline bool
	}{
		{name: "online driver: no pod watch"},
		{name: "offline-only driver: pods watched", offline: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			from := time.Now()
			e := newEnv(t, framework.DriverOptions{OfflineOnly: tc.offline})
			e.volume("data", "1Gi")
			e.runningPod("app", "data")
			if tc.offline {
				e.grow("data", "2Gi")
				e.waitFact("data", heldInUse("[app]"))
				must(t, cluster.Admin.CoreV1().Pods(e.ns).Delete(e.ctx, "app", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))
			} else {
				must(t, e.driver.Script(framework.Answer{Code: "FailedPrecondition", Message: "volume is in use"}))
				e.grow("data", "2Gi")
				e.waitFact("data", fact{reason: events.ReasonResizeFailed, code: "FailedPrecondition"})
			}
			e.waitClaim("data", "the resize", finished("2Gi"))
			// The audit log shows whether pods are watched; the log line
			// that says so is not read.
			if got := e.podRequests(from); (len(got) > 0) != tc.offline {
				t.Errorf("the resizer's pod list/watch requests: %d (%v), want them only for an offline-only driver", len(got), verbs(got))
			}
		})
	}
}

// podRequests stops the resizer and returns its list and watch requests of
// pods received since from, read from the audit log. A watch is logged as
// complete only when it ends, so the resizer is stopped first, and the log
// is read once its watch of claims, which every resizer has, is there too.
func (e *env) podRequests(from time.Time) []framework.AuditEvent {
	e.t.Helper()
	must(e.t, e.resizer.Stop(30*time.Second))
	of := func(resource string) func(framework.AuditEvent) bool {
		return func(a framework.AuditEvent) bool {
			return a.User.Username == resizerUser && (a.Verb == "list" || a.Verb == "watch") && a.ObjectRef.Resource == resource
		}
	}
	err := wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		claims, err := cluster.AuditEvents(from, time.Now(), of("persistentvolumeclaims"))
		return err == nil && hasVerb(claims, "watch"), err
	})
	if err != nil {
		e.t.Fatalf("the resizer's watch of claims is not in the audit log %s: %v", cluster.AuditLog, err)
	}
	pods, err := cluster.AuditEvents(from, time.Now(), of("pods"))
	must(e.t, err)
	return pods
}

func hasVerb(events []framework.AuditEvent, verb string) bool {
	for _, a := range events {
		if a.Verb == verb {
			return true
		}
	}
	return false
}

func verbs(events []framework.AuditEvent) []string {
	out := make([]string, 0, len(events))
	for _, a := range events {
		out = append(out, a.Verb+" "+a.ObjectRef.Resource)
	}
	return out
}
