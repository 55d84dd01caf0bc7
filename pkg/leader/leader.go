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

// Package leader elects one replica among several on a coordination.k8s.io/v1
// Lease, with the protocol of client-go's leader election (the same Lease
// fields, timings and number of API calls), so that replicas of this package
// and of client-go's elector can share a Lease during an upgrade.
//
// It exists so that the binary does not link client-go's leaderelection,
// which pulls in the typed clientset, its scheme of every API group and the
// informer factories; it writes the Lease through Leases, which client-go's
// typed LeaseInterface and any narrower client satisfy.
//
// A replica trusts its own clock only: a Lease held by another replica is
// taken once this replica has seen no change to it for the holder's
// leaseDurationSeconds, whatever the timestamps in the Lease say.
package leader

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// JitterFactor, client-go's, stretches the wait between two attempts to
// acquire the Lease by up to this factor of RetryPeriod, so that standbys do
// not ask in step; RenewDeadline must exceed JitterFactor times RetryPeriod.
const JitterFactor = 1.2

// ErrLost is returned by Run when this replica stopped leading because it
// could not renew the Lease in time, or saw another replica holding it.
var ErrLost = errors.New("lost the leader election Lease")

// Leases reads and writes the Leases of one namespace. Its methods are those
// of client-go's typed LeaseInterface, which satisfies it.
type Leases interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error)
	Create(ctx context.Context, lease *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error)
	Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error)
}

// Metrics is told when this replica starts or stops leading, and when a
// renewal had to read the Lease again because the write of its last known
// version failed (client-go calls it the slow path).
type Metrics interface {
	Leading(leading bool)
	SlowPath()
}

// Config says which Lease to hold, as whom, and how often to write it.
type Config struct {
	// Leases reads and writes the Lease Namespace/Name.
	Leases          Leases
	Namespace, Name string
	// Identity is this replica's holderIdentity; unique among the replicas.
	Identity string
	// Labels and Annotations are set on the Lease when this replica writes it.
	Labels, Annotations map[string]string

	// LeaseDuration is how long a standby waits, from the last change it
	// saw, before it takes the Lease of a silent holder; RenewDeadline how
	// long the leader tries to renew before it gives up; RetryPeriod the wait
	// between two renewals, and the base of the jittered wait between two
	// attempts to acquire.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// ReleaseOnCancel writes the Lease without a holder when Run ends while
	// leading, so that a standby takes over at its next attempt.
	ReleaseOnCancel bool

	// OnNewLeader, when set, is called with the holder each time this replica
	// sees the holder change, "" for a released Lease. It must not block.
	OnNewLeader func(identity string)
	// Metrics, when set, follows the leadership of this replica.
	Metrics Metrics
	// Clock is the time source; nil means the real clock.
	Clock clock.Clock
}

// Elector takes part in the election on one Lease.
type Elector struct {
	c     Config
	clock clock.Clock

	mu sync.Mutex
	// lease is the last version of the Lease this replica read or wrote;
	// its resourceVersion makes the next write fail if another wrote since.
	lease *coordinationv1.Lease
	// seen is when this replica last saw lease's spec change, by its clock.
	seen time.Time
	// reported is the holder last passed to OnNewLeader.
	reported string
}

// New checks c and returns an Elector for it, which starts with Run.
func New(c Config) (*Elector, error) {
	switch {
	case c.Leases == nil:
		return nil, errors.New("no Leases client")
	case c.Name == "":
		return nil, errors.New("no Lease name")
	case c.Identity == "":
		return nil, errors.New("no identity")
	case c.LeaseDuration <= 0 || c.RenewDeadline <= 0 || c.RetryPeriod <= 0:
		return nil, fmt.Errorf("lease duration (%v), renew deadline (%v) and retry period (%v) must be greater than zero",
			c.LeaseDuration, c.RenewDeadline, c.RetryPeriod)
	case c.LeaseDuration <= c.RenewDeadline:
		return nil, fmt.Errorf("lease duration (%v) must be greater than the renew deadline (%v)", c.LeaseDuration, c.RenewDeadline)
	case c.RenewDeadline <= time.Duration(JitterFactor*float64(c.RetryPeriod)):
		return nil, fmt.Errorf("renew deadline (%v) must be greater than %v times the retry period (%v)", c.RenewDeadline, JitterFactor, c.RetryPeriod)
	}
	e := &Elector{c: c, clock: c.Clock}
	if e.clock == nil {
		e.clock = clock.RealClock{}
	}
	if e.c.Metrics == nil {
		e.c.Metrics = noMetrics{}
	}
	e.c.Metrics.Leading(false)
	return e, nil
}

// Describe names the Lease as namespace/name, for logs.
func (e *Elector) Describe() string {
	return e.c.Namespace + "/" + e.c.Name
}

// Identity is this replica's holderIdentity.
func (e *Elector) Identity() string {
	return e.c.Identity
}

// IsLeader reports whether the last version of the Lease this replica saw
// names it as the holder. It stays true after renewals failed until the
// Lease is seen again, as client-go's does: Check then turns unhealthy.
func (e *Elector) IsLeader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.holderLocked() == e.c.Identity
}

// Check is the health check of client-go's HealthzAdaptor with a timeout of
// RenewDeadline: it fails when this replica believes it leads but has not
// renewed the Lease for longer than LeaseDuration plus RenewDeadline, so a
// leader whose renewals are stuck gets restarted. A standby is healthy.
func (e *Elector) Check() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.holderLocked() != e.c.Identity {
		return nil
	}
	if e.clock.Since(e.seen) > e.c.LeaseDuration+e.c.RenewDeadline {
		return fmt.Errorf("failed to renew the leader election Lease %s for %v", e.Describe(), e.clock.Since(e.seen).Round(time.Second))
	}
	return nil
}

// Run waits until this replica holds the Lease, then calls lead and renews
// the Lease while lead runs. lead's context ends when ctx does or when the
// Lease is lost; Run returns only after lead returned, and only then
// releases the Lease (with ReleaseOnCancel), so the next leader never
// overlaps lead's work. Run returns ErrLost when the Lease was lost, nil when
// ctx ended or lead returned on its own. An Elector runs once.
func (e *Elector) Run(ctx context.Context, lead func(context.Context)) error {
	logger := klog.FromContext(ctx).WithValues("lease", e.Describe())
	ctx = klog.NewContext(ctx, logger)
	if !e.acquire(ctx) {
		return nil
	}
	defer e.c.Metrics.Leading(false)
	if ctx.Err() == nil {
		leadCtx, stopLead := context.WithCancel(ctx)
		defer stopLead()
		// Renewals go on while lead drains after ctx ended.
		renewCtx, stopRenew := context.WithCancel(context.WithoutCancel(ctx))
		lost := false
		renewed := make(chan struct{})
		go func() {
			defer close(renewed)
			if !e.renew(renewCtx) {
				lost = true
				stopLead()
			}
		}()
		lead(leadCtx)
		stopRenew()
		<-renewed
		if lost {
			return ErrLost
		}
	}
	if e.c.ReleaseOnCancel {
		e.release(ctx)
	}
	return nil
}

// acquire tries to take or renew the Lease every RetryPeriod, jittered,
// until it holds it (true) or ctx ends (false).
func (e *Elector) acquire(ctx context.Context) bool {
	logger := klog.FromContext(ctx)
	logger.Info("Attempting to acquire the leader election Lease")
	for ctx.Err() == nil {
		ok := e.tryAcquireOrRenew(ctx)
		e.reportLeader()
		if ok {
			e.c.Metrics.Leading(true)
			logger.Info("Acquired the leader election Lease")
			return true
		}
		logger.V(4).Info("Lease not acquired")
		jitter := time.Duration(rand.Float64() * JitterFactor * float64(e.c.RetryPeriod))
		if !e.sleep(ctx, e.c.RetryPeriod+jitter) {
			break
		}
	}
	return false
}

// sleep waits d on the elector's clock; false when ctx ended first.
func (e *Elector) sleep(ctx context.Context, d time.Duration) bool {
	t := e.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// reportLeader calls OnNewLeader when the holder seen changed.
func (e *Elector) reportLeader() {
	e.mu.Lock()
	holder := e.holderLocked()
	changed := holder != e.reported
	e.reported = holder
	e.mu.Unlock()
	if changed && e.c.OnNewLeader != nil {
		e.c.OnNewLeader(holder)
	}
}

type noMetrics struct{}

func (noMetrics) Leading(bool) {}
func (noMetrics) SlowPath()    {}
