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
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// settingsOn reads the settings a Lease's annotation publishes.
func settingsOn(t *testing.T, annotations map[string]string) options.Published {
	t.Helper()
	var s options.Published
	v, ok := annotations[options.SettingsAnnotation]
	if !ok {
		t.Fatalf("no annotation %s in %v", options.SettingsAnnotation, annotations)
	}
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		t.Fatalf("annotation %s = %q: %v", options.SettingsAnnotation, v, err)
	}
	return s
}

// TestPublishedSettings: the settings are the resolved options (the
// timeouts after --timeout's override, the gate's value).
func TestPublishedSettings(t *testing.T) {
	o := newOptions(t, nil, "--csi-address=/csi.sock", "--timeout=20s", "--retry-interval-max=7m",
		"--handle-volume-inuse-error=false", "--feature-gates=RecoverVolumeExpansionFailure=false")
	want := options.Published{RetryIntervalStart: options.Duration(10 * time.Millisecond), RetryIntervalMax: options.Duration(7 * time.Minute),
		ResizeTimeout: options.Duration(20 * time.Second), ModifyTimeout: options.Duration(20 * time.Second)}
	if got := settingsOn(t, publishedSettings(o, false)); got != want {
		t.Errorf("published %+v, want %+v", got, want)
	}
}

// TestLeaderLeaseSettings: the leader election Lease carries the settings.
func TestLeaderLeaseSettings(t *testing.T) {
	client := fake.NewClientset()
	o := newOptions(t, nil, append(leaderFlags("--csi-address=/csi.sock"), "--retry-interval-max=9m")...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := runLeading(ctx, o, kubetest.Wrap(client).CoordinationV1().Leases(leaseNS), testDriver, publishedSettings(o, false), nil, false, func(context.Context) error {
		l, err := getLease(client)
		if err != nil {
			return err
		}
		if s := settingsOn(t, l.Annotations); s.RetryIntervalMax != options.Duration(9*time.Minute) || !s.Recovery {
			t.Errorf("leader Lease publishes %+v, want --retry-interval-max 9m and recovery on", s)
		}
		cancel()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNodeLeaseSettings: the node Lease carries them too, created and
// renewed.
func TestNodeLeaseSettings(t *testing.T) {
	client := fake.NewClientset()
	o := newOptions(t, nil, "--csi-address=/csi.sock", "--retry-interval-start=3s", "--retry-interval-max=1m")
	l := &nodeLease{leases: kubetest.Wrap(client).CoordinationV1().Leases("ns"), name: "n", namespace: "ns", holder: "me", driver: "d.example.com",
		annotations: publishedSettings(o, false), logger: klog.Background()}
	ctx := context.Background()
	for _, step := range []string{"created", "renewed"} {
		l.renew(ctx)
		lease, err := client.CoordinationV1().Leases("ns").Get(ctx, "n", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s := settingsOn(t, lease.Annotations); s.RetryIntervalStart != options.Duration(3*time.Second) {
			t.Errorf("%s: node Lease publishes %+v, want --retry-interval-start 3s", step, s)
		}
	}
}
