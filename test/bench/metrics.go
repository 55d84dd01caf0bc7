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

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// metric returns the value of the sample of the resizer's /metrics named
// name with labels (and maybe others), and whether it is there.
func (r *rig) metric(ctx context.Context, name string, labels map[string]string) (float64, bool, error) {
	return metricAt(ctx, r.httpAddr, name, labels)
}

// metricAt is rig.metric of the resizer whose diagnostics endpoint is addr.
func metricAt(ctx context.Context, addr, name string, labels map[string]string) (float64, bool, error) {
	m, err := framework.ScrapeMetrics(ctx, addr)
	if err != nil {
		return 0, false, err
	}
	v, ok := framework.MetricValue(m, name, labels)
	return v, ok, nil
}

// bytesMetric reads a metric of the resizer that must be there, in bytes.
func (r *rig) bytesMetric(ctx context.Context, name string) (int64, error) {
	v, ok, err := r.metric(ctx, name, nil)
	if err == nil && !ok {
		err = fmt.Errorf("no %s in /metrics", name)
	}
	return int64(v), err
}
