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
	"os"
	"sort"
	"strings"
	"time"

	"k8s.io/component-base/metrics/testutil"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// apiServerFigures are what kube-apiserver's /metrics say about watches.
type apiServerFigures struct {
	// Watches is the sum of apiserver_longrunning_requests{verb="WATCH"}:
	// the watches open now, the server's own loopback watches included.
	// ByResource splits it by resource (with its group).
	Watches    int
	ByResource map[string]int
	// Events and Bytes are the watch events the server has sent to
	// watchers since it started, and their size
	// (apiserver_watch_events_total, apiserver_watch_events_sizes_sum).
	Events, Bytes float64
}

// readAPIServerFigures reads the figures of a /metrics text of
// kube-apiserver. apiserver_registered_watchers, which counted watchers
// by kind, is gone from recent releases; apiserver_longrunning_requests is
// stable.
func readAPIServerFigures(m testutil.Metrics) apiServerFigures {
	f := apiServerFigures{ByResource: map[string]int{}}
	for _, s := range m["apiserver_longrunning_requests"] {
		if s.Metric["verb"] != "WATCH" {
			continue
		}
		n := int(s.Value)
		f.Watches += n
		resource := string(s.Metric["resource"])
		if g := string(s.Metric["group"]); g != "" {
			resource += "." + g
		}
		f.ByResource[resource] += n
	}
	for _, s := range m["apiserver_watch_events_total"] {
		f.Events += float64(s.Value)
	}
	for _, s := range m["apiserver_watch_events_sizes_sum"] {
		f.Bytes += float64(s.Value)
	}
	return f
}

// watchesAdded describes, as "n × resource" by decreasing count, the
// watches open in after that were not in before.
func watchesAdded(before, after apiServerFigures) string {
	type kv struct {
		k string
		n int
	}
	var added []kv
	for k, n := range after.ByResource {
		if d := n - before.ByResource[k]; d != 0 {
			added = append(added, kv{k, d})
		}
	}
	sort.Slice(added, func(i, j int) bool {
		if added[i].n != added[j].n {
			return added[i].n > added[j].n
		}
		return added[i].k < added[j].k
	})
	var parts []string
	for _, a := range added {
		parts = append(parts, fmt.Sprintf("%d × %s", a.n, a.k))
	}
	return strings.Join(parts, ", ")
}

// processCPU is utime+stime of pid.
func processCPU(pid int) (time.Duration, error) {
	text, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(text))
}

// sample is the state of the machine at one moment of a scenario.
type sample struct {
	At              time.Time
	APIServer, Etcd time.Duration // CPU so far
	Resizers        time.Duration // the fleet's CPU so far; 0 without one
	Figures         apiServerFigures
	Machine         cpuSnapshot
}

// takeSample reads the control plane's and the fleet's CPU (f may be nil)
// and the API server's /metrics.
func (n *nodesRun) takeSample(ctx context.Context, f *fleet) (sample, error) {
	s := sample{At: time.Now()}
	var err error
	if s.APIServer, err = processCPU(n.apiserver); err != nil {
		return s, fmt.Errorf("kube-apiserver: %w", err)
	}
	if s.Etcd, err = processCPU(n.etcd); err != nil {
		return s, fmt.Errorf("etcd: %w", err)
	}
	if f != nil {
		if s.Resizers, err = f.cpu(); err != nil {
			return s, err
		}
	}
	if s.Machine, err = takeCPUSnapshot(); err != nil {
		return s, err
	}
	body, err := n.r.cluster.Admin.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return s, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	m, err := framework.ParseMetrics(string(body))
	if err != nil {
		return s, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	s.Figures = readAPIServerFigures(m)
	return s, nil
}

// phase is what a span of a scenario cost.
type phase struct {
	Wall                      time.Duration
	APIServer, Etcd, Resizers time.Duration
	// WatchEvents and WatchBytes are the watch events the API server sent
	// meanwhile (to every watcher) and their size.
	WatchEvents, WatchBytes float64
	// Foreign is the CPU other processes of the machine took meanwhile.
	Foreign string
}

// phaseBetween is what happened from a to b.
func phaseBetween(a, b sample, nproc int) phase {
	return phase{
		Wall:      b.At.Sub(a.At),
		APIServer: b.APIServer - a.APIServer, Etcd: b.Etcd - a.Etcd, Resizers: b.Resizers - a.Resizers,
		WatchEvents: b.Figures.Events - a.Figures.Events, WatchBytes: b.Figures.Bytes - a.Figures.Bytes,
		Foreign: foreignLoad(a.Machine, b.Machine, nproc),
	}
}
