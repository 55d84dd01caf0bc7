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
	"io/fs"
	"os"
	"runtime/debug"

	"k8s.io/klog/v2"
)

// memLimitEnv is the Go runtime's own setting, which wins over the
// container's limit.
const memLimitEnv = "GOMEMLIMIT"

// applyMemLimit gives the Go runtime a soft memory limit of
// Ratio of the container's, read from root's cgroup files, unless
// GOMEMLIMIT is set. It returns the limit set, 0 for none.
func applyMemLimit(root fs.FS) int64 {
	if v, ok := os.LookupEnv(memLimitEnv); ok {
		klog.InfoS("Go memory limit from the environment", memLimitEnv, v)
		return 0
	}
	l, ok, err := Find(root)
	switch {
	case err != nil:
		klog.InfoS("No Go memory limit: the container's memory limit could not be read", "err", err)
		return 0
	case !ok:
		klog.V(2).InfoS("No Go memory limit: the container has none")
		return 0
	}
	debug.SetMemoryLimit(l.SoftLimit())
	klog.InfoS("Set the Go memory limit from the container's", "containerLimitBytes", l.Bytes,
		"goMemoryLimitBytes", l.SoftLimit(), "from", l.File)
	return l.SoftLimit()
}
