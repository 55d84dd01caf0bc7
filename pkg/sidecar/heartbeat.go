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
	"fmt"
	"maps"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// With --node-deployment no instance leads, so no leader Lease tells
// whether one runs. Each instance keeps a Lease of its own renewed instead,
// named after its node (options.NodeLeaseName), as kubelet keeps its node
// Lease: kubectl csi-resizer explain and list read it to say whether the
// node that owns a claim has a live resizer.
const (
	// nodeLeaseDuration is how long a renewal holds: kubelet's 40 s.
	nodeLeaseDuration = 40 * time.Second
	// nodeLeaseRenew is how often the Lease is renewed: a quarter of its
	// duration, as kubelet does.
	nodeLeaseRenew = nodeLeaseDuration / 4
)

// nodeLeaseAttempts is how many times a renewal is tried before it waits
// for the next one; nodeLeaseBackoff is the first pause between two
// attempts, doubled each time up to a renewal interval.
const (
	nodeLeaseAttempts = 5
	nodeLeaseBackoff  = 100 * time.Millisecond
	// nodeLeaseCleanup bounds the deletion of the Lease at the stop.
	nodeLeaseCleanup = 10 * time.Second
)

// heartbeat renews the node Lease of driver's instance on node until ctx
// ends, then deletes it, so that a resizer that stops says so at once
// rather than after the Lease's duration. A Lease left by an instance that
// died is taken over by the first renewal, which runs in the background:
// the start never waits for the API server here (with hundreds of instances
// starting at once, a loaded API server took minutes to answer a start-up
// call, and the instance's caches waited for it). The Lease carries
// options.NodeLeaseLabel, by which explain and list find the driver's
// instances.
func heartbeat(ctx context.Context, o *options.Options, client kube.Interface, driver, node string, published map[string]string) (stop func(), err error) {
	id, err := identity()
	if err != nil {
		return nil, err
	}
	name, namespace := options.NodeLeaseName(driver, node), leaseNamespace(o)
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
	return func() {
		stopRenewing()
		<-done
		l.remove()
	}, nil
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

// runBeating runs run while the node Lease is renewed.
func runBeating(ctx context.Context, o *options.Options, client kube.Interface, driver, node string, published map[string]string, run func(context.Context) error) error {
	stop, err := heartbeat(ctx, o, client, driver, node, published)
	if err != nil {
		return err
	}
	defer stop()
	return run(ctx)
}
