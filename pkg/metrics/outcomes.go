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
