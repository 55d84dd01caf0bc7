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

package options

import (
	"os"
	"runtime/debug"

	"k8s.io/klog/v2"
)

// gcPercentEnv is the Go runtime's own setting, which wins.
const gcPercentEnv = "GOGC"

// defaultGCPercent is the collector's target unless GOGC says otherwise:
// between two collections the heap may grow by half of what was live,
// instead of Go's default of doubling. The resizer's heap is mostly its
// caches, which change little, so this costs little CPU: with 10,000
// claims it took the resizer at rest from 74 to 59 MiB, and 500 resizes
// at QPS 100 cost no measurably more CPU (docs/benchmarks.md).
const defaultGCPercent = 50

// applyGCPercent sets the collector's target to defaultGCPercent unless
// GOGC is set. It returns the target set, 0 when GOGC decides.
func applyGCPercent() int {
	if v, ok := os.LookupEnv(gcPercentEnv); ok {
		klog.InfoS("Go collector target from the environment", gcPercentEnv, v)
		return 0
	}
	debug.SetGCPercent(defaultGCPercent)
	klog.V(2).InfoS("Set the Go collector target", gcPercentEnv, defaultGCPercent)
	return defaultGCPercent
}
