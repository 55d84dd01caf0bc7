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
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Settings returns the resolved settings as the key/value pairs of the one
// "Settings" line the resizer logs at start-up, so that its log says how it
// read its command line (timeouts after --timeout's override, the Lease's
// namespace after POD_NAMESPACE). Durations are strings in
// time.Duration's form, whatever the log format; verbosity is --v (named so
// because the JSON format has a "v" of its own). None of it is secret.
func (o *Options) Settings() []any {
	return []any{
		"csiAddress", o.CSIAddress,
		"timeout", o.Timeout.String(),
		"resizeTimeout", o.ResizeTimeout.String(),
		"modifyTimeout", o.ModifyTimeout.String(),
		"workers", o.Workers,
		"resyncPeriod", o.ResyncPeriod.String(),
		"retryIntervalStart", o.RetryIntervalStart.String(),
		"retryIntervalMax", o.RetryIntervalMax.String(),
		"handleVolumeInUseError", o.HandleVolumeInUseError,
		"leaderElection", o.LeaderElection,
		"leaderElectionNamespace", o.LeaseNamespace(),
		"leaseDuration", o.LeaseDuration.String(),
		"renewDeadline", o.RenewDeadline.String(),
		"retryPeriod", o.RetryPeriod.String(),
		"kubeAPIQPS", o.KubeAPIQPS,
		"kubeAPIBurst", o.KubeAPIBurst,
		"httpEndpoint", o.HTTPEndpoint,
		"metricsAddress", o.MetricsAddress,
		"metricsPath", o.MetricsPath,
		"verbosity", uint32(o.Logging.Verbosity),
		"featureGates", gatesString(o.FeatureGates),
		"extraModifyMetadata", o.ExtraModifyMetadata,
		"nodeDeployment", o.NodeDeployment,
	}
}

// gatesString is gates as "Name=bool" pairs sorted by name, comma-separated.
func gatesString(gates map[string]bool) string {
	pairs := make([]string, 0, len(gates))
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		pairs = append(pairs, fmt.Sprintf("%s=%t", name, gates[name]))
	}
	return strings.Join(pairs, ",")
}
