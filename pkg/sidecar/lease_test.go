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
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// leaseNS is where the tests' Leases live.
const leaseNS = "kube-system"

// leaderFlags turns on leader election with durations short enough for
// tests and long enough for -race on two cores.
func leaderFlags(extra ...string) []string {
	return append([]string{
		"--leader-election",
		"--leader-election-namespace=" + leaseNS,
		"--leader-election-lease-duration=4s",
		"--leader-election-renew-deadline=3s",
		"--leader-election-retry-period=500ms",
	}, extra...)
}

func getLease(client *fake.Clientset) (*coordinationv1.Lease, error) {
	return client.CoordinationV1().Leases(leaseNS).Get(context.Background(), options.LeaseName(testDriver), metav1.GetOptions{})
}

// holder returns the Lease's holder, "" when it has none.
func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// waitLeader waits until the Lease has a holder and returns it.
func waitLeader(t *testing.T, client *fake.Clientset) *coordinationv1.Lease {
	t.Helper()
	var lease *coordinationv1.Lease
	waitFor(t, "the Lease to have a holder", func() (bool, error) {
		l, err := getLease(client)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		lease = l
		return holder(l) != "", nil
	})
	return lease
}

// TestLeaseNamespace: the leader election and node Leases take their
// namespace from the flag, else POD_NAMESPACE (not parallel: it sets the
// environment); options' tests cover the rest of the order.
func TestLeaseNamespace(t *testing.T) {
	tests := []struct {
		name string
		flag string
		env  string
		want string
	}{
		{name: "flag wins", flag: "storage", env: "kube-system", want: "storage"},
		{name: "POD_NAMESPACE without the flag", env: "kube-system", want: "kube-system"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(options.PodNamespaceEnv, tc.env)
			if got := (&options.Options{LeaderElectionNamespace: tc.flag}).LeaseNamespace(); got != tc.want {
				t.Errorf("LeaseNamespace(%q) with POD_NAMESPACE=%q = %q, want %q", tc.flag, tc.env, got, tc.want)
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	a, err := identity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := identity()
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if !strings.HasPrefix(a, host+"_") || a == b {
		t.Errorf("identity() = %q, %q: want the host name %q and a random part that differs", a, b, host)
	}
}

func TestLeaderElection(t *testing.T) {
	tests := []struct {
		name       string
		extra      []string
		wantHolder bool // the Lease keeps its holder after run returned
	}{
		{name: "lease released on exit (default)", wantHolder: false},
		{name: "ReleaseLeaderElectionOnExit off keeps the holder",
			extra: []string{"--feature-gates=ReleaseLeaderElectionOnExit=false"}, wantHolder: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
			release := d.HoldExpand()
			t.Cleanup(release)
			client := newFakeAPI(resizeObjects(testDriver)...)
			o := newOptions(t, d, leaderFlags(append(tc.extra, "--leader-election-labels=app:csi-resizer,tier:storage")...)...)
			s := startSidecar(t, o, fakeClients(client))

			lease := waitLeader(t, client)
			for k, v := range map[string]string{"app": "csi-resizer", "tier": "storage"} {
				if lease.Labels[k] != v {
					t.Errorf("Lease label %s = %q, want %q (labels %v)", k, lease.Labels[k], v, lease.Labels)
				}
			}
			s.waitHTTP(healthPath, 200)
			s.waitHTTP("/readyz", 200)
			waitFor(t, "a ControllerExpandVolume call in flight", func() (bool, error) {
				return d.InFlight("vol-data") == 1, nil
			})

			s.cancel()
			if s.returnsWithin(earlyWindow) {
				t.Fatalf("run returned %v while a driver call was in flight", s.err)
			}
			l, err := getLease(client)
			if err != nil {
				t.Fatal(err)
			}
			if holder(l) == "" {
				t.Errorf("Lease released while a driver call was in flight")
			}
			release()
			if err := s.wait(waitTimeout); err != nil {
				t.Fatalf("run = %v, want nil", err)
			}
			pvc, err := getClaim(context.Background(), client, "data")
			if err != nil {
				t.Fatal(err)
			}
			if !quantityIs(pvc.Status.Capacity, "2Gi") {
				t.Errorf("claim capacity after run = %v, want the finished 2Gi", pvc.Status.Capacity)
			}
			l, err = getLease(client)
			if err != nil {
				t.Fatal(err)
			}
			if got := holder(l) != ""; got != tc.wantHolder {
				t.Errorf("Lease holder after run = %q, want held: %v", holder(l), tc.wantHolder)
			}
		})
	}
}

func TestLeaderElectionTwoReplicas(t *testing.T) {
	client := newFakeAPI(resizeObjects(testDriver)...)
	// Each replica has its own driver container, with the same name.
	var drivers [2]*csidriver.Driver
	var replicas [2]*sidecar
	for i := range replicas {
		drivers[i] = csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
		replicas[i] = startSidecar(t, newOptions(t, drivers[i], leaderFlags()...), fakeClients(client))
	}
	waitClaimFinished(t, client, "data", "2Gi")
	leader := -1
	for i, d := range drivers {
		switch n := len(d.Calls()); {
		case n == 1 && leader < 0:
			leader = i
		case n != 0:
			t.Fatalf("replica %d called its driver %d times; calls of both: %d, %d",
				i, n, len(drivers[0].Calls()), len(drivers[1].Calls()))
		}
	}
	if leader < 0 {
		t.Fatal("no replica called its driver")
	}
	standby := 1 - leader
	for i, s := range replicas {
		if code, body, err := s.get("/readyz"); err != nil || code != 200 {
			t.Errorf("replica %d (leader: %v) /readyz = %d %q %v, want 200", i, i == leader, code, body, err)
		}
		if code, body, err := s.get(healthPath); err != nil || code != 200 {
			t.Errorf("replica %d (leader: %v) %s = %d %q %v, want 200", i, i == leader, healthPath, code, body, err)
		}
	}

	// The leader goes away; the standby takes over and resizes.
	replicas[leader].cancel()
	if err := replicas[leader].wait(waitTimeout); err != nil {
		t.Fatalf("leader's run = %v, want nil", err)
	}
	waitFor(t, "the request raised to 3Gi", func() (bool, error) {
		pvc, err := getClaim(context.Background(), client, "data")
		if err != nil {
			return false, err
		}
		pvc.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("3Gi")
		_, err = client.CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), pvc, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			return false, nil
		}
		return err == nil, err
	})
	waitClaimFinished(t, client, "data", "3Gi")
	if n := len(drivers[leader].Calls()); n != 1 {
		t.Errorf("former leader's driver got %d calls, want 1", n)
	}
	calls := drivers[standby].Calls()
	if want := resource.MustParse("3Gi"); len(calls) != 1 || calls[0].RequiredBytes != want.Value() {
		t.Errorf("new leader's driver calls = %+v, want one for 3Gi", calls)
	}
	if !replicas[standby].running() {
		t.Fatalf("new leader stopped: %v", replicas[standby].err)
	}
}

func TestLeaseLost(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
	release := d.HoldExpand()
	t.Cleanup(release)
	client := newFakeAPI(resizeObjects(testDriver)...)
	// Reactors must be in place before the clientset is used.
	var apiDown atomic.Bool
	client.PrependReactor("update", "leases", func(clienttesting.Action) (bool, runtime.Object, error) {
		if apiDown.Load() {
			return true, nil, errors.New("injected: API server unreachable")
		}
		return false, nil, nil
	})
	s := startSidecar(t, newOptions(t, d, leaderFlags()...), fakeClients(client))
	id := holder(waitLeader(t, client))
	waitFor(t, "a ControllerExpandVolume call in flight", func() (bool, error) {
		return d.InFlight("vol-data") == 1, nil
	})

	apiDown.Store(true)
	off := fmt.Sprintf("leader_election_master_status{name=%q} 0", id)
	waitFor(t, "the leader to give up the Lease", func() (bool, error) {
		if !s.running() {
			return false, fmt.Errorf("run returned %v while a driver call was in flight", s.err)
		}
		_, body, err := s.get(s.opts.MetricsPath)
		return err == nil && strings.Contains(body, off), nil
	})
	if s.returnsWithin(earlyWindow) {
		t.Fatalf("run returned %v after losing the Lease while a driver call was in flight", s.err)
	}
	release()
	err := s.wait(waitTimeout)
	if !errors.Is(err, errLeaseLost) {
		t.Fatalf("run = %v, want an error wrapping errLeaseLost", err)
	}
	if calls := d.Calls(); len(calls) != 1 || calls[0].End.IsZero() {
		t.Errorf("calls = %+v, want one finished call", calls)
	}
}

// heldLease is a Lease of testDriver that another replica holds for an hour.
func heldLease() *coordinationv1.Lease {
	other, seconds := "other-replica", int32(3600)
	now := metav1.NewMicroTime(time.Now())
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: options.LeaseName(testDriver), Namespace: leaseNS},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: &other, LeaseDurationSeconds: &seconds, AcquireTime: &now, RenewTime: &now,
		},
	}
}

func TestLeaderElectionStandby(t *testing.T) {
	tests := []struct {
		name string
		// stop ends the standby's run; wantErr says how run must end.
		stop    func(s *sidecar, d *csidriver.Driver)
		wantErr error
	}{
		{name: "cancel", stop: func(s *sidecar, _ *csidriver.Driver) { s.cancel() }},
		{name: "driver lost", stop: func(_ *sidecar, d *csidriver.Driver) { d.Stop() }, wantErr: ErrDriverLost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
			client := newFakeAPI(append(resizeObjects(testDriver), heldLease())...)
			s := startSidecar(t, newOptions(t, d, leaderFlags()...), fakeClients(client))
			s.waitHTTP("/readyz", 200)
			s.waitHTTP(healthPath, 200)
			// The standby observed the Lease and left it alone.
			waitFor(t, "the standby to look at the Lease", func() (bool, error) {
				for _, a := range client.Actions() {
					if a.GetVerb() == "get" && a.GetResource().Resource == "leases" {
						return true, nil
					}
				}
				return false, nil
			})

			tc.stop(s, d)
			err := s.wait(startupTimeout)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("run = %v, want %v", err, tc.wantErr)
			}
			if calls := d.Calls(); len(calls) != 0 {
				t.Errorf("standby called its driver %d times", len(calls))
			}
			pvc, err := getClaim(context.Background(), client, "data")
			if err != nil {
				t.Fatal(err)
			}
			if pvc.Status.AllocatedResources != nil || !quantityIs(pvc.Status.Capacity, "1Gi") {
				t.Errorf("standby touched the claim: %+v", pvc.Status)
			}
			l, err := getLease(client)
			if err != nil {
				t.Fatal(err)
			}
			if holder(l) != "other-replica" {
				t.Errorf("Lease holder = %q, want other-replica", holder(l))
			}
		})
	}
}

func TestRunLeadingBadDurations(t *testing.T) {
	o := &options.Options{LeaderElectionNamespace: leaseNS, LeaseDuration: time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: time.Second}
	ran := false
	err := runLeading(context.Background(), o, fake.NewClientset().CoordinationV1().Leases(leaseNS), testDriver, nil, nil, true, func(context.Context) error {
		ran = true
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "leader election") {
		t.Errorf("runLeading = %v, want a leader election error", err)
	}
	if ran {
		t.Errorf("runLeading ran the work without a valid election")
	}
}

// TestNodeLeaseRenewal: the renewal creates a missing Lease, then updates
// the copy it wrote without reading it; after a failed update (a conflict:
// someone else wrote) it reads the Lease again and takes it over; a Lease
// deleted meanwhile is created again.
func TestNodeLeaseRenewal(t *testing.T) {
	client := fake.NewClientset()
	failUpdates := 0
	client.PrependReactor("update", "leases", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failUpdates > 0 {
			failUpdates--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "n", nil)
		}
		return false, nil, nil
	})
	leases := kubetest.Wrap(client).CoordinationV1().Leases("ns")
	l := &nodeLease{leases: leases, name: "n", namespace: "ns", holder: "me", driver: "d.example.com",
		labels: map[string]string{"team": "storage"}, logger: klog.Background()}
	ctx := context.Background()

	steps := []struct {
		name   string
		before func()
		verbs  []string
	}{
		{name: "missing: created", verbs: []string{"get", "create"}},
		{name: "renewed from the copy written", verbs: []string{"update"}},
		{name: "a conflict: read again and taken over", before: func() {
			failUpdates = 1
			other := "other"
			lease, err := client.CoordinationV1().Leases("ns").Get(ctx, "n", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			lease.Spec.HolderIdentity = &other
			if err := client.Tracker().Update(coordinationv1.SchemeGroupVersion.WithResource("leases"), lease, "ns"); err != nil {
				t.Fatal(err)
			}
		}, verbs: []string{"update", "get", "update"}},
		{name: "deleted meanwhile: created again", before: func() {
			if err := client.Tracker().Delete(coordinationv1.SchemeGroupVersion.WithResource("leases"), "ns", "n"); err != nil {
				t.Fatal(err)
			}
		}, verbs: []string{"update", "get", "create"}},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		client.ClearActions()
		l.renew(ctx)
		var verbs []string
		for _, a := range client.Actions() {
			verbs = append(verbs, a.GetVerb())
		}
		if len(verbs) != len(s.verbs) {
			t.Fatalf("%s: calls %v, want %v", s.name, verbs, s.verbs)
		}
		for i := range verbs {
			if verbs[i] != s.verbs[i] {
				t.Fatalf("%s: calls %v, want %v", s.name, verbs, s.verbs)
			}
		}
		lease, err := client.CoordinationV1().Leases("ns").Get(ctx, "n", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if h := lease.Spec.HolderIdentity; h == nil || *h != "me" || lease.Spec.RenewTime == nil ||
			lease.Labels["team"] != "storage" || lease.Labels[options.NodeLeaseLabel] != options.NodeLeaseValue("d.example.com") {
			t.Errorf("%s: Lease %+v %+v, want held by me, renewed, with its labels", s.name, lease.Labels, lease.Spec)
		}
	}
}
