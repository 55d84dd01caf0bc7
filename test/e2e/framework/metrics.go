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

package framework

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/component-base/metrics/testutil"
)

// The one scraper of the resizer's /metrics for the e2e suite, chaos, the
// benchmark and the demo: the Prometheus text parser, through
// component-base's testutil.

// ParseMetrics returns the samples of text by metric name; a histogram's
// are under name_bucket, name_sum and name_count. A text that is not of
// the format is an error: the text is checked first, since
// testutil.ParseMetrics alone never returns on one.
func ParseMetrics(text string) (testutil.Metrics, error) {
	if _, err := testutil.TextToMetricFamilies(strings.NewReader(text)); err != nil {
		return nil, err
	}
	m := testutil.NewMetrics()
	return m, testutil.ParseMetrics(text, &m)
}

// HasLabels reports whether s carries each of labels with its value.
func HasLabels(s *testutil.Sample, labels map[string]string) bool {
	for name, value := range labels {
		if string(s.Metric[testutil.LabelName(name)]) != value {
			return false
		}
	}
	return true
}

// MetricValue is the value of the first sample of name with labels (and
// maybe others), and whether there is one.
func MetricValue(m testutil.Metrics, name string, labels map[string]string) (float64, bool) {
	for _, s := range m[name] {
		if HasLabels(s, labels) {
			return float64(s.Value), true
		}
	}
	return 0, false
}

// ScrapeMetrics fetches and parses the /metrics of the diagnostics
// endpoint at addr (host:port).
func ScrapeMetrics(ctx context.Context, addr string) (testutil.Metrics, error) {
	code, body, err := HTTPGet(ctx, addr, "/metrics")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("GET http://%s/metrics: answered %d", addr, code)
	}
	m, err := ParseMetrics(string(body))
	if err != nil {
		return nil, fmt.Errorf("http://%s/metrics: %w", addr, err)
	}
	return m, nil
}

// HTTPGet fetches a path of the diagnostics endpoint at addr (host:port).
func HTTPGet(ctx context.Context, addr, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var b strings.Builder
	s := bufio.NewScanner(resp.Body)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		b.WriteString(s.Text())
		b.WriteByte('\n')
	}
	return resp.StatusCode, []byte(b.String()), s.Err()
}
