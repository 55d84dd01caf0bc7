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

// Package metrics holds the resizer's own metrics and the diagnostics HTTP
// server: metrics, /healthz, /readyz and the leader election health check.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
)

// Outcomes observes how long each expansion and each modification attempt
// took, by result, and counts the writes the API server did not take.
// Claim names never become labels: their number is unbounded.
type Outcomes struct {
	driver         string
	resize, modify *k8smetrics.HistogramVec
	writeFailures  *k8smetrics.CounterVec
}

// NewOutcomes registers csi_resizer_resize_duration_seconds,
// csi_resizer_modify_duration_seconds and
// csi_resizer_api_write_failures_total.
func NewOutcomes(registry k8smetrics.KubeRegistry, driver string) *Outcomes {
	d := &Outcomes{
		driver: driver,
		resize: histogram("resize_duration_seconds", "Duration of volume expansion attempts, from the decision to the recorded result, by result (finished, node_pending, or the failure class)."),
		modify: histogram("modify_duration_seconds", "Duration of volume modification attempts (VolumeAttributesClass), from the decision to the recorded result, by result (finished, or the failure class)."),
		writeFailures: k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
			Namespace:      "csi_resizer",
			Name:           "api_write_failures_total",
			Help:           "Writes of claims and PVs that the API server refused or did not answer, by resource and HTTP code (401 and 403: the resizer's RBAC; error: no answer). Conflicts are not counted: the object changed, and the claim is looked at again.",
			StabilityLevel: k8smetrics.ALPHA,
		}, []string{"driver_name", "resource", "code"}),
	}
	registry.MustRegister(d.resize, d.modify, d.writeFailures)
	return d
}

func histogram(name, help string) *k8smetrics.HistogramVec {
	return k8smetrics.NewHistogramVec(&k8smetrics.HistogramOpts{
		Namespace:      "csi_resizer",
		Name:           name,
		Help:           help,
		Buckets:        []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"driver_name", "result"})
}

// ObserveResize records one expansion attempt.
func (d *Outcomes) ObserveResize(result string, took time.Duration) {
	d.resize.WithLabelValues(d.driver, result).Observe(took.Seconds())
}

// ObserveModify records one modification attempt.
func (d *Outcomes) ObserveModify(result string, took time.Duration) {
	d.modify.WithLabelValues(d.driver, result).Observe(took.Seconds())
}

// ObserveWriteFailure counts one failed write of resource.
func (d *Outcomes) ObserveWriteFailure(resource, code string) {
	d.writeFailures.WithLabelValues(d.driver, resource, code).Inc()
}

// Check reports nil when healthy, or what is wrong.
type Check func() error

// NewMux returns the diagnostics endpoints: /healthz answers while the
// process runs, /readyz runs ready. Metrics and the leader election check
// are registered on it by their owners.
func NewMux(ready Check) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := ready(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = fmt.Fprintln(w, "ok")
	})
	return mux
}

// Serve listens on addr until ctx is done. A failure to listen is returned
// at once, so a wrong --http-endpoint stops the sidecar with a clear error.
func Serve(ctx context.Context, addr string, h http.Handler) (<-chan error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on --http-endpoint %q: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			klog.FromContext(ctx).Error(err, "Diagnostics server did not stop cleanly")
		}
	}()
	klog.FromContext(ctx).V(2).Info("Serving diagnostics", "address", ln.Addr().String())
	return done, nil
}
