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
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// throughputResult is one run of N claims grown at once.
type throughputResult struct {
	Setting setting
	N       int
	// Wall runs from the first grow sent to the last claim seen finished;
	// GrowSpan is how long sending every grow took.
	Wall, GrowSpan time.Duration
	Latency        summary
	// Finish holds, sorted, when each claim finished, from the first grow.
	Finish []time.Duration
	// Requests are the resizer's requests over its whole life.
	Requests tally
	// WorkRate and EventRate are the resizer's requests per second while
	// the claims were being resized: work (reads and writes) and events.
	WorkRate, EventRate float64
	// EventLag is how long after the last finished claim the last event
	// was written.
	EventLag time.Duration
	// Peak is VmHWM; CPU is the CPU time spent from the first grow until
	// the last event was written; CPUTotal is the whole life's.
	Peak          int64
	CPU, CPUTotal time.Duration
	// Switches are the resizer's context switches over the same span as
	// CPU: thread wake-ups, which cost more when work is spread out.
	Switches int64
	// IdleCPU is the CPU time per second the resizer spent before the
	// grows, with its caches full and nothing to do.
	IdleCPU     time.Duration
	DriverCalls int
	Volumes     int // distinct volumes among the driver calls
	Errors      int // claims seen with ControllerResizeError
	// Foreign is the CPU other processes of the machine took while the
	// claims were being resized.
	Foreign string
	// ForcedCloses counts the resizer's watches (of all namespaces) that
	// kube-apiserver closed as unresponsive, by resource key.
	ForcedCloses map[string]int
	// OwnCloses counts the benchmark's own claim watches the server
	// closed: each may have delayed some finish timestamps.
	OwnCloses int
}

// floor is the shortest wall time the token bucket allows: burst writes
// at once, then QPS a second, 3 writes a resize.
func (r throughputResult) floor() time.Duration {
	secs := (float64(r.N)*targetWrites - float64(r.Setting.Burst)) / float64(r.Setting.QPS)
	return time.Duration(max(secs, 0) * float64(time.Second))
}

// rate is resizes per second.
func (r throughputResult) rate() float64 { return float64(r.N) / r.Wall.Seconds() }

// perResize is the number of requests of class c per resize.
func (r throughputResult) perResize(c requestClass) float64 {
	return float64(r.Requests.ByClass[c]) / float64(r.N)
}

// runThroughput grows cfg.n bound claims at once and measures the resizer
// until every claim is finished and every event written.
func runThroughput(ctx context.Context, cfg *config, s setting) (*throughputResult, error) {
	res := &throughputResult{}
	if err := runBatch(ctx, cfg, s, resizeBatch(cfg, s), res); err != nil {
		return nil, err
	}
	return res, nil
}

// resizeBatch grows cfg.n claims from 1Gi to 2Gi; the driver expands only.
func resizeBatch(cfg *config, s setting) batch {
	return batch{
		mode: "throughput", header: fmt.Sprintf("throughput: %d claims at %s", cfg.n, s), n: cfg.n,
		sent: "grows", done: "finished", unit: "resizes",
		watch: func(ctx context.Context, c kubernetes.Interface) (*claimWatch, error) {
			return watchClaims(ctx, c, "2Gi")
		},
		send: func(ctx context.Context, r *rig, claim string) error {
			return framework.Grow(ctx, r.admin, benchNamespace, claim, "2Gi")
		},
		calls: func(_ context.Context, r *rig) ([]framework.Call, error) {
			return r.driver.Calls(csidriver.MethodExpand)
		},
	}
}

// tallyCalls counts the driver calls and the volumes they were for.
func (res *throughputResult) tallyCalls(calls []framework.Call) {
	res.DriverCalls = len(calls)
	volumes := map[string]bool{}
	for _, c := range calls {
		volumes[c.VolumeID] = true
	}
	res.Volumes = len(volumes)
}

// countRequests counts the resizer's requests, its rates between the
// first grow and the last finished claim, and the watches the API server
// dropped.
func (res *throughputResult) countRequests(r *rig, reqs []request, first, last time.Time) error {
	res.Requests = count(reqs)
	window := count(between(reqs, first, last))
	secs := last.Sub(first).Seconds()
	res.WorkRate = float64(window.ByClass[classWrite]+window.ByClass[classRead]) / secs
	res.EventRate = float64(window.ByClass[classEvent]) / secs
	closes, err := forcedCloses(filepath.Join(r.cluster.Dir, "kube-apiserver.log"))
	if err != nil {
		return err
	}
	res.ForcedCloses = map[string]int{}
	for key, n := range closes {
		if allNamespaces(key) {
			res.ForcedCloses[key] = n
		} else {
			res.OwnCloses += n
		}
	}
	return nil
}
