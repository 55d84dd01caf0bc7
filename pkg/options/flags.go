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
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/csi-resizer/csi-resizer/pkg/leader"
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

// labelsValue is the flag.Value of --leader-election-labels. It takes
// "key:value,key2:value2" like upstream; the flag may be repeated and the
// maps are merged, a later value for a key winning.
type labelsValue struct {
	m *map[string]string
}

// String returns the labels sorted by key in the flag's own syntax. The flag
// package calls it on a zero value, so a nil map must work.
func (v *labelsValue) String() string {
	if v == nil || v.m == nil || len(*v.m) == 0 {
		return ""
	}
	pairs := make([]string, 0, len(*v.m))
	for k, val := range *v.m {
		pairs = append(pairs, k+":"+val)
	}
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}

// Set parses one occurrence of the flag. A malformed item is an error, as
// upstream; an invalid label key or value is also an error, because the API
// server would reject the Lease and leader election would never succeed.
func (v *labelsValue) Set(value string) error {
	parsed := map[string]string{}
	for _, item := range strings.Split(value, ",") {
		kv := strings.Split(item, ":")
		if len(kv) != 2 {
			return fmt.Errorf("malformed item %q in list of labels, want key:value", item)
		}
		key, val := kv[0], kv[1]
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			return fmt.Errorf("invalid label key %q: %s", key, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
			return fmt.Errorf("invalid value %q of label %q: %s", val, key, strings.Join(errs, "; "))
		}
		parsed[key] = val
	}
	if *v.m == nil {
		*v.m = map[string]string{}
	}
	for k, val := range parsed {
		(*v.m)[k] = val
	}
	return nil
}

// validate checks the values that the flag types alone cannot. All problems
// are reported at once, joined on one line.
func (o *Options) validate() error {
	var errs []string
	add := func(flagName string, value any, problem string) {
		errs = append(errs, fmt.Sprintf("invalid value %v for flag --%s: %s", value, flagName, problem))
	}

	if o.Workers < 1 {
		add("workers", o.Workers, "must be at least 1")
	}
	if o.Timeout <= 0 {
		add("timeout", o.Timeout, "must be greater than zero")
	}
	// The values given, before --timeout overrides them: a bad value is a
	// mistake even when it would not be used.
	if o.ResizeTimeout <= 0 {
		add("resize-timeout", o.ResizeTimeout, "must be greater than zero")
	}
	if o.ModifyTimeout <= 0 {
		add("modify-timeout", o.ModifyTimeout, "must be greater than zero")
	}
	if o.ResyncPeriod < 0 {
		add("resync-period", o.ResyncPeriod, "must not be negative (0 disables resync)")
	}
	if o.RetryIntervalStart <= 0 {
		add("retry-interval-start", o.RetryIntervalStart, "must be greater than zero")
	} else if o.RetryIntervalStart > o.RetryIntervalMax {
		add("retry-interval-start", o.RetryIntervalStart,
			fmt.Sprintf("must not be greater than --retry-interval-max (%v)", o.RetryIntervalMax))
	}
	if !(o.KubeAPIQPS > 0) || math.IsInf(o.KubeAPIQPS, 1) {
		add("kube-api-qps", o.KubeAPIQPS, "must be a finite number greater than zero")
	}
	if o.KubeAPIBurst < 1 {
		add("kube-api-burst", o.KubeAPIBurst, "must be at least 1")
	}
	if o.HTTPEndpoint != "" && o.MetricsAddress != "" {
		errs = append(errs, "only one of --metrics-address and --http-endpoint can be set")
	}
	if !strings.HasPrefix(o.MetricsPath, "/") {
		add("metrics-path", fmt.Sprintf("%q", o.MetricsPath), `must start with "/"`)
	}
	if o.NodeDeployment {
		errs = append(errs, o.validateNodeDeployment()...)
	}
	if o.LeaderElection {
		errs = append(errs, validateLeaderElection(o.LeaseDuration, o.RenewDeadline, o.RetryPeriod)...)
	}

	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "; "))
}

// validateLeaderElection applies the rules of leader.New (client-go's)
// at start-up, so that a bad combination fails with a flag error instead of
// after the driver connection and informers are set up.
func validateLeaderElection(lease, renew, retry time.Duration) []string {
	var errs []string
	if retry <= 0 {
		errs = append(errs, fmt.Sprintf("invalid value %v for flag --leader-election-retry-period: must be greater than zero", retry))
	}
	if lease <= renew {
		errs = append(errs, fmt.Sprintf("--leader-election-lease-duration (%v) must be greater than --leader-election-renew-deadline (%v)", lease, renew))
	}
	if minRenew := time.Duration(leader.JitterFactor * float64(retry)); renew <= minRenew {
		errs = append(errs, fmt.Sprintf("--leader-election-renew-deadline (%v) must be greater than %v times --leader-election-retry-period (%v), i.e. greater than %v",
			renew, leader.JitterFactor, retry, minRenew))
	}
	return errs
}

// NodeNameEnv is the environment variable that names the node of a
// resizer run with --node-deployment; the pod sets it from spec.nodeName
// with the downward API, as for the provisioner's --node-deployment.
const NodeNameEnv = "NODE_NAME"

// validateNodeDeployment refuses what --node-deployment cannot run with,
// each problem with its reason.
func (o *Options) validateNodeDeployment() []string {
	var errs []string
	if o.LeaderElection {
		errs = append(errs, "--node-deployment and --leader-election cannot be used together: "+
			"with --node-deployment every node runs its own resizer for the volumes of that node, so there is no leader to elect")
	}
	switch problems := validation.IsDNS1123Subdomain(o.NodeName); {
	case o.NodeName == "":
		errs = append(errs, fmt.Sprintf("--node-deployment requires the %s environment variable, the name of the node the resizer runs on: "+
			"set it from the pod's spec.nodeName with the downward API", NodeNameEnv))
	case len(problems) > 0:
		errs = append(errs, fmt.Sprintf("invalid %s %q for --node-deployment: it is not a node name: %s", NodeNameEnv, o.NodeName, strings.Join(problems, ", ")))
	}
	return errs
}
