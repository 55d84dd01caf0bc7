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
	"maps"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-helpers/apimachinery/lease"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

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

// heartbeat renews the node Lease of driver's instance on node until ctx
// ends, then deletes it, so that a resizer that stops says so at once
// rather than after the Lease's duration. A Lease left by an instance that
// died is replaced at the start. The Lease carries options.NodeLeaseLabel,
// by which explain and list find the driver's instances.
func heartbeat(ctx context.Context, o *options.Options, client kubernetes.Interface, driver, node string) (stop func(), err error) {
	id, err := identity()
	if err != nil {
		return nil, err
	}
	name, namespace := options.NodeLeaseName(driver, node), leaseNamespace(o)
	logger := klog.FromContext(ctx).WithValues("lease", klog.KRef(namespace, name))
	hold := func(l *coordinationv1.Lease) error {
		holder := id
		l.Spec.HolderIdentity = &holder
		if l.Labels == nil {
			l.Labels = map[string]string{}
		}
		maps.Copy(l.Labels, o.LeaderElectionLabels) // l is the controller's copy
		l.Labels[options.NodeLeaseLabel] = options.NodeLeaseValue(driver)
		return nil
	}
	failing := func() {
		logger.Info("The node Lease could not be renewed: kubectl csi-resizer explain will say no resizer runs on this node")
	}
	c := lease.NewController(clock.RealClock{}, client, id, int32(nodeLeaseDuration/time.Second), failing, nodeLeaseRenew, name, namespace, hold)
	done := make(chan struct{})
	if err := c.Start(done); err != nil {
		return nil, err
	}
	logger.Info("Renewing the node Lease", "identity", id, "every", nodeLeaseRenew)
	return func() {
		close(done)
		c.Stop()
	}, nil
}

// runBeating runs run while the node Lease is renewed.
func runBeating(ctx context.Context, o *options.Options, client kubernetes.Interface, driver, node string, run func(context.Context) error) error {
	stop, err := heartbeat(ctx, o, client, driver, node)
	if err != nil {
		return err
	}
	defer stop()
	return run(ctx)
}
