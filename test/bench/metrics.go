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

package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/component-base/metrics/testutil"
)

// The resizer's /metrics are read with the Prometheus text parser, through
// component-base's testutil.

// parseMetrics returns the samples of text by metric name; a histogram's
// are under name_bucket, name_sum and name_count. A text that is not of
// the format is an error: the text is checked first, since
// testutil.ParseMetrics alone never returns on one.
func parseMetrics(text string) (testutil.Metrics, error) {
	if _, err := testutil.TextToMetricFamilies(strings.NewReader(text)); err != nil {
		return nil, err
	}
	m := testutil.NewMetrics()
	return m, testutil.ParseMetrics(text, &m)
}

// hasLabels reports whether s carries each of labels with its value.
func hasLabels(s *testutil.Sample, labels map[string]string) bool {
	for name, value := range labels {
		if string(s.Metric[testutil.LabelName(name)]) != value {
			return false
		}
	}
	return true
}

// metric returns the value of the sample of the resizer's /metrics named
// name with labels (and maybe others), and whether it is there.
func (r *rig) metric(ctx context.Context, name string, labels map[string]string) (float64, bool, error) {
	return metricAt(ctx, r.httpAddr, name, labels)
}

// metricAt is rig.metric of the resizer whose diagnostics endpoint is addr.
func metricAt(ctx context.Context, addr, name string, labels map[string]string) (float64, bool, error) {
	code, body, err := httpGet(ctx, addr, "/metrics")
	if err != nil {
		return 0, false, err
	}
	if code != http.StatusOK {
		return 0, false, fmt.Errorf("/metrics answered %d", code)
	}
	m, err := parseMetrics(string(body))
	if err != nil {
		return 0, false, fmt.Errorf("/metrics: %w", err)
	}
	for _, s := range m[name] {
		if hasLabels(s, labels) {
			return float64(s.Value), true, nil
		}
	}
	return 0, false, nil
}

// bytesMetric reads a metric of the resizer that must be there, in bytes.
func (r *rig) bytesMetric(ctx context.Context, name string) (int64, error) {
	v, ok, err := r.metric(ctx, name, nil)
	if err == nil && !ok {
		err = fmt.Errorf("no %s in /metrics", name)
	}
	return int64(v), err
}
