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
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	testclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

const (
	testNS        = "kube-system"
	testLease     = "external-resizer-hostpath"
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
	// settleTimeout bounds the real time a test waits for the electors to
	// reach their next wait on the fake clock; they take microseconds.
	settleTimeout = 10 * time.Second
)

var leasesGVR = coordinationv1.SchemeGroupVersion.WithResource("leases")

// newAPI returns a fake clientset whose Leases behave like the API server's
// in what the election depends on: each write gives a new resourceVersion
// and a write with a stale one fails with a conflict. The fake clientset
// runs one reaction at a time, so rv needs no lock of its own.
func newAPI(objs ...runtime.Object) *fake.Clientset {
	client := fake.NewClientset(objs...)
	tracker := client.Tracker()
	rv := 100
	client.PrependReactor("*", "leases", func(a clienttesting.Action) (bool, runtime.Object, error) {
		// CreateAction and UpdateAction have the same methods: tell them
		// apart by verb.
		switch a.GetVerb() {
		case "create":
			l := a.(clienttesting.CreateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
			rv++
			l.ResourceVersion = strconv.Itoa(rv)
			if err := tracker.Create(leasesGVR, l, a.GetNamespace()); err != nil {
				return true, nil, err
			}
			return true, l.DeepCopy(), nil
		case "update":
			l := a.(clienttesting.UpdateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
			cur, err := tracker.Get(leasesGVR, a.GetNamespace(), l.Name)
			if err != nil {
				return true, nil, err
			}
			if cur.(*coordinationv1.Lease).ResourceVersion != l.ResourceVersion {
				return true, nil, apierrors.NewConflict(leasesGVR.GroupResource(), l.Name, nil)
			}
			rv++
			l.ResourceVersion = strconv.Itoa(rv)
			if err := tracker.Update(leasesGVR, l, a.GetNamespace()); err != nil {
				return true, nil, err
			}
			return true, l.DeepCopy(), nil
		}
		return false, nil, nil
	})
	return client
}

// failUpdates makes the Updates that fail() selects fail, before any other
// reaction.
func failUpdates(client *fake.Clientset, fail func(*coordinationv1.Lease) error) {
	client.PrependReactor("update", "leases", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if err := fail(a.(clienttesting.UpdateAction).GetObject().(*coordinationv1.Lease)); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	})
}

// heldLease is a Lease that holder renewed at renewed, for 15 s.
func heldLease(holder string, renewed time.Time) *coordinationv1.Lease {
	at := metav1.NewMicroTime(renewed)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: testLease, ResourceVersion: "1"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To[int32](15),
			AcquireTime: &at, RenewTime: &at, LeaseTransitions: ptr.To[int32](3),
		},
	}
}

// harness runs electors on one fake clock and one fake API server, and
// records whether two of them ever ran their lead function at once.
type harness struct {
	t      *testing.T
	clock  *testclock.FakeClock
	client *fake.Clientset

	mu       sync.Mutex
	replicas []*replica // guarded by mu
	leading  atomic.Int32
	overlap  atomic.Bool
}

func newHarness(t *testing.T, objs ...runtime.Object) *harness {
	return &harness{t: t, clock: testclock.NewFakeClock(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)), client: newAPI(objs...)}
}

// replica is one running elector.
type replica struct {
	id      string
	e       *Elector
	cancel  context.CancelFunc
	leadCtx atomic.Pointer[context.Context]
	// drain, when set, is closed by the test to let lead return after its
	// context ended.
	drain   chan struct{}
	done    chan struct{}
	err     error // set before done is closed
	metrics *recordedMetrics

	mu      sync.Mutex
	leaders []string // OnNewLeader's arguments; guarded by mu
}

// config is the Config of replica id in tests.
func (h *harness) config(id string) Config {
	return Config{
		Leases: h.client.CoordinationV1().Leases(testNS), Namespace: testNS, Name: testLease, Identity: id,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		ReleaseOnCancel: true, Clock: h.clock,
	}
}

// start runs an elector for id, with change applied to its Config, and
// waits for its first attempt. With drained, its lead function returns
// after its context ended only once the test closes r.drain.
func (h *harness) start(id string, change func(*Config), drained bool) *replica {
	h.t.Helper()
	r := &replica{id: id, done: make(chan struct{}), metrics: &recordedMetrics{}}
	if drained {
		r.drain = make(chan struct{})
	}
	c := h.config(id)
	c.Metrics = r.metrics
	c.OnNewLeader = func(holder string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.leaders = append(r.leaders, holder)
	}
	if change != nil {
		change(&c)
	}
	e, err := New(c)
	if err != nil {
		h.t.Fatalf("New: %v", err)
	}
	r.e = e
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	h.t.Cleanup(func() {
		cancel()
		if r.drain != nil {
			select {
			case <-r.drain:
			default:
				close(r.drain)
			}
		}
		<-r.done
	})
	h.mu.Lock()
	h.replicas = append(h.replicas, r)
	h.mu.Unlock()
	go func() {
		defer close(r.done)
		r.err = e.Run(ctx, func(ctx context.Context) {
			if h.leading.Add(1) > 1 {
				h.overlap.Store(true)
			}
			defer h.leading.Add(-1)
			r.leadCtx.Store(&ctx)
			<-ctx.Done()
			if r.drain != nil {
				<-r.drain
			}
		})
	}()
	h.settle()
	return r
}

// settle waits until every elector whose Run has not returned waits on the
// fake clock and one that acquired the Lease has called its lead function,
// so that the Lease and the replicas no longer change until the clock moves.
func (h *harness) settle() {
	h.t.Helper()
	deadline := time.Now().Add(settleTimeout)
	for {
		h.mu.Lock()
		running, starting := 0, false
		for _, r := range h.replicas {
			select {
			case <-r.done:
			default:
				running++
				starting = starting || (r.metrics.leading.Load() && r.leadCtx.Load() == nil)
			}
		}
		h.mu.Unlock()
		if h.clock.Waiters() == running && !starting {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%d electors running, %d waiting on the clock after %v", running, h.clock.Waiters(), settleTimeout)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// step moves the clock by d, in steps of at most one second so that no
// elector skips a wait, and lets the electors settle after each.
func (h *harness) step(d time.Duration) {
	h.t.Helper()
	for d > 0 {
		s := min(d, time.Second)
		h.clock.Step(s)
		d -= s
		h.settle()
		if h.overlap.Load() {
			h.t.Fatal("two replicas led at once")
		}
	}
}

// lease returns the Lease as stored, read past the clientset so that
// calls() counts the electors' calls only.
func (h *harness) lease() *coordinationv1.Lease {
	h.t.Helper()
	l, err := h.client.Tracker().Get(leasesGVR, testNS, testLease)
	if err != nil {
		h.t.Fatalf("get the Lease: %v", err)
	}
	return l.(*coordinationv1.Lease)
}

// waitReturned waits until r's Run returned, then for the others to settle.
func (h *harness) waitReturned(r *replica) {
	h.t.Helper()
	select {
	case <-r.done:
	case <-time.After(settleTimeout):
		h.t.Fatalf("Run of %s did not return in %v", r.id, settleTimeout)
	}
	h.settle()
}

// calls returns the verbs of the Lease calls since the last one, and
// forgets them.
func (h *harness) calls() []string {
	var verbs []string
	for _, a := range h.client.Actions() {
		if a.GetResource().Resource == "leases" {
			verbs = append(verbs, a.GetVerb())
		}
	}
	h.client.ClearActions()
	return verbs
}

// isLeading reports whether r runs its lead function with a live context.
func (r *replica) isLeading() bool {
	ctx := r.leadCtx.Load()
	return ctx != nil && (*ctx).Err() == nil
}

// returned reports whether r's Run returned.
func (r *replica) returned() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *replica) seenLeaders() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.leaders...)
}

// recordedMetrics remembers what the elector reported.
type recordedMetrics struct {
	leading  atomic.Bool
	slowPath atomic.Int32
}

func (m *recordedMetrics) Leading(v bool) { m.leading.Store(v) }
func (m *recordedMetrics) SlowPath()      { m.slowPath.Add(1) }

// holderOrNone is l's holder, "" without.
func holderOrNone(l *coordinationv1.Lease) string { return ptr.Deref(l.Spec.HolderIdentity, "") }
