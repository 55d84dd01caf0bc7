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
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{name: "no client", change: func(c *Config) { c.Leases = nil }, want: "no Leases client"},
		{name: "no name", change: func(c *Config) { c.Name = "" }, want: "no Lease name"},
		{name: "no identity", change: func(c *Config) { c.Identity = "" }, want: "no identity"},
		{name: "zero retry period", change: func(c *Config) { c.RetryPeriod = 0 }, want: "greater than zero"},
		{name: "lease not longer than the renew deadline", change: func(c *Config) { c.LeaseDuration = c.RenewDeadline }, want: "lease duration"},
		{name: "renew deadline within the jittered retry period",
			change: func(c *Config) { c.RenewDeadline = time.Duration(JitterFactor * float64(c.RetryPeriod)) }, want: "1.2 times"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newHarness(t).config("a")
			tc.change(&c)
			if _, err := New(c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want an error with %q", err, tc.want)
			}
		})
	}
	if _, err := New(newHarness(t).config("a")); err != nil {
		t.Errorf("New with the tests' config = %v", err)
	}
}

// TestLostWhenRenewalsFail: the leader keeps trying for RenewDeadline, then
// stops its work and Run returns ErrLost; it does not release a Lease it may
// no longer hold. Its health check fails once the Lease is LeaseDuration
// plus RenewDeadline old, for a leader that does not exit.
func TestLostWhenRenewalsFail(t *testing.T) {
	h := newHarness(t)
	var down atomic.Bool
	failUpdates(h.client, func(*coordinationv1.Lease) error {
		if down.Load() {
			return errors.New("injected: API server unreachable")
		}
		return nil
	})
	r := h.start("a", nil, false)
	down.Store(true)
	h.step(retryPeriod + renewDeadline - time.Second)
	if !r.isLeading() || r.returned() {
		t.Fatalf("leading %v, Run returned %v before the renew deadline", r.isLeading(), r.returned())
	}
	h.step(time.Second)
	if !r.returned() || !errors.Is(r.err, ErrLost) || r.isLeading() || r.metrics.leading.Load() {
		t.Fatalf("Run returned %v with %v, leading %v, metric %v: want ErrLost at the deadline",
			r.returned(), r.err, r.isLeading(), r.metrics.leading.Load())
	}
	if holderOrNone(h.lease()) != "a" {
		t.Errorf("holder = %q, want a: nothing could be written", holderOrNone(h.lease()))
	}
	// Run has returned, so the clock moves without waiters. The last
	// renewal was at the start.
	h.step(leaseDuration + renewDeadline - h.clock.Since(h0()))
	if err := r.e.Check(); err != nil {
		t.Errorf("Check %v after the last renewal = %v, want healthy", h.clock.Since(h0()), err)
	}
	h.step(time.Second)
	if err := r.e.Check(); err == nil || !r.e.IsLeader() {
		t.Errorf("Check = %v with IsLeader %v, %v after the last renewal: want unhealthy", err, r.e.IsLeader(), h.clock.Since(h0()))
	}
}

func TestCheckHealthy(t *testing.T) {
	h := newHarness(t)
	a := h.start("a", nil, false)
	b := h.start("b", nil, false)
	for range 6 {
		h.step(10 * time.Second)
		for _, r := range []*replica{a, b} {
			if err := r.e.Check(); err != nil {
				t.Fatalf("%s (leader: %v): Check = %v, want healthy", r.id, r.e.IsLeader(), err)
			}
		}
	}
	if !a.e.IsLeader() || b.e.IsLeader() {
		t.Errorf("IsLeader: a %v, b %v, want true, false", a.e.IsLeader(), b.e.IsLeader())
	}
}

// TestReleaseOnCancel: on cancel, the leader's work drains while it keeps
// renewing; then, with ReleaseOnCancel, it writes the Lease without a
// holder and a standby takes it at its next attempt.
func TestReleaseOnCancel(t *testing.T) {
	tests := []struct {
		name    string
		release bool
		// The standby does not lead notBefore after Run returned, and leads
		// takeover after.
		notBefore, takeover time.Duration
	}{
		{name: "released", release: true, takeover: 5 * time.Second},
		// The standby saw the last renewal up to 4.4 s late and tries up to
		// 4.4 s after the Lease expired.
		{name: "kept", release: false, notBefore: leaseDuration - time.Second, takeover: leaseDuration + 9*time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			a := h.start("a", func(c *Config) { c.ReleaseOnCancel = tc.release }, true)
			b := h.start("b", nil, false)
			h.step(retryPeriod)

			a.cancel()
			h.settle()
			if a.isLeading() || a.returned() {
				t.Fatalf("leading %v, Run returned %v: want the work's context over and Run waiting for it", a.isLeading(), a.returned())
			}
			h.step(3 * retryPeriod)
			l := h.lease()
			if holderOrNone(l) != "a" || !l.Spec.RenewTime.Time.Equal(h.clock.Now()) || b.isLeading() {
				t.Fatalf("while draining: holder %q renewed %v, b leading %v; want a renewing, b waiting",
					holderOrNone(l), l.Spec.RenewTime, b.isLeading())
			}

			close(a.drain)
			h.waitReturned(a)
			if !a.returned() || a.err != nil || a.metrics.leading.Load() {
				t.Fatalf("Run returned %v with %v, metric %v: want nil, not leading", a.returned(), a.err, a.metrics.leading.Load())
			}
			l = h.lease()
			if released := holderOrNone(l) == "" && ptr.Deref(l.Spec.LeaseDurationSeconds, 0) == 1; released != tc.release {
				t.Fatalf("Lease spec %+v, released %v, want %v", l.Spec, released, tc.release)
			}
			if tc.release && a.e.IsLeader() {
				t.Error("IsLeader after release")
			}
			h.step(tc.notBefore)
			if b.isLeading() {
				t.Fatalf("b leading %v after a stopped", tc.notBefore)
			}
			h.step(tc.takeover - tc.notBefore)
			if !b.isLeading() {
				t.Fatalf("b not leading %v after a stopped", tc.takeover)
			}
			if l := h.lease(); ptr.Deref(l.Spec.LeaseTransitions, 0) != 1 || holderOrNone(l) != "b" {
				t.Errorf("Lease spec %+v, want b with 1 transition", l.Spec)
			}
		})
	}
}

// TestTwoElectorsNeverLeadAtOnce runs three replicas through a leader that
// cannot write and one that stops; step fails the test if two ever lead.
func TestTwoElectorsNeverLeadAtOnce(t *testing.T) {
	h := newHarness(t)
	var cut atomic.Pointer[string] // the replica whose writes fail
	failUpdates(h.client, func(l *coordinationv1.Lease) error {
		if id := cut.Load(); id != nil && holderOrNone(l) == *id {
			return errors.New("injected: partitioned")
		}
		return nil
	})
	replicas := []*replica{h.start("a", nil, false), h.start("b", nil, false), h.start("c", nil, false)}
	leaders := func() []*replica {
		var out []*replica
		for _, r := range replicas {
			if r.isLeading() {
				out = append(out, r)
			}
		}
		return out
	}
	h.calls()
	h.step(time.Minute)
	first := leaders()
	if len(first) != 1 || first[0].id != "a" {
		t.Fatalf("%d leaders, want a alone", len(first))
	}
	for _, a := range h.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok && holderOrNone(u.GetObject().(*coordinationv1.Lease)) != "a" {
			t.Errorf("a standby wrote the Lease: %+v", u.GetObject())
		}
	}

	cut.Store(ptr.To("a"))
	h.step(time.Minute)
	if !errors.Is(replicas[0].err, ErrLost) {
		t.Fatalf("partitioned leader's Run = %v, want ErrLost", replicas[0].err)
	}
	second := leaders()
	if len(second) != 1 {
		t.Fatalf("%d leaders after a's partition, want 1", len(second))
	}

	second[0].cancel()
	h.waitReturned(second[0])
	h.step(10 * time.Second)
	third := leaders()
	if len(third) != 1 || third[0] == second[0] || third[0].id == "a" {
		t.Fatalf("leaders after %s stopped: %d, want the third replica", second[0].id, len(third))
	}
	if got := ptr.Deref(h.lease().Spec.LeaseTransitions, 0); got != 2 {
		t.Errorf("transitions = %d, want 2", got)
	}
}

func TestCancelWhileStandby(t *testing.T) {
	h := newHarness(t, heldLease("other", h0()))
	r := h.start("a", nil, false)
	h.calls()
	r.cancel()
	h.waitReturned(r)
	if !r.returned() || r.err != nil || r.leadCtx.Load() != nil {
		t.Fatalf("Run returned %v with %v, lead called %v: want nil at once, without leading", r.returned(), r.err, r.leadCtx.Load() != nil)
	}
	if calls := h.calls(); len(calls) != 0 {
		t.Errorf("calls after cancel = %v, want none", calls)
	}
}
