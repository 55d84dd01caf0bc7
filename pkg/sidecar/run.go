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

// Package sidecar wires the resizer together: flags to clients, the driver
// connection, informers, the controller, leader election and diagnostics.
package sidecar

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	// client-go's rest client, cache and work queue metrics; leader.go has
	// the leader election ones (not clientgo/leaderelection, which would
	// link client-go's elector and the typed clientset).
	_ "k8s.io/component-base/metrics/prometheus/clientgo/fifo"
	_ "k8s.io/component-base/metrics/prometheus/restclient"
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/controller"
	"github.com/csi-resizer/csi-resizer/pkg/driver"
	resizemetrics "github.com/csi-resizer/csi-resizer/pkg/metrics"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// ErrDriverLost is returned when the connection to the driver drops: the
// sidecar exits and its container restarts, as every CSI sidecar does.
var ErrDriverLost = errors.New("lost connection to the CSI driver")

// Run runs the sidecar until ctx ends (SIGTERM) or something fatal happens.
func Run(ctx context.Context, o *options.Options) error {
	config, err := restConfig(o)
	if err != nil {
		return err
	}
	cs, err := newClients(config)
	if err != nil {
		return err
	}
	return run(ctx, o, cs)
}

// run is Run with the API clients made.
func run(ctx context.Context, o *options.Options, cs *clients) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	mm := metrics.NewCSIMetricsManagerForSidecar("")
	mm.WithAdditionalRegistry(legacyregistry.DefaultGatherer)
	s := &server{ctx: ctx, driverLost: func() bool { return errors.Is(context.Cause(ctx), ErrDriverLost) }}
	s.waitingFor(fmt.Errorf("connecting to the CSI driver at %q", o.CSIAddress))
	if err := s.start(o, mm); err != nil {
		return err
	}
	d, err := connectDriver(ctx, o, mm, s.waitingFor, func() { cancel(ErrDriverLost) })
	if err != nil && ctx.Err() != nil {
		// Stopped (SIGTERM) while waiting for the driver: a shutdown, not a failure.
		klog.FromContext(ctx).Info("Stopped while waiting for the CSI driver", "reason", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	defer func() { _ = d.client.Close() }()
	mm.SetDriverName(d.name)

	s.waitingFor(errors.New("starting the controller"))
	ctrl, stopEvents, err := newController(ctx, o, cs, d, mm)
	if err != nil {
		return err
	}
	defer stopEvents()
	s.registerClaims(mm.GetRegistry(), d, ctrl)
	s.running(ctrl)

	work := func(ctx context.Context) error {
		s.leading.Store(true)
		stop := make(chan struct{})
		defer close(stop)
		ctrl.informers.start(stop)
		go ctrl.informers.releaseAfterSync(stop)
		if err := ctrl.Run(ctx, o.Workers); err != nil && ctx.Err() == nil {
			return err
		}
		// Stopped before the caches synced: a shutdown, not a failure.
		return nil
	}
	published := publishedSettings(o, d.caps.OnlyOffline())
	switch {
	case o.LeaderElection:
		release := o.Features.Enabled(options.ReleaseLeaderElectionOnExit)
		err = runLeading(ctx, o, cs.leader.CoordinationV1().Leases(o.LeaseNamespace()), d.name, published, s.mux, release, work)
	case ctrl.node != "":
		// Every instance works on its node's claims from the start: it is
		// ready only once its caches have synced, like a leader.
		s.leading.Store(true)
		err = runBeating(ctx, o, cs.leader, d.name, ctrl.node, published, work)
	default:
		err = work(ctx)
	}
	if errors.Is(context.Cause(ctx), ErrDriverLost) {
		return fmt.Errorf("%w at %s", ErrDriverLost, o.CSIAddress)
	}
	if err == nil {
		klog.FromContext(ctx).Info("Stopped")
	}
	return err
}

// resizeController is the controller with the informers it reads.
type resizeController struct {
	*controller.Controller
	informers *informers
	// node is the instance's node with --node-deployment, "" without.
	node string
}

func newController(ctx context.Context, o *options.Options, cs *clients, d *connectedDriver, mm metrics.CSIMetricsManager) (*resizeController, func(), error) {
	rz := d.resizer(o.ResizeTimeout)
	modifies, why, err := modification(o, d, cs.work.Discovery())
	if err != nil {
		return nil, nil, err
	}
	if rz == nil && !modifies {
		return nil, nil, fmt.Errorf("CSI driver %s supports neither controller nor node volume expansion, and volume modification is off (%s): resizing is unsupported", d.name, why)
	}
	logger := klog.FromContext(ctx)
	if rz == nil {
		logger.Info("Volume expansion is off: the CSI driver supports neither controller nor node expansion", "driver", d.name)
	}
	if !modifies {
		logger.Info("Volume modification is off: "+why, "driver", d.name)
	}
	node, err := nodeOf(ctx, o, cs.work)
	if err != nil {
		return nil, nil, err
	}
	nodeName := "" // without --node-deployment
	if node != nil {
		nodeName = node.Name
	}
	watchPods, why := podWatchOf(o.HandleVolumeInUseError, d.caps, nodeName)
	logger.Info(podWatchMessage[watchPods], "driver", d.name, "reason", why)
	inf, err := newInformers(cs.work, o.ResyncPeriod, watchPods, modifies, node)
	if err != nil {
		return nil, nil, fmt.Errorf("informers: %w", err)
	}
	recorder, stopEvents := newRecorder(cs.events, d.name)
	cfg := controller.Config{
		Driver:              d.name,
		Resizer:             rz,
		AttributeClasses:    inf.attributeClasses,
		ExtraModifyMetadata: o.ExtraModifyMetadata,
		Client:              cs.work,
		Identity:            userOf(ctx, cs.work),
		Recorder:            recorder,
		Claims:              inf.claims,
		Volumes:             inf.volumes,
		Classes:             inf.classes,
		Pods:                inf.tracker,
		Node:                inf.nodeWatcher,
		OnlyOffline:         d.caps.OnlyOffline(),
		RetryStart:          o.RetryIntervalStart,
		RetryMax:            o.RetryIntervalMax,
		AnnotateFsResize:    o.Features.Enabled(options.AnnotateFsResize),
		Recovery:            o.Features.Enabled(options.RecoverVolumeExpansionFailure),
		Observer:            resizemetrics.NewOutcomes(mm.GetRegistry(), d.name),
	}
	if modifies {
		cfg.Modifier = &driver.VolumeModifier{Driver: d.client, Timeout: o.ModifyTimeout}
	}
	ctrl, err := controller.New(cfg)
	if err != nil {
		stopEvents()
		return nil, nil, err
	}
	return &resizeController{Controller: ctrl, informers: inf, node: nodeName}, stopEvents, nil
}

// publishedSettings are the Lease annotations (options.SettingsAnnotation)
// that publish what explain reasons with, on the leader election and node
// Leases alike: explain reads the Lease it finds the resizer by, and needs
// no access to the resizer's pod.
func publishedSettings(o *options.Options, offlineOnly bool) map[string]string {
	return options.Published{
		RetryIntervalStart:     options.Duration(o.RetryIntervalStart),
		RetryIntervalMax:       options.Duration(o.RetryIntervalMax),
		Recovery:               o.Features.Enabled(options.RecoverVolumeExpansionFailure),
		HandleVolumeInUseError: o.HandleVolumeInUseError,
		ResizeTimeout:          options.Duration(o.ResizeTimeout),
		ModifyTimeout:          options.Duration(o.ModifyTimeout),
		NodeDeployment:         o.NodeDeployment,
		OfflineOnly:            offlineOnly,
		AnnotateFsResize:       o.Features.Enabled(options.AnnotateFsResize),
	}.Annotations()
}
