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
	"maps"
	"net/http"
	"os"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/leader"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

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
	id, err := identity()
	if err != nil {
		return err
	}
	namespace, name := o.LeaseNamespace(), options.LeaseName(driver)
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
		return fmt.Errorf("leader election: %w", err)
	}
	if mux != nil {
		mux.Handle(healthPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := elector.Check(); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			_, _ = fmt.Fprintln(w, "ok")
		}))
	}
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

// With --node-deployment no instance leads, so no leader Lease tells
// whether one runs. Each instance keeps a Lease of its own renewed instead,
// named after its node (options.NodeLeaseName), as kubelet keeps its node
// Lease: kubectl csi-resizer explain and list read it to say whether the
// node that owns a claim has a live resizer.
const (
	// nodeLeaseDuration is kubelet's 40 s; it is renewed every quarter of
	// it, as kubelet does.
	nodeLeaseDuration = 40 * time.Second
	nodeLeaseRenew    = nodeLeaseDuration / 4
	// A renewal is tried nodeLeaseAttempts times, with a pause from
	// nodeLeaseBackoff doubling up to nodeLeaseRenew.
	nodeLeaseAttempts = 5
	nodeLeaseBackoff  = 100 * time.Millisecond
	// nodeLeaseCleanup bounds the deletion of the Lease at the stop.
	nodeLeaseCleanup = 10 * time.Second
)

// runBeating runs run while it renews the node Lease of driver's instance
// on node, then deletes the Lease, so that a resizer that stops says so at
// once rather than after the Lease's duration. A Lease left by an instance
// that died is taken over by the first renewal, which runs in the
// background: the start never waits for the API server here (with hundreds
// of instances starting at once, a loaded API server took minutes to answer
// a start-up call, and the instance's caches waited for it). The Lease
// carries options.NodeLeaseLabel, by which explain and list find the
// driver's instances.
func runBeating(ctx context.Context, o *options.Options, client kube.Interface, driver, node string, published map[string]string, run func(context.Context) error) error {
	id, err := identity()
	if err != nil {
		return err
	}
	name, namespace := options.NodeLeaseName(driver, node), o.LeaseNamespace()
	l := &nodeLease{
		leases: client.CoordinationV1().Leases(namespace),
		name:   name, namespace: namespace, holder: id, labels: o.LeaderElectionLabels, driver: driver,
		annotations: published,
		logger:      klog.FromContext(ctx).WithValues("lease", klog.KRef(namespace, name)),
	}
	renewing, stopRenewing := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait.JitterUntilWithContext(renewing, l.renew, nodeLeaseRenew, 0.04, true)
	}()
	l.logger.Info("Renewing the node Lease", "identity", id, "every", nodeLeaseRenew)
	defer func() {
		stopRenewing()
		<-done
		l.remove()
	}()
	return run(ctx)
}

// nodeLease is the node Lease of one instance, renewed by one goroutine.
type nodeLease struct {
	leases                  kube.LeaseInterface
	name, namespace, holder string
	labels                  map[string]string // --leader-election-labels
	annotations             map[string]string // publishedSettings
	driver                  string
	logger                  klog.Logger
	// last is the Lease as this instance last wrote it, nil when it must
	// be read again. An instance is the Lease's only writer, so an update
	// of last usually succeeds without a read.
	last *coordinationv1.Lease
}

// renew writes the Lease with a new renew time, creating it when it is
// gone; it tries nodeLeaseAttempts times, and says when that fails twice
// in a row: explain will then report no resizer on the node.
func (l *nodeLease) renew(ctx context.Context) {
	pause := nodeLeaseBackoff
	for attempt := 1; attempt <= nodeLeaseAttempts; attempt++ {
		err := l.write(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		l.last = nil
		l.logger.Error(err, "Renew the node Lease", "attempt", attempt)
		if attempt == 2 {
			l.logger.Info("The node Lease could not be renewed: kubectl csi-resizer explain will say no resizer runs on this node")
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, nodeLeaseRenew)
	}
}

// write updates the Lease from last, or from the API server's copy, or
// creates it.
func (l *nodeLease) write(ctx context.Context) error {
	base := l.last
	if base == nil {
		current, err := l.leases.Get(ctx, l.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			created, err := l.leases.Create(ctx, l.held(&coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: l.name, Namespace: l.namespace}}), metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("create: %w", err)
			}
			l.last = created
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		base = current
	}
	updated, err := l.leases.Update(ctx, l.held(base.DeepCopy()), metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	l.last = updated
	return nil
}

// held sets in lease (a copy) this instance as the holder, renewed now, and
// its labels only (--leader-election-labels and the one by which explain
// and list find it) and its published settings: a Lease taken over from a
// dead instance keeps none of that instance's labels or annotations.
func (l *nodeLease) held(lease *coordinationv1.Lease) *coordinationv1.Lease {
	holder, duration := l.holder, int32(nodeLeaseDuration/time.Second)
	lease.Spec.HolderIdentity = &holder
	lease.Spec.LeaseDurationSeconds = &duration
	lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	lease.Labels = maps.Clone(l.labels)
	if lease.Labels == nil {
		lease.Labels = map[string]string{}
	}
	lease.Labels[options.NodeLeaseLabel] = options.NodeLeaseValue(l.driver)
	lease.Annotations = maps.Clone(l.annotations)
	return lease
}

// remove deletes this instance's Lease at the stop. A failure is only
// logged: the Lease then expires.
func (l *nodeLease) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), nodeLeaseCleanup)
	defer cancel()
	if err := l.leases.Delete(ctx, l.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		l.logger.Error(err, "Delete the node Lease")
	}
	l.last = nil
}
