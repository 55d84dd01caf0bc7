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
	"net/http"
	"sync/atomic"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	resizemetrics "github.com/csi-resizer/csi-resizer/pkg/metrics"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// server is the diagnostics endpoint: metrics and health. It serves from
// the start, before the driver is reached, so that /healthz answers while
// the sidecar waits and /readyz says what it waits for.
type server struct {
	ctx        context.Context
	mux        *http.ServeMux
	driverLost func() bool
	// waiting is why the sidecar does not run yet (the driver's socket, its
	// Probe, the controller's start); it holds nil once it runs.
	waiting atomic.Pointer[error]
	ctrl    atomic.Pointer[resizeController]
	leading atomic.Bool
}

// start serves --http-endpoint (or the deprecated --metrics-address) when
// set. A replica that does not lead is ready once the driver is connected:
// it has no caches to sync.
func (s *server) start(o *options.Options, mm metrics.CSIMetricsManager) error {
	addr := o.Addr()
	if addr == "" {
		return nil
	}
	s.mux = resizemetrics.NewMux(s.ready)
	mm.RegisterToServer(s.mux, o.MetricsPath)
	done, err := resizemetrics.Serve(s.ctx, addr, s.mux)
	if err != nil {
		return err
	}
	go func() {
		if err := <-done; err != nil {
			klog.FromContext(s.ctx).Error(err, "Diagnostics server stopped")
		}
	}()
	return nil
}

// waitingFor records why the sidecar does not run yet; nil means it runs.
func (s *server) waitingFor(why error) { s.waiting.Store(&why) }

// running records the controller, and that nothing is waited for any more.
func (s *server) running(ctrl *resizeController) {
	s.ctrl.Store(ctrl)
	s.waitingFor(nil)
}

// Leading reports whether this replica leads and its caches have synced:
// only then does it report claims by state.
func (s *server) Leading() bool {
	ctrl := s.ctrl.Load()
	return s.leading.Load() && ctrl != nil && ctrl.Ready()
}

// registerClaims registers the claims-by-state metrics, which read the
// controller's caches at each scrape.
func (s *server) registerClaims(registry k8smetrics.KubeRegistry, d *connectedDriver, ctrl *resizeController) {
	inf := ctrl.informers
	cfg := resizemetrics.ClaimsConfig{
		Driver: d.name, Node: inf.nodeWatcher, Claims: inf.claims.GetIndexer(), Volumes: inf.volumes.GetIndexer(), Leader: s,
	}
	if inf.tracker != nil { // the controller's own answer, when it watches pods
		cfg.HeldBack = ctrl.HeldBackByPods
	}
	resizemetrics.RegisterClaims(registry, cfg)
}

func (s *server) ready() error {
	if s.driverLost() {
		return errors.New("CSI driver connection lost")
	}
	if why := s.waiting.Load(); why != nil && *why != nil {
		return *why
	}
	if ctrl := s.ctrl.Load(); s.leading.Load() && (ctrl == nil || !ctrl.Ready()) {
		return errors.New("informer caches are not synced yet")
	}
	return nil
}
