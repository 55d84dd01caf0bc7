//go:build chaos

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

package chaos

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The lease settings are the flags' defaults, passed explicitly so that
// the report says what the figures were measured with.
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 5 * time.Second
	// leaderTimeout is the replicas' --timeout.
	leaderTimeout = 5 * time.Second
)

// replicas are resizers under leader election, each kept running by its
// supervisor.
type replicas []*framework.Supervisor

// runs are the runs of every replica.
func (rs replicas) runs() []framework.Lifetime {
	var all []framework.Lifetime
	for _, s := range rs {
		all = append(all, s.Lifetimes()...)
	}
	return all
}

// of is the supervisor whose running process has pid.
func (rs replicas) of(pid int) *framework.Supervisor {
	for _, s := range rs {
		if p, _ := s.Current(); p != nil && p.Pid() == pid {
			return s
		}
	}
	return nil
}

// TestLeaderElection runs three replicas with --leader-election, kills the
// leader with SIGKILL and then stops the next one with SIGTERM, each while
// it has calls in the driver, and measures how fast another replica takes
// over. Only the leader may call the driver, and never two replicas in the
// same window.
func TestLeaderElection(t *testing.T) {
	began := time.Now()
	n := envInt(t, "CHAOS_LEADER_CLAIMS", 60)
	e := newEnv(t)
	ctx, admin := e.ctx, e.cluster.Admin
	const driverName = "leader.csi.example.com"
	claims, err := createClaims(ctx, admin, "leader", driverName, n)
	must(t, err)
	driver := e.startDriver(framework.TestDriverOptions{Name: driverName, Latency: 500 * time.Millisecond, FailRate: 0.1, Seed: 7}, claims.list)
	args := []string{
		"--leader-election", "--leader-election-namespace=" + resizerNamespace,
		"--leader-election-lease-duration=" + leaseDuration.String(),
		"--leader-election-renew-deadline=" + renewDeadline.String(),
		"--leader-election-retry-period=" + retryPeriod.String(),
		"--timeout=" + leaderTimeout.String(), "--retry-interval-start=200ms", "--retry-interval-max=5s",
		"--kube-api-qps=50", "--kube-api-burst=100", "--v=4",
	}
	rs := replicas{}
	for _, name := range []string{"replica-a", "replica-b", "replica-c"} {
		rs = append(rs, e.superviseResizer(name, driver, args...))
	}
	first := waitLeader(t, ctx, rs, time.Time{}, 0)

	// SIGKILL the leader while it has calls in the driver.
	must(t, claims.grow(ctx, admin, claims.list))
	waitInFlight(t, ctx, driver, first.run.Pid)
	// The replica stays down until another takes over: a replica that has
	// just started tries to acquire the Lease at once, and would win.
	sup := rs.of(first.run.Pid)
	sup.Hold()
	killed, ok := sup.Kill()
	if !ok {
		t.Fatalf("leader pid %d was not running", first.run.Pid)
	}
	// The killed leader's last renewal says when the Lease expires.
	leaseName := "external-resizer-" + strings.ReplaceAll(driverName, ".", "-")
	held := getLease(t, ctx, admin, leaseName)
	if held.holder != first.identity {
		t.Errorf("right after the SIGKILL the Lease is held by %q, want the killed leader %s", held.holder, first.identity)
	}
	second := waitLeader(t, ctx, rs, killed.End, killed.Pid)
	must(t, sup.Release())
	_, problems := claims.waitFinished(ctx, admin, 3*time.Minute)
	for _, p := range problems {
		t.Errorf("after the SIGKILL, claim not finished: %s", p)
	}

	// SIGTERM the next leader while it has calls in the driver: it drains
	// them and releases the Lease.
	must(t, claims.grow(ctx, admin, claims.list))
	waitInFlight(t, ctx, driver, second.run.Pid)
	sup = rs.of(second.run.Pid)
	sup.Hold()
	termSent := time.Now()
	stopped, ok := sup.Terminate(time.Minute)
	if !ok {
		t.Fatalf("leader pid %d was not running", second.run.Pid)
	}
	released := getLease(t, ctx, admin, leaseName)
	if released.holder == second.identity {
		t.Errorf("after SIGTERM the Lease is still held by the old leader %s", released.holder)
	}
	third := waitLeader(t, ctx, rs, termSent, stopped.Pid)
	must(t, sup.Release())
	_, problems = claims.waitFinished(ctx, admin, 3*time.Minute)
	for _, p := range problems {
		t.Errorf("after the SIGTERM, claim not finished: %s", p)
	}

	// Only the leader called, and never two replicas at once.
	terms, err := leaderships(rs.runs())
	must(t, err)
	calls, err := driver.Calls()
	must(t, err)
	saveRuns(t, e.dir, map[string][]framework.Lifetime{"resizer": rs.runs(), "driver": driver.Lifetimes()})
	known, strangers := spans(calls, rs.runs(), driver.Lifetimes(), leaderTimeout, time.Now())
	for _, c := range strangers {
		t.Errorf("call from a process that is no known resizer run: %s", describeCall(c))
	}
	for _, b := range callsOutsideTerms(known, terms) {
		t.Errorf("call by a replica that did not lead: %s", b)
	}
	byKind := map[overlapKind]int{}
	for _, o := range overlaps(known) {
		byKind[o.kind]++
		if o.kind == bothWaiting {
			t.Errorf("overlapping ControllerExpandVolume calls: %s", o)
		}
	}
	for _, log := range panics(rs.runs()) {
		t.Errorf("a resizer panicked: see %s", log)
	}

	r := &report{title: "leader-election"}
	r.add("3 replicas, lease duration %s, renew deadline %s, retry period %s; %d claims grown twice; driver latency 500ms, 10%% failures", leaseDuration, renewDeadline, retryPeriod, n)
	r.add("terms (from the first leader):")
	for _, l := range terms {
		to := "still leading"
		if !l.to.IsZero() {
			to = since(first.from, l.to)
		}
		r.add("  pid %d %s  %s .. %s  (run ended: %s)", l.run.Pid, l.identity, since(first.from, l.from), to, orRunning(l.run.Ended))
	}
	expiry := held.renewed.Add(leaseDuration)
	r.add("SIGKILL of the leader: another took over %s after the SIGKILL (the Lease, last renewed %s before the SIGKILL, expired %s after it; takeover %s after the expiry)",
		second.from.Sub(killed.End).Round(time.Millisecond), killed.End.Sub(held.renewed).Round(time.Millisecond),
		expiry.Sub(killed.End).Round(time.Millisecond), second.from.Sub(expiry).Round(time.Millisecond))
	r.add("SIGTERM of the leader: it exited %s after the SIGTERM, the Lease then held by %q (renewed %s after the SIGTERM); another took over %s after the SIGTERM",
		stopped.End.Sub(termSent).Round(time.Millisecond), released.holder, released.renewed.Sub(termSent).Round(time.Millisecond),
		third.from.Sub(termSent).Round(time.Millisecond))
	r.add("ControllerExpandVolume calls: %d (%s); by a non-leader: %d", len(calls), codeCounts(known), len(callsOutsideTerms(known, terms)))
	r.add("overlapping calls on one volume: %d with two callers waiting; apart: %d left running by a killed resizer, %d left running after the caller's deadline",
		byKind[bothWaiting], byKind[leftByKilled], byKind[leftAfterDeadline])
	r.add("test duration: %s", time.Since(began).Round(time.Second))
	r.print(t, e.dir)
}

// leaseState is who holds the Lease and when it was last renewed (or
// released).
type leaseState struct {
	holder  string
	renewed time.Time
}

func getLease(t *testing.T, ctx context.Context, c kubernetes.Interface, name string) leaseState {
	t.Helper()
	lease, err := c.CoordinationV1().Leases(resizerNamespace).Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	var s leaseState
	if lease.Spec.HolderIdentity != nil {
		s.holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.RenewTime != nil {
		s.renewed = lease.Spec.RenewTime.Time
	}
	return s
}

// waitLeader waits for a run other than notPid to become the leader
// after t.
func waitLeader(t *testing.T, ctx context.Context, rs replicas, after time.Time, notPid int) leadership {
	t.Helper()
	var found leadership
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		terms, err := leaderships(rs.runs())
		if err != nil {
			return false, err
		}
		l, ok := firstTermAfter(terms, after, notPid)
		found = l
		return ok, nil
	})
	if err != nil {
		t.Fatalf("no new leader after %s: %v", clock(after), err)
	}
	return found
}

// waitInFlight waits until pid has a ControllerExpandVolume call running.
func waitInFlight(t *testing.T, ctx context.Context, d *framework.TestDriver, pid int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		calls, err := d.Calls()
		if err != nil {
			return false, err
		}
		for _, c := range calls {
			if c.Pid == pid && !c.Ended() {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("leader pid %d never had a call in flight: %v", pid, err)
	}
}

func orRunning(ended string) string {
	if ended == "" {
		return "running"
	}
	return ended
}
