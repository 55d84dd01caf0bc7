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
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"

	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

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
