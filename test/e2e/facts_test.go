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

// What the suite asserts on rather than the English of the resizer's
// messages and logs (issue 28): an event's reason and the failed call's
// gRPC code it carries, a condition's reason, each replica's own metrics,
// and the API server's audit log.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// fact is an event of a claim: its reason; code, the gRPC code of the
// failed driver call that the event carries in events.AnnotationCode ("",
// the event carries none); and words its message holds, only upstream's
// exact texts or what the test chose (names, the driver's own message).
type fact struct {
	reason, code string
	words        []string
}

func (f fact) String() string {
	return fmt.Sprintf("%s [%s=%q] %q", f.reason, events.AnnotationCode, f.code, f.words)
}

func (f fact) of(ev v1.Event) bool {
	return ev.Reason == f.reason && ev.Annotations[events.AnnotationCode] == f.code &&
		!slices.ContainsFunc(f.words, func(w string) bool { return !strings.Contains(ev.Message, w) })
}

// heldInUse is the warning of an expansion held back while pods use the
// claim of a driver that expands offline only, in upstream's words.
func heldInUse(pods string) fact {
	return fact{reason: events.ReasonResizeFailed, words: []string{"only supports offline expansion and volume is currently in-use by pod(s) " + pods}}
}

// claimEvents are the events of the claim.
func (e *env) claimEvents(claim string) []v1.Event {
	e.t.Helper()
	list, err := cluster.Admin.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + claim})
	must(e.t, err)
	return list.Items
}

// waitFact waits until the claim has an event of f.
func (e *env) waitFact(claim string, f fact) {
	e.t.Helper()
	var evs []v1.Event
	err := wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		evs = e.claimEvents(claim)
		return slices.ContainsFunc(evs, f.of), nil
	})
	if err != nil {
		var got []string
		for _, ev := range evs {
			got = append(got, fmt.Sprintf("%s [%s=%q]: %s", ev.Reason, events.AnnotationCode, ev.Annotations[events.AnnotationCode], ev.Message))
		}
		e.t.Fatalf("no event %s on %s; events:\n%s", f, claim, strings.Join(got, "\n"))
	}
}

// conditionReason is the reason of the claim's condition of type t, and
// "-" without one.
func conditionReason(pvc *v1.PersistentVolumeClaim, t v1.PersistentVolumeClaimConditionType) string {
	for _, c := range pvc.Status.Conditions {
		if c.Type == t {
			return c.Reason
		}
	}
	return "-"
}

// replica is a resizer run with --http-endpoint=127.0.0.1:port.
type replica struct {
	*framework.Process
	port int
}

// leads reports whether r serves leader_election_master_status 1.
func (e *env) leads(r replica) bool {
	m, err := framework.ScrapeMetrics(e.ctx, "127.0.0.1:"+strconv.Itoa(r.port))
	if err != nil {
		return false
	}
	v, ok := framework.MetricValue(m, "leader_election_master_status", nil)
	return ok && v == 1
}

// waitLeader waits until one of the replicas says it leads and returns it
// first; both saying so at once is an error.
func (e *env) waitLeader(a, b replica) (leader, standby replica) {
	e.t.Helper()
	e.waitFor("a leader", func() bool {
		switch aLeads, bLeads := e.leads(a), e.leads(b); {
		case aLeads && bLeads:
			e.t.Errorf("both replicas serve leader_election_master_status 1")
		case aLeads:
			leader, standby = a, b
			return true
		case bLeads:
			leader, standby = b, a
			return true
		}
		return false
	})
	return leader, standby
}

// refused returns the requests by the user of the ServiceAccount named
// account received since from that the API server answered 403 and match.
func refused(account string, from time.Time, match func(framework.AuditEvent) bool) ([]framework.AuditEvent, error) {
	user := framework.ServiceAccount(resizerNamespace, account).User
	return cluster.AuditEvents(from, time.Now(), func(a framework.AuditEvent) bool {
		return a.User.Username == user && a.ResponseStatus.Code == 403 && match(a)
	})
}
