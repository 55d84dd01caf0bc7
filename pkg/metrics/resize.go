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
	"time"

	k8smetrics "k8s.io/component-base/metrics"
)

// ResizeDuration observes how long each expansion attempt took, by result.
// Claim names never become labels: their number is unbounded.
type ResizeDuration struct {
	driver string
	hist   *k8smetrics.HistogramVec
}

// NewResizeDuration registers csi_resizer_resize_duration_seconds.
func NewResizeDuration(registry k8smetrics.KubeRegistry, driver string) *ResizeDuration {
	hist := k8smetrics.NewHistogramVec(&k8smetrics.HistogramOpts{
		Namespace:      "csi_resizer",
		Name:           "resize_duration_seconds",
		Help:           "Duration of volume expansion attempts, from the decision to the recorded result, by result (finished, node_pending, or the failure class).",
		Buckets:        []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"driver_name", "result"})
	registry.MustRegister(hist)
	return &ResizeDuration{driver: driver, hist: hist}
}

// ObserveResize records one attempt.
func (r *ResizeDuration) ObserveResize(result string, d time.Duration) {
	r.hist.WithLabelValues(r.driver, result).Observe(d.Seconds())
}
