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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"

	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/leader"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// healthPath is where the leader election health check is served.
const healthPath = "/healthz/leader-election"

// errLeaseLost makes the process exit when it stops leading without being
// told to: another replica may be working already.
var errLeaseLost = errors.New("lost the leader election lease")

// runLeading runs run while holding the Lease, which leases reads and
// writes. On ctx's end it first lets run drain, then releases the Lease
// (when release is set), so the next leader never overlaps this one's work.
// When the Lease is lost, run is stopped and drained too before
// errLeaseLost is returned: leader.Elector.Run returns only after run did,
// so the caller never closes the driver's connection under a call.
func runLeading(ctx context.Context, o *options.Options, leases leader.Leases, driver string, published map[string]string, mux *http.ServeMux, release bool, run func(context.Context) error) error {
	elector, err := newElector(ctx, o, leases, driver, published, release)
	if err != nil {
		return err
	}
	serveHealth(mux, elector)
	var runErr error
	_ = elector.Run(ctx, func(leading context.Context) {
		klog.FromContext(ctx).Info("Became the leader", "lease", elector.Describe(), "identity", elector.Identity())
		runErr = run(leading)
	})
	if runErr != nil {
		return runErr
	}
	if ctx.Err() == nil {
		// The Lease was lost, or run returned on its own: either way another
		// replica must take over.
		return errLeaseLost
	}
	return nil
}

// serveHealth serves the leader election health check on mux, when there
// is a diagnostics server.
func serveHealth(mux *http.ServeMux, elector *leader.Elector) {
	if mux == nil {
		return
	}
	mux.Handle(healthPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := elector.Check(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = fmt.Fprintln(w, "ok")
	}))
}

// newElector returns the elector on the Lease of driver in leases, with the
// timings and labels of o and this replica's identity.
func newElector(ctx context.Context, o *options.Options, leases leader.Leases, driver string, published map[string]string, release bool) (*leader.Elector, error) {
	id, err := identity()
	if err != nil {
		return nil, err
	}
	namespace, name := leaseNamespace(o), options.LeaseName(driver)
	elector, err := leader.New(leader.Config{
		Leases: leases, Namespace: namespace, Name: name, Identity: id, Labels: o.LeaderElectionLabels,
		Annotations:   published,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod,
		ReleaseOnCancel: release,
		OnNewLeader: func(holder string) {
			klog.FromContext(ctx).V(2).Info("Leader", "identity", holder, "lease", namespace+"/"+name)
		},
		Metrics: newLeaderMetrics(id),
	})
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	return elector, nil
}

// The leader election metrics of client-go, under the same names and
// labels, which the chart's alerts and dashboard read. They are registered
// once an elector exists, as client-go's are, so a resizer without leader
// election serves none.
var (
	leaderStatus = k8smetrics.NewGaugeVec(&k8smetrics.GaugeOpts{
		Name:           "leader_election_master_status",
		Help:           "Whether this replica holds the leader election Lease (1) or stands by (0), by identity.",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"name"})
	leaderSlowPath = k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
		Name:           "leader_election_slowpath_total",
		Help:           "Renewals of the leader election Lease that had to read it again first, by identity.",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"name"})
	registerLeaderMetrics sync.Once
)

// leaderMetrics reports one elector's leadership under its identity.
type leaderMetrics struct{ id string }

func newLeaderMetrics(id string) leaderMetrics {
	registerLeaderMetrics.Do(func() {
		legacyregistry.MustRegister(leaderStatus, leaderSlowPath)
	})
	return leaderMetrics{id: id}
}

func (m leaderMetrics) Leading(leading bool) {
	v := 0.0
	if leading {
		v = 1
	}
	leaderStatus.WithLabelValues(m.id).Set(v)
}

func (m leaderMetrics) SlowPath() { leaderSlowPath.WithLabelValues(m.id).Inc() }

// identity is this replica's options.Identity: the host name (the pod name
// in a cluster) and a random part.
func identity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return options.Identity(host, hex.EncodeToString(b)), nil
}

// leaseNamespace is the namespace of the leader election Lease and of the
// node Lease: options.Options.LeaseNamespace, upstream's order.
func leaseNamespace(o *options.Options) string {
	return o.LeaseNamespace()
}
