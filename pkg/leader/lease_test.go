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

package leader

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The client-go typed client and its fake satisfy Leases.
var _ Leases = newAPI().CoordinationV1().Leases(testNS)

func TestAcquireAbsentLease(t *testing.T) {
	tests := []struct {
		name       string
		labels     map[string]string
		wantLabels map[string]string
	}{
		{name: "without labels"},
		{name: "with labels", labels: map[string]string{"app": "csi-resizer", "tier": "storage"},
			wantLabels: map[string]string{"app": "csi-resizer", "tier": "storage"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			r := h.start("a", func(c *Config) { c.Labels = tc.labels }, false)
			if !r.isLeading() || !r.e.IsLeader() || !r.metrics.leading.Load() {
				t.Fatalf("leading %v, IsLeader %v, metric %v: want all true", r.isLeading(), r.e.IsLeader(), r.metrics.leading.Load())
			}
			if got, want := h.calls(), []string{"get", "create"}; !reflect.DeepEqual(got, want) {
				t.Errorf("calls = %v, want %v", got, want)
			}
			l := h.lease()
			now := h.clock.Now()
			if holderOrNone(l) != "a" || ptr.Deref(l.Spec.LeaseTransitions, -1) != 0 ||
				ptr.Deref(l.Spec.LeaseDurationSeconds, 0) != 15 ||
				!l.Spec.AcquireTime.Time.Equal(now) || !l.Spec.RenewTime.Time.Equal(now) {
				t.Errorf("Lease spec = %+v, want holder a, 0 transitions, 15 s, acquired and renewed at %v", l.Spec, now)
			}
			if !reflect.DeepEqual(l.Labels, tc.wantLabels) {
				t.Errorf("labels = %v, want %v", l.Labels, tc.wantLabels)
			}
			if got := r.seenLeaders(); !reflect.DeepEqual(got, []string{"a"}) {
				t.Errorf("OnNewLeader got %v, want [a]", got)
			}
		})
	}
}

// TestHeldLeaseNotTaken: a standby judges expiry by its own clock from when
// it saw the Lease change, whatever the Lease's timestamps say, and writes
// nothing while the holder's Lease is valid.
func TestHeldLeaseNotTaken(t *testing.T) {
	tests := []struct {
		name    string
		renewed time.Duration // the holder's renewTime, from the fake clock's start
	}{
		{name: "renewed now"},
		{name: "renewed an hour ago by a skewed clock", renewed: -time.Hour},
		{name: "renewed in an hour by a skewed clock", renewed: time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if _, err := h.client.CoordinationV1().Leases(testNS).Create(context.Background(),
				heldLease("other", h.clock.Now().Add(tc.renewed)), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			h.calls()
			r := h.start("a", nil, false)
			h.step(leaseDuration - time.Second)
			if r.isLeading() || r.e.IsLeader() || r.metrics.leading.Load() {
				t.Fatalf("took a Lease still valid by its own clock")
			}
			for _, verb := range h.calls() {
				if verb != "get" {
					t.Fatalf("standby called %s on a held Lease", verb)
				}
			}
			if got := r.seenLeaders(); !reflect.DeepEqual(got, []string{"other"}) {
				t.Errorf("OnNewLeader got %v, want [other]", got)
			}
		})
	}
}

// TestHolderRenewsStandbyWaits: each change the holder makes restarts the
// standby's count.
func TestHolderRenewsStandbyWaits(t *testing.T) {
	h := newHarness(t)
	leases := h.client.CoordinationV1().Leases(testNS)
	l, err := leases.Create(context.Background(), heldLease("other", h.clock.Now()), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := h.start("a", nil, false)
	for range 4 {
		h.step(leaseDuration / 2)
		at := metav1.NewMicroTime(h.clock.Now())
		l.Spec.RenewTime = &at
		if l, err = leases.Update(context.Background(), l, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	h.step(leaseDuration - 5*time.Second) // the standby may have seen the last change up to 4.4 s late
	if r.isLeading() {
		t.Fatal("took a Lease its holder renews")
	}
}

func TestTakeExpiredLease(t *testing.T) {
	h := newHarness(t, heldLease("other", h0()))
	r := h.start("a", func(c *Config) { c.Labels = map[string]string{"app": "csi-resizer"} }, false)
	h.step(leaseDuration + 5*time.Second)
	if !r.isLeading() {
		t.Fatal("did not take an expired Lease")
	}
	l := h.lease()
	if holderOrNone(l) != "a" || ptr.Deref(l.Spec.LeaseTransitions, 0) != 4 {
		t.Errorf("Lease spec = %+v, want holder a, transitions 4", l.Spec)
	}
	if l.Spec.AcquireTime.Time.Before(h0().Add(leaseDuration)) ||
		l.Spec.RenewTime.Time.Before(l.Spec.AcquireTime.Time) || h.clock.Since(l.Spec.RenewTime.Time) >= retryPeriod {
		t.Errorf("acquired %v, renewed %v: want acquired once the Lease expired, renewed since", l.Spec.AcquireTime, l.Spec.RenewTime)
	}
	if l.Labels["app"] != "csi-resizer" {
		t.Errorf("labels = %v, want app=csi-resizer added on taking over", l.Labels)
	}
	if got := r.seenLeaders(); !reflect.DeepEqual(got, []string{"other", "a"}) {
		t.Errorf("OnNewLeader got %v, want [other a]", got)
	}
}

// TestRenew: the leader writes once per RetryPeriod, without reading first,
// and keeps its acquireTime and transitions.
func TestRenew(t *testing.T) {
	h := newHarness(t)
	r := h.start("a", nil, false)
	first := h.lease()
	h.calls()
	for i := range 5 {
		h.step(retryPeriod)
		if got := h.calls(); !reflect.DeepEqual(got, []string{"update"}) {
			t.Fatalf("renewal %d: calls = %v, want one update", i, got)
		}
		l := h.lease()
		if holderOrNone(l) != "a" || !l.Spec.AcquireTime.Equal(first.Spec.AcquireTime) ||
			ptr.Deref(l.Spec.LeaseTransitions, -1) != 0 || !l.Spec.RenewTime.Time.Equal(h.clock.Now()) {
			t.Fatalf("renewal %d: Lease spec = %+v, want holder a, acquired %v, renewed now", i, l.Spec, first.Spec.AcquireTime)
		}
	}
	if !r.isLeading() || r.metrics.slowPath.Load() != 0 {
		t.Errorf("leading %v, slow paths %d: want true, 0", r.isLeading(), r.metrics.slowPath.Load())
	}
}

// TestConflictRetried: a write that meets a newer version is not fatal.
// The leader reads the Lease again and renews in the same attempt; a
// standby that lost a race to an expired Lease tries again next period.
func TestConflictRetried(t *testing.T) {
	t.Run("leader", func(t *testing.T) {
		h := newHarness(t)
		r := h.start("a", nil, false)
		// Someone else writes the Lease (here: a label), which bumps its
		// resourceVersion and leaves the leader's copy stale.
		l := h.lease()
		l.Labels = map[string]string{"touched": "yes"}
		if _, err := h.client.CoordinationV1().Leases(testNS).Update(context.Background(), l, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		h.calls()
		h.step(retryPeriod)
		if got, want := h.calls(), []string{"update", "get", "update"}; !reflect.DeepEqual(got, want) {
			t.Errorf("calls = %v, want %v", got, want)
		}
		if !r.isLeading() || r.metrics.slowPath.Load() != 1 || h.lease().Labels["touched"] != "yes" {
			t.Errorf("leading %v, slow paths %d, labels %v: want true, 1, the other writer's label kept",
				r.isLeading(), r.metrics.slowPath.Load(), h.lease().Labels)
		}
		h.step(retryPeriod)
		if got := h.calls(); !reflect.DeepEqual(got, []string{"update"}) {
			t.Errorf("calls after = %v, want one update", got)
		}
	})
	t.Run("standby", func(t *testing.T) {
		h := newHarness(t, heldLease("other", h0()))
		var conflicts atomic.Int32
		failUpdates(h.client, func(l *coordinationv1.Lease) error {
			if conflicts.Add(1) == 1 {
				return apierrors.NewConflict(leasesGVR.GroupResource(), l.Name, errors.New("injected"))
			}
			return nil
		})
		r := h.start("a", nil, false)
		for i := 0; conflicts.Load() == 0; i++ {
			if i == 30 {
				t.Fatal("no attempt to take the expired Lease in 30 s")
			}
			h.step(time.Second)
		}
		if r.isLeading() {
			t.Fatal("leading after a conflict")
		}
		h.step(5 * time.Second)
		if !r.isLeading() || r.returned() {
			t.Fatalf("leading %v, Run returned %v: want the Lease taken at the next attempt", r.isLeading(), r.returned())
		}
	})
}

// h0 is the fake clocks' start.
func h0() time.Time { return time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC) }

// settingsAnnotation is an annotation as the resizer publishes on its Lease.
const settingsAnnotation = "csi-resizer.io/settings"

// TestAnnotationsPublished: the configured annotations are on the Lease
// this replica creates, and on one it takes over, beside the others.
func TestAnnotationsPublished(t *testing.T) {
	published := map[string]string{settingsAnnotation: `{"retryIntervalMax":"10m0s"}`}
	h := newHarness(t)
	h.start("a", func(c *Config) { c.Annotations = published }, false)
	if got := h.lease().Annotations[settingsAnnotation]; got != published[settingsAnnotation] {
		t.Errorf("created Lease: annotation %q, want %q", got, published[settingsAnnotation])
	}

	old := heldLease("other", h0())
	old.Annotations = map[string]string{"kept": "yes", settingsAnnotation: "{}"}
	h = newHarness(t, old)
	h.start("a", func(c *Config) { c.Annotations = published }, false)
	h.step(leaseDuration + 5*time.Second)
	if l := h.lease(); holderOrNone(l) != "a" || l.Annotations[settingsAnnotation] != published[settingsAnnotation] || l.Annotations["kept"] != "yes" {
		t.Errorf("taken Lease: holder %q, annotations %v; want a, ours and the other kept", holderOrNone(l), l.Annotations)
	}
}
