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

// This file parses the csi-resizer command line. The flag names,
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

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json
	"k8s.io/klog/v2"
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

// Defaults of --retry-interval-start and --retry-interval-max, and of
// --timeout, --resize-timeout and --modify-timeout.
const (
	DefaultRetryIntervalStart = time.Second
	DefaultRetryIntervalMax   = 5 * time.Minute
	DefaultTimeout            = 10 * time.Second
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
	// Automemlimit reports whether --automemlimit was set. Parse has
	// already given the Go runtime a memory limit from the container's
	// when it is true (unless GOMEMLIMIT is set).
	Automemlimit bool
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
// --automaxprocs, sets GOMAXPROCS; with --automemlimit (the default), the
// Go runtime's memory limit; and, unless GOGC is set, the collector's
// target (defaultGCPercent). The logging configuration can only be
// applied once per process (see logsapi.ResetForTest for tests).
func Parse(args []string, out io.Writer) (*Options, error) {
	gate := NewGate()
	o := &Options{
		Features:             gate,
		Logging:              logsapi.NewLoggingConfiguration(),
		LeaderElectionLabels: map[string]string{},
	}
	var featureGates map[string]bool

	fs := newFlagSet(o, &featureGates, Known(gate))
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
	if err := logsapi.ValidateAndApply(o.Logging, NewLoggingGate()); err != nil {
		return nil, oneLine(fmt.Errorf("invalid logging configuration: %w", err))
	}
	if err := gate.SetFromMap(featureGates); err != nil {
		return nil, oneLine(fmt.Errorf("invalid value for flag --feature-gates: %w", err))
	}
	o.FeatureGates = featureGates
	for name := range featureGates {
		if !HasEffect(name) {
			klog.InfoS("Feature gate has no effect in csi-resizer; accepted because upstream external-resizer accepts it", "featureGate", name)
		}
	}
	if o.Automaxprocs {
		enableAutomaxprocs()
	}
	if o.Automemlimit {
		applyMemLimit(os.DirFS("/"))
	}
	applyGCPercent()
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
