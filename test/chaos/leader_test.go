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

	"github.com/csi-resizer/csi-resizer/test/csidriver"
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

// election is the leader election test's cast.
type election struct {
	e         *env
	rs        replicas
	driver    *framework.Driver
	claims    *claims
	leaseName string
}

// takeover is one leader ended by the test and the term that followed.
type takeover struct {
	old   leadership
	ended framework.Lifetime
	sent  time.Time  // when the signal was sent
	lease leaseState // right after the old leader ended
	next  leadership
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
	const driverName = "leader.csi.example.com"
	claims, err := createClaims(e.ctx, e.cluster.Admin, "leader", driverName, n)
	must(t, err)
	el := &election{e: e, claims: claims, leaseName: "external-resizer-" + strings.ReplaceAll(driverName, ".", "-")}
	el.driver = e.startDriver(framework.DriverOptions{Name: driverName, Latency: 500 * time.Millisecond, FailRate: 0.1, Seed: 7}, claims.list)
	args := []string{
		"--leader-election", "--leader-election-namespace=" + resizerNamespace,
		"--leader-election-lease-duration=" + leaseDuration.String(),
		"--leader-election-renew-deadline=" + renewDeadline.String(),
		"--leader-election-retry-period=" + retryPeriod.String(),
		"--timeout=" + leaderTimeout.String(), "--retry-interval-start=200ms", "--retry-interval-max=5s",
		"--kube-api-qps=50", "--kube-api-burst=100", "--v=4",
	}
	for _, name := range []string{"replica-a", "replica-b", "replica-c"} {
		el.rs = append(el.rs, e.superviseResizer(name, el.driver, args...))
	}
	first := waitLeader(t, e.ctx, el.rs, time.Time{}, 0)

	killed := el.end(t, first, framework.EndedKilled)
	if killed.lease.holder != first.identity {
		t.Errorf("right after the SIGKILL the Lease is held by %q, want the killed leader %s", killed.lease.holder, first.identity)
	}
	terminated := el.end(t, killed.next, framework.EndedTerminated)
	if terminated.lease.holder == killed.next.identity {
		t.Errorf("after SIGTERM the Lease is still held by the old leader %s", terminated.lease.holder)
	}
	el.report(began, el.check(t), killed, terminated).print(t, e.dir)
}

// end grows every claim, ends the leader with SIGKILL or SIGTERM once it
// has a call in the driver, waits for another replica to take over and
// for the claims to finish. The ended replica stays down until another
// takes over: a replica that has just started tries for the Lease at
// once, and would win.
func (el *election) end(t *testing.T, leader leadership, how string) takeover {
	t.Helper()
	ctx, admin := el.e.ctx, el.e.cluster.Admin
	must(t, el.claims.grow(ctx, admin, el.claims.list))
	waitInFlight(t, ctx, el.driver, leader.run.Pid)
	sup := el.rs.of(leader.run.Pid)
	if sup == nil {
		t.Fatalf("leader pid %d is not running", leader.run.Pid)
	}
	sup.Hold()
	to := takeover{old: leader, sent: time.Now()}
	var ok bool
	if how == framework.EndedKilled {
		to.ended, ok = sup.Kill()
	} else {
		to.ended, ok = sup.Terminate(time.Minute)
	}
	if !ok {
		t.Fatalf("leader pid %d was not running", leader.run.Pid)
	}
	to.lease = getLease(t, ctx, admin, el.leaseName)
	to.next = waitLeader(t, ctx, el.rs, to.sent, to.ended.Pid)
	must(t, sup.Release())
	_, problems := el.claims.waitFinished(ctx, admin, 3*time.Minute)
	for _, p := range problems {
		t.Errorf("after the %s, claim not finished: %s", how, p)
	}
	return to
}

// electionCalls is what the call log says about the replicas.
type electionCalls struct {
	terms     []leadership
	calls     []span
	nonLeader int
	overlaps  map[overlapKind]int
}

// check fails t when a replica called the driver outside its term, or two
// callers waited on one volume at once.
func (el *election) check(t *testing.T) electionCalls {
	t.Helper()
	var c electionCalls
	runs := el.rs.runs()
	var err error
	c.terms, err = leaderships(runs)
	must(t, err)
	calls, err := el.driver.ControllerCalls()
	must(t, err)
	saveRuns(t, el.e.dir, map[string][]framework.Lifetime{"resizer": runs, "driver": el.driver.Lifetimes()})
	var strangers []csidriver.LoggedCall
	c.calls, strangers = spans(calls, runs, el.driver.Lifetimes(), leaderTimeout, time.Now())
	for _, s := range strangers {
		t.Errorf("call from a process that is no known resizer run: %s", describeCall(s))
	}
	outside := callsOutsideTerms(c.calls, c.terms)
	c.nonLeader = len(outside)
	for _, b := range outside {
		t.Errorf("call by a replica that did not lead: %s", b)
	}
	c.overlaps = map[overlapKind]int{}
	for _, o := range overlaps(c.calls) {
		c.overlaps[o.kind]++
		if o.kind == bothWaiting {
			t.Errorf("overlapping ControllerExpandVolume calls: %s", o)
		}
	}
	for _, log := range panics(runs) {
		t.Errorf("a resizer panicked: see %s", log)
	}
	return c
}

// report lays out the figures of the test.
func (el *election) report(began time.Time, c electionCalls, killed, terminated takeover) *report {
	r := &report{title: "leader-election"}
	r.add("3 replicas, lease duration %s, renew deadline %s, retry period %s; %d claims grown twice; driver latency 500ms, 10%% failures",
		leaseDuration, renewDeadline, retryPeriod, len(el.claims.list))
	r.add("terms (from the first leader):")
	origin := killed.old.from
	for _, l := range c.terms {
		to := "still leading"
		if !l.to.IsZero() {
			to = since(origin, l.to)
		}
		r.add("  pid %d %s  %s .. %s  (run ended: %s)", l.run.Pid, l.identity, since(origin, l.from), to, orRunning(l.run.Ended))
	}
	expiry := killed.lease.renewed.Add(leaseDuration)
	r.add("SIGKILL of the leader: another took over %s after the SIGKILL (the Lease, last renewed %s before the SIGKILL, expired %s after it; takeover %s after the expiry)",
		killed.next.from.Sub(killed.sent).Round(time.Millisecond), killed.sent.Sub(killed.lease.renewed).Round(time.Millisecond),
		expiry.Sub(killed.sent).Round(time.Millisecond), killed.next.from.Sub(expiry).Round(time.Millisecond))
	r.add("SIGTERM of the leader: it exited %s after the SIGTERM, the Lease then held by %q (renewed %s after the SIGTERM); another took over %s after the SIGTERM",
		terminated.ended.End.Sub(terminated.sent).Round(time.Millisecond), terminated.lease.holder,
		terminated.lease.renewed.Sub(terminated.sent).Round(time.Millisecond), terminated.next.from.Sub(terminated.sent).Round(time.Millisecond))
	r.add("ControllerExpandVolume calls: %d (%s); by a non-leader: %d", len(c.calls), codeCounts(c.calls), c.nonLeader)
	r.add("overlapping calls on one volume: %d with two callers waiting; apart: %d left running by a killed resizer, %d left running after the caller's deadline",
		c.overlaps[bothWaiting], c.overlaps[leftByKilled], c.overlaps[leftAfterDeadline])
	r.add("test duration: %s", time.Since(began).Round(time.Second))
	return r
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
func waitInFlight(t *testing.T, ctx context.Context, d *framework.Driver, pid int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		calls, err := d.ControllerCalls()
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
