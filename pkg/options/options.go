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

// Package options parses the csi-resizer command line. The flag names,
// defaults and syntax are those of upstream external-resizer v2.2, so that
// an existing Deployment keeps working when only the image changes.
package options

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/features"
)

// ProgramName is the name used in the usage text.
const ProgramName = "csi-resizer"

// Names of flags that `kubectl csi-resizer explain` reads off a resizer's
// container (with the flags only the resizer takes, it tells the resizer
// from the other CSI sidecars of a pod).
const (
	FlagCSIAddress             = "csi-address"
	FlagRetryIntervalStart     = "retry-interval-start"
	FlagRetryIntervalMax       = "retry-interval-max"
	FlagFeatureGates           = "feature-gates"
	FlagHandleVolumeInUseError = "handle-volume-inuse-error"
	FlagResizeTimeout          = "resize-timeout"
	FlagModifyTimeout          = "modify-timeout"
	FlagExtraModifyMetadata    = "extra-modify-metadata"
	FlagNodeDeployment         = "node-deployment"
)

// Defaults of --retry-interval-start and --retry-interval-max.
const (
	DefaultRetryIntervalStart = time.Second
	DefaultRetryIntervalMax   = 5 * time.Minute
)

// Options holds the parsed command line.
type Options struct {
	// CSIAddress is the driver endpoint; an absolute path is a unix socket.
	CSIAddress string
	// Kubeconfig is the path of a kubeconfig file; empty means in-cluster.
	Kubeconfig string
	// Master overrides the API server address of the kubeconfig.
	Master string

	// Timeout bounds the wait for the driver's socket and the calls that
	// identify it (GetPluginInfo, Probe, capabilities). When --timeout is
	// given on the command line it also overrides ResizeTimeout and
	// ModifyTimeout, as in upstream v2.3.
	Timeout time.Duration
	// ResizeTimeout bounds each ControllerExpandVolume call. It holds the
	// resolved value: --resize-timeout (default 10s), or --timeout when that
	// was given on the command line.
	ResizeTimeout time.Duration
	// ModifyTimeout bounds each ControllerModifyVolume call. It holds the
	// resolved value: --modify-timeout (default 10s), or --timeout when that
	// was given on the command line.
	ModifyTimeout time.Duration
	// ResyncPeriod is the informer resync period; 0 disables resync.
	ResyncPeriod time.Duration
	// RetryIntervalStart is the first back-off of a failed resize.
	RetryIntervalStart time.Duration
	// RetryIntervalMax caps the back-off of a failed resize.
	RetryIntervalMax time.Duration
	// Workers is the number of PVCs processed in parallel.
	Workers int
	// HandleVolumeInUseError turns on the pod watch that holds back offline
	// expansion while a pod uses the volume.
	HandleVolumeInUseError bool

	// LeaderElection turns on leader election.
	LeaderElection bool
	// LeaderElectionNamespace is the namespace of the Lease as given; empty
	// means the pod's namespace (see LeaseNamespace).
	LeaderElectionNamespace string
	// LeaseDuration is how long non-leaders wait before taking the Lease.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader retries renewing before it gives up.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between leader election attempts.
	RetryPeriod time.Duration
	// LeaderElectionLabels are added to the Lease while this replica leads.
	LeaderElectionLabels map[string]string

	// NodeDeployment runs one resizer per node (see node.go); NodeName,
	// from $NODE_NAME, is then the node's name.
	NodeDeployment bool
	NodeName       string

	// KubeAPIQPS is the client-side QPS limit towards the API server.
	KubeAPIQPS float64
	// KubeAPIBurst is the client-side burst towards the API server.
	KubeAPIBurst int

	// HTTPEndpoint is the address of the diagnostics HTTP server; empty
	// disables it. See Addr.
	HTTPEndpoint string
	// MetricsAddress is the deprecated predecessor of HTTPEndpoint.
	MetricsAddress string
	// MetricsPath is the HTTP path of the metrics.
	MetricsPath string

	// Automaxprocs reports whether --automaxprocs was set. Parse has
	// already adjusted GOMAXPROCS when it is true.
	Automaxprocs bool
	// ExtraModifyMetadata adds the claim's name and namespace and the PV's
	// name to the mutable parameters of ControllerModifyVolume, under
	// csi.storage.k8s.io/pvc/name, csi.storage.k8s.io/pvc/namespace and
	// csi.storage.k8s.io/pv/name.
	ExtraModifyMetadata bool
	// ShowVersion asks the caller to print the version and exit 0. When it
	// is set, Parse skips the validation of the other values.
	ShowVersion bool

	// Features is the feature gate with the --feature-gates values applied.
	Features featuregate.FeatureGate
	// FeatureGates holds the gates named on the command line, with their
	// values (nil when none).
	FeatureGates map[string]bool
	// Logging is the logging configuration, already applied by Parse.
	Logging *logsapi.LoggingConfiguration
}

// Addr returns the diagnostics HTTP address (--http-endpoint, else the
// deprecated --metrics-address). Empty means no HTTP server.
func (o *Options) Addr() string {
	if o.HTTPEndpoint != "" {
		return o.HTTPEndpoint
	}
	return o.MetricsAddress
}

// Parse parses args (without the program name). It returns flag.ErrHelp
// for -h/--help after writing the usage to out. Any other error is one line
// and nothing is written to out: the caller prints it and exits with 2.
//
// Parse has process-wide side effects, like upstream's start-up: it applies
// the logging configuration (klog verbosity, format) and, with
// --automaxprocs, sets GOMAXPROCS. The logging configuration can only be
// applied once per process (see logsapi.ResetForTest for tests).
func Parse(args []string, out io.Writer) (*Options, error) {
	gate := features.NewGate()
	o := &Options{
		Features:             gate,
		Logging:              logsapi.NewLoggingConfiguration(),
		LeaderElectionLabels: map[string]string{},
	}
	var featureGates map[string]bool

	fs := newFlagSet(o, &featureGates, features.Known(gate))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(out)
			printUsage(fs)
			return nil, flag.ErrHelp
		}
		return nil, oneLine(err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: all options are flags", fs.Arg(0))
	}

	// Apply logging before anything else logs, as upstream does: setting a
	// GA or deprecated gate logs a warning. The logging gates stay at their
	// defaults, as upstream's.
	if err := logsapi.ValidateAndApply(o.Logging, features.NewLoggingGate()); err != nil {
		return nil, oneLine(fmt.Errorf("invalid logging configuration: %w", err))
	}
	if err := gate.SetFromMap(featureGates); err != nil {
		return nil, oneLine(fmt.Errorf("invalid value for flag --feature-gates: %w", err))
	}
	o.FeatureGates = featureGates
	for name := range featureGates {
		if !features.HasEffect(name) {
			klog.InfoS("Feature gate has no effect in csi-resizer; accepted because upstream external-resizer accepts it", "featureGate", name)
		}
	}
	if o.Automaxprocs {
		enableAutomaxprocs()
	}
	if o.NodeDeployment {
		o.NodeName = os.Getenv(NodeNameEnv)
	}
	if !o.ShowVersion {
		if err := o.validate(); err != nil {
			return nil, oneLine(err)
		}
	}
	o.resolveTimeouts(isSet(fs, "timeout"))
	return o, nil
}

// resolveTimeouts applies upstream v2.3's rule: an explicitly set --timeout
// overrides --resize-timeout and --modify-timeout, even when it is set to its
// default value; otherwise each of them stands on its own.
func (o *Options) resolveTimeouts(timeoutSet bool) {
	if timeoutSet {
		o.ResizeTimeout = o.Timeout
		o.ModifyTimeout = o.Timeout
	}
}

// isSet tells whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

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
	fs.DurationVar(&o.Timeout, "timeout", 10*time.Second, "Timeout for waiting for the CSI driver socket and for the calls that identify the driver. If set explicitly, it also overrides --resize-timeout and --modify-timeout.")
	fs.DurationVar(&o.ResizeTimeout, FlagResizeTimeout, 10*time.Second, "Timeout for waiting for the CSI driver to expand a volume (ControllerExpandVolume). Overridden by --timeout when that is set explicitly.")
	fs.DurationVar(&o.ModifyTimeout, FlagModifyTimeout, 10*time.Second, "Timeout for waiting for the CSI driver to modify a volume (ControllerModifyVolume). Overridden by --timeout when that is set explicitly.")
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

// oneLine keeps an error on a single line, because the caller prints it as
// one log line. Aggregated errors from component-base may contain newlines.
func oneLine(err error) error {
	msg := err.Error()
	if !strings.ContainsAny(msg, "\r\n") {
		return err
	}
	fields := strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	return errors.New(strings.Join(fields, "; "))
}
