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
	"slices"
	"strings"

	"k8s.io/component-base/metrics/testutil"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// checkClaims scrapes once and checks csi_resizer_claims against want: a
// measurement of a collector that counted nothing would be of nothing. It
// returns the number of series.
func (r *rig) checkClaims(ctx context.Context, want map[decide.Stage]int) (int, error) {
	_, _, text, err := r.scrape(ctx)
	if err != nil {
		return 0, err
	}
	m, err := framework.ParseMetrics(string(text))
	if err != nil {
		return 0, err
	}
	samples := m[claimsMetric]
	if err := checkCounts(samples, driverName, want); err != nil {
		return 0, err
	}
	say("  %s counts %s", claimsMetric, describeCounts(resizeCounts(want)))
	return len(samples), nil
}

// checkCounts checks the csi_resizer_claims samples: all of driver, each
// resize state at its count in want, every other state at 0, so their sum
// is the number of claims put in a state.
func checkCounts(samples testutil.Samples, driver string, want map[decide.Stage]int) error {
	if len(samples) == 0 {
		return fmt.Errorf("no %s in /metrics: the collector reports nothing", claimsMetric)
	}
	got := map[string]int{}
	sum := 0
	for _, s := range samples {
		if d := string(s.Metric["driver_name"]); d != driver {
			return fmt.Errorf("%s has a series of driver %q, want only %q", claimsMetric, d, driver)
		}
		got[string(s.Metric["operation"])+"/"+string(s.Metric["state"])] += int(s.Value)
		sum += int(s.Value)
	}
	wanted := resizeCounts(want)
	ok := sum == total(want)
	for key, n := range wanted {
		ok = ok && got[key] == n
	}
	if !ok {
		return fmt.Errorf("%s counts %d claims in a state (%s), want %d (%s)",
			claimsMetric, sum, describeCounts(got), total(want), describeCounts(wanted))
	}
	return nil
}

// resizeCounts keys want as the series' operation/state.
func resizeCounts(want map[decide.Stage]int) map[string]int {
	out := map[string]int{}
	for st, n := range want {
		out[string(decide.OpResize)+"/"+string(st)] = n
	}
	return out
}

// describeCounts lists the non-zero counts, sorted: "resize/node_pending 334, ...".
func describeCounts(counts map[string]int) string {
	var parts []string
	for key, n := range counts {
		if n != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", key, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

func total(counts map[decide.Stage]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
