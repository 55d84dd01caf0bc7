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
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// newFlagSet registers every flag of the command line on a new FlagSet that
// writes into o. The Go flag package accepts both -name and --name.
func newFlagSet(o *Options, featureGates *map[string]bool, knownFeatures []string) *flag.FlagSet {
	fs := flag.NewFlagSet(ProgramName, flag.ContinueOnError)
	// Errors are returned, not printed with the whole usage after them.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}

	fs.StringVar(&o.CSIAddress, FlagCSIAddress, "/run/csi/socket", "Address of the CSI driver socket.")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Absolute path to the kubeconfig file. Required only when running out of cluster.")
	fs.StringVar(&o.Master, "master", "", "Master URL to build a client config from. Either this or kubeconfig needs to be set if the resizer is being run out of cluster.")
	fs.DurationVar(&o.Timeout, "timeout", DefaultTimeout, "Timeout for waiting for the CSI driver socket and for the calls that identify the driver. If set explicitly, it also overrides --resize-timeout and --modify-timeout.")
	fs.DurationVar(&o.ResizeTimeout, FlagResizeTimeout, DefaultTimeout, "Timeout for waiting for the CSI driver to expand a volume (ControllerExpandVolume). Overridden by --timeout when that is set explicitly.")
	fs.DurationVar(&o.ModifyTimeout, FlagModifyTimeout, DefaultTimeout, "Timeout for waiting for the CSI driver to modify a volume (ControllerModifyVolume). Overridden by --timeout when that is set explicitly.")
	fs.IntVar(&o.Workers, "workers", 10, "Concurrency to process multiple resize requests.")
	fs.DurationVar(&o.ResyncPeriod, "resync-period", 10*time.Minute, "Resync period for cache.")
	fs.DurationVar(&o.RetryIntervalStart, FlagRetryIntervalStart, DefaultRetryIntervalStart, "Initial retry interval of failed volume resize. It exponentially increases with each failure, up to retry-interval-max.")
	fs.DurationVar(&o.RetryIntervalMax, FlagRetryIntervalMax, DefaultRetryIntervalMax, "Maximum retry interval of failed volume resize.")
	fs.BoolVar(&o.HandleVolumeInUseError, FlagHandleVolumeInUseError, true, "Flag to turn on/off capability to handle volume in use error in resizer controller.")
	fs.Var(cliflag.NewMapStringBool(featureGates), FlagFeatureGates,
		"A set of `key=value` pairs that describe feature gates for alpha/experimental features for csi external resizer. Options are:\n"+
			strings.Join(knownFeatures, "\n"))

	fs.BoolVar(&o.LeaderElection, "leader-election", false, "Enable leader election.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", "", "Namespace where the leader election resource lives. Defaults to the pod namespace if not set.")
	fs.DurationVar(&o.LeaseDuration, "leader-election-lease-duration", 15*time.Second, "Duration that non-leader candidates will wait to force acquire leadership.")
	fs.DurationVar(&o.RenewDeadline, "leader-election-renew-deadline", 10*time.Second, "Duration that the acting leader will retry refreshing leadership before giving up.")
	fs.DurationVar(&o.RetryPeriod, "leader-election-retry-period", 5*time.Second, "Duration the leader election clients should wait between tries of actions.")
	fs.BoolVar(&o.NodeDeployment, FlagNodeDeployment, false, "Run one resizer on each node, beside a CSI driver of node-local volumes: each instance handles only the volumes whose node affinity pins them to its node, the node named by the NODE_NAME environment variable. Not with --leader-election.")
	fs.Var(&labelsValue{m: &o.LeaderElectionLabels}, "leader-election-labels", "List of labels to add to the lease when this replica becomes leader, formatted as a comma separated list of `key:value` labels. Example: 'my-label:my-value,my-second-label:my-second-value'")

	fs.Float64Var(&o.KubeAPIQPS, "kube-api-qps", 5, "QPS to use while communicating with the kubernetes apiserver.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", 10, "Burst to use while communicating with the kubernetes apiserver.")

	fs.StringVar(&o.HTTPEndpoint, "http-endpoint", "", "The TCP network `address` where the HTTP server for diagnostics, including metrics and leader election health check, will listen (example: :8080). The default is empty string, which means the server is disabled. Only one of --metrics-address and --http-endpoint can be set.")
	fs.StringVar(&o.MetricsAddress, "metrics-address", "", "(deprecated) The TCP network `address` where the prometheus metrics endpoint will listen (example: :8080). The default is empty string, which means metrics endpoint is disabled. Only one of --metrics-address and --http-endpoint can be set.")
	fs.StringVar(&o.MetricsPath, "metrics-path", "/metrics", "The HTTP `path` where prometheus metrics will be exposed.")

	fs.BoolVar(&o.Automaxprocs, "automaxprocs", false, "automatically set GOMAXPROCS to match Linux container CPU quota")
	fs.BoolVar(&o.Automemlimit, "automemlimit", true, "Set the Go runtime's soft memory limit to 90% of the container's memory limit (read from its cgroup), so that the collector works harder before the kernel would kill the process. GOMEMLIMIT in the environment wins.")
	fs.BoolVar(&o.ExtraModifyMetadata, FlagExtraModifyMetadata, false, "If set, add pv/pvc metadata to plugin modify requests as parameters: csi.storage.k8s.io/pvc/name, csi.storage.k8s.io/pvc/namespace and csi.storage.k8s.io/pv/name.")
	fs.BoolVar(&o.ShowVersion, "version", false, "Show version.")

	// --v, --vmodule, --logging-format, --log-flush-frequency and the
	// --log-*-split-stream/--log-*-info-buffer-size options, as upstream.
	// klog.InitFlags is not used: it would register -v and -vmodule a
	// second time, and upstream does not offer klog's other flags either.
	logsapi.AddGoFlags(o.Logging, fs)
	return fs
}

// printUsage writes the usage in the layout of the Go flag package.
func printUsage(fs *flag.FlagSet) {
	fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
	fs.PrintDefaults()
}
