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
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// growing is a claim whose expansion is the resizer's next step.
func growing() []runtime.Object {
	pvc := claim("2Gi", "1Gi")
	return []runtime.Object{pvc, volume(pvc, "1Gi")}
}

func TestExplainResizer(t *testing.T) {
	released := lease(now.Add(-time.Minute))
	released.Spec.HolderIdentity = nil
	tests := []struct {
		name   string
		req    Request
		lease  *coordinationv1.Lease
		status string
		by     string
		says   string
	}{{
		name: "running", lease: freshLease(), status: ResizerRunning, by: ByResizer,
		says: "running: csi-ebs-controller-0_1a2b3c4d leads (Lease kube-system/external-resizer-ebs-csi-example-com, renewed 2s ago)",
	}, {
		name: "running, its namespace given", req: Request{ResizerNamespace: "kube-system"}, lease: freshLease(), status: ResizerRunning, by: ByResizer,
		says: "running: csi-ebs-controller-0_1a2b3c4d leads",
	}, {
		name: "no lease", status: ResizerNotRunning, by: ByNobody,
		says: "no resizer is running for driver ebs.csi.example.com: there is no Lease external-resizer-ebs-csi-example-com in any namespace",
	}, {
		name: "no lease in the namespace given", req: Request{ResizerNamespace: "storage"}, lease: freshLease(), status: ResizerNotRunning, by: ByNobody,
		says: `there is no Lease external-resizer-ebs-csi-example-com in namespace "storage"`,
	}, {
		name: "a stale lease", lease: lease(now.Add(-time.Minute)), status: ResizerNotRunning, by: ByNobody,
		says: "no resizer is running for driver ebs.csi.example.com: csi-ebs-controller-0_1a2b3c4d holds the Lease kube-system/external-resizer-ebs-csi-example-com but last renewed it 1m ago",
	}, {
		name: "a released lease", lease: released, status: ResizerNotRunning, by: ByNobody,
		says: "no replica holds its Lease kube-system/external-resizer-ebs-csi-example-com (the last leader released it when it stopped)",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := growing()
			if tc.lease != nil {
				objs = append(objs, tc.lease)
			}
			x := explainObjects(t, tc.req, objs...)
			if x.Resizer == nil || x.Resizer.Status != tc.status || !strings.Contains(x.Resizer.Summary, tc.says) {
				t.Fatalf("resizer = %+v, want %s saying %q", x.Resizer, tc.status, tc.says)
			}
			op := operation(t, x, "resize")
			if op.NextStepBy != tc.by {
				t.Errorf("next step by %s, want %s", op.NextStepBy, tc.by)
			}
			if tc.by == ByNobody && !strings.HasPrefix(op.Next, "No resizer is running for driver ebs.csi.example.com, so nothing happens until one runs; then the resizer records") {
				t.Errorf("next = %q", op.Next)
			}
		})
	}
}

func TestExplainLeaseForbidden(t *testing.T) {
	client := fake.NewClientset(growing()...)
	client.PrependReactor("list", "leases", forbidden("leases"))
	o, err := Gather(context.Background(), kubetest.Wrap(client), withClaim(Request{}))
	if err != nil {
		t.Fatal(err)
	}
	x := Explain(o, now)
	if x.Resizer.Status != ResizerUnknown || operation(t, x, "resize").NextStepBy != ByResizer {
		t.Errorf("resizer %+v, next step by %s; want unknown, and the step the resizer's", x.Resizer, operation(t, x, "resize").NextStepBy)
	}
	if len(x.Warnings) != 1 || !strings.Contains(x.Warnings[0], "permission missing: list leases.coordination.k8s.io (cluster-wide)") ||
		!strings.Contains(x.Warnings[0], "--resizer-namespace") {
		t.Errorf("warnings = %q, want one naming the permission and --resizer-namespace", x.Warnings)
	}
}

// forbidden answers every call on resource as the API server does to an
// identity without the permission.
func forbidden(resource string) clienttesting.ReactionFunc {
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", errNoRights)
	}
}

var errNoRights = apierrors.NewBadRequest("user cannot do that")

// TestUnknowns: "Not visible from here" lists only what is unknown, and
// says why the resizer's settings are, without claiming to have failed to
// read what does not exist.
func TestUnknowns(t *testing.T) {
	idle := claim("1Gi", "1Gi")
	published := func() *coordinationv1.Lease { return publishing(freshLease(), func(*resizeroptions.Published) {}) }
	tests := []struct {
		name        string
		objs        []runtime.Object
		react       func(*fake.Clientset)
		says, never []string
	}{{
		name:  "nothing to do, settings read: nothing unknown but what the API never shows",
		objs:  []runtime.Object{idle, volume(idle, "1Gi"), published()},
		never: []string{"When exactly the resizer retries", "The resizer's settings"},
	}, {
		name: "a growth: when exactly is unknown",
		objs: append(growing(), published()),
		says: []string{"When exactly the resizer retries"}, never: []string{"The resizer's settings"},
	}, {
		name: "no Lease",
		objs: growing(),
		says: []string{"The resizer's settings: there is no Lease of the resizer, which would publish them, so explain assumes the defaults",
			"A resizer started without --leader-election holds no Lease"},
		never: []string{"could not read"},
	}, {
		name: "a Lease of a resizer that does not publish its settings",
		objs: append(growing(), freshLease()),
		says: []string{"The resizer's settings: the resizer's Lease kube-system/" + freshLease().Name + " does not publish them (annotation csi-resizer.io/settings: " +
			"the resizer is older than this plugin, or upstream's), so explain assumes the defaults (--retry-interval-start=1s, --retry-interval-max=5m0s, RecoverVolumeExpansionFailure on)"},
		never: []string{"could not read", "--leader-election"},
	}, {
		name: "the Lease forbidden",
		objs: growing(),
		react: func(c *fake.Clientset) {
			c.PrependReactor("list", "leases", forbidden("leases"))
		},
		says:  []string{"The resizer's settings: explain could not read the resizer's Lease"},
		never: []string{"--leader-election"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.objs...)
			if tc.react != nil {
				tc.react(client)
			}
			o, err := Gather(context.Background(), kubetest.Wrap(client), withClaim(Request{}))
			if err != nil {
				t.Fatal(err)
			}
			unknowns := strings.Join(Explain(o, now).Unknowns, "\n")
			for _, s := range tc.says {
				if !strings.Contains(unknowns, s) {
					t.Errorf("unknowns lack %q:\n%s", s, unknowns)
				}
			}
			for _, s := range tc.never {
				if strings.Contains(unknowns, s) {
					t.Errorf("unknowns say %q:\n%s", s, unknowns)
				}
			}
		})
	}
}

func TestSettingsFromTheLease(t *testing.T) {
	published := defaultSettings()
	published.RetryIntervalStart, published.Recovery = resizeroptions.Duration(2*time.Second), false
	published.From = "Lease kube-system/" + freshLease().Name
	broken := freshLease()
	broken.Annotations = map[string]string{resizeroptions.SettingsAnnotation: `{"retryIntervalMax":"soon"}`}
	tests := []struct {
		name   string
		lease  *coordinationv1.Lease
		want   Settings
		unread string
	}{
		{name: "no Lease", want: defaultSettings()},
		{name: "a Lease without the annotation: an older resizer", lease: freshLease(), want: defaultSettings(),
			unread: "does not publish them (annotation csi-resizer.io/settings: the resizer is older than this plugin, or upstream's)"},
		{name: "published", lease: publishing(freshLease(), func(s *resizeroptions.Published) {
			s.RetryIntervalStart, s.Recovery = resizeroptions.Duration(2*time.Second), false
		}),
			want: published},
		{name: "unreadable", lease: broken, want: defaultSettings(), unread: "does not read (time: invalid duration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, unread := settingsOf(tc.lease)
			if got != tc.want || !strings.Contains(unread, tc.unread) || (tc.unread == "") != (unread == "") {
				t.Errorf("settings = %+v, %q; want %+v, %q", got, unread, tc.want, tc.unread)
			}
		})
	}
}

func TestExplainReadsTheLeaseSettings(t *testing.T) {
	pvc := claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible))
	lease := publishing(freshLease(), func(s *resizeroptions.Published) { s.RetryIntervalMax = resizeroptions.Duration(10 * time.Minute) })
	x := explainObjects(t, Request{}, pvc, volume(pvc, "1Gi"), lease)
	if got := x.Resizer.Settings; got.From != "Lease kube-system/"+lease.Name || got.RetryIntervalMax != resizeroptions.Duration(10*time.Minute) {
		t.Errorf("settings = %+v, want those of the Lease", got)
	}
	if op := operation(t, x, "resize"); !strings.Contains(op.Next, "at most every 10m0s") {
		t.Errorf("next = %q, want the Lease's --retry-interval-max", op.Next)
	}
	for _, u := range x.Unknowns {
		if strings.Contains(u, "assumes the defaults") {
			t.Errorf("unknowns say the defaults are assumed: %q", u)
		}
	}
}

func TestExplainReadsTheNodeLeaseSettings(t *testing.T) {
	pvc := claim("2Gi", "1Gi")
	x := explainObjects(t, Request{}, pvc, volume(pvc, "1Gi", pinned(v1.LabelHostname, "node-1")), node("node-1", map[string]string{v1.LabelHostname: "node-1"}),
		publishing(nodeLease("node-1", now.Add(-time.Second)), func(s *resizeroptions.Published) { s.RetryIntervalStart = resizeroptions.Duration(3 * time.Second) }))
	if got := x.Resizer.Settings; got.RetryIntervalStart != resizeroptions.Duration(3*time.Second) || !strings.HasPrefix(got.From, "Lease kube-system/") {
		t.Errorf("settings = %+v, want those of the node Lease", got)
	}
}
