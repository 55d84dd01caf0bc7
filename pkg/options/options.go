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

// Package options parses the csi-resizer command line (flag names, defaults
// and syntax of upstream external-resizer v2.2), its feature gates, and the
// runtime settings it derives from the container (memory limit, GOGC).
package options

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
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

// Options holds the parsed command line. Each field is the flag of its
// name, whose help newFlagSet has; the comments say only what it does not.
type Options struct {
	CSIAddress, Kubeconfig, Master string

	// Timeout also bounds the calls that identify the driver. ResizeTimeout
	// and ModifyTimeout hold the resolved values: --timeout, when given on
	// the command line, overrides them, as in upstream v2.3.
	Timeout, ResizeTimeout, ModifyTimeout              time.Duration
	ResyncPeriod, RetryIntervalStart, RetryIntervalMax time.Duration
	Workers                                            int
	HandleVolumeInUseError                             bool

	LeaderElection bool
	// LeaderElectionNamespace is as given; see LeaseNamespace.
	LeaderElectionNamespace                   string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	LeaderElectionLabels                      map[string]string

	// NodeName, from $NODE_NAME, is the node's name with NodeDeployment.
	NodeDeployment bool
	NodeName       string

	KubeAPIQPS   float64
	KubeAPIBurst int

	// HTTPEndpoint and the deprecated MetricsAddress: see Addr.
	HTTPEndpoint, MetricsAddress, MetricsPath string

	// Parse has already applied Automaxprocs and Automemlimit.
	Automaxprocs, Automemlimit, ExtraModifyMetadata bool
	// ShowVersion asks the caller to print the version and exit 0; Parse
	// then skips the validation of the other values.
	ShowVersion bool

	// Features is the gate with --feature-gates applied; FeatureGates holds
	// the gates named on the command line (nil when none).
	Features     featuregate.FeatureGate
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
// for -h/--help after writing the usage to out; any other error is one
// line, for the caller to print before it exits with 2. Like upstream's
// start-up it applies the logging configuration (once per process; see
// logsapi.ResetForTest), GOMAXPROCS with --automaxprocs, the memory limit
// with --automemlimit, and the collector's target unless GOGC is set.
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
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
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
	// An explicitly set --timeout overrides --resize-timeout and
	// --modify-timeout, even at its default value (upstream v2.3).
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "timeout" {
			o.ResizeTimeout, o.ModifyTimeout = o.Timeout, o.Timeout
		}
	})
	return o, nil
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

// Settings returns the resolved settings as the key/value pairs of the one
// "Settings" line the resizer logs at start-up, so that its log says how it
// read its command line (timeouts after --timeout's override, the Lease's
// namespace after POD_NAMESPACE). Durations are strings in
// time.Duration's form, whatever the log format; verbosity is --v (named so
// because the JSON format has a "v" of its own). None of it is secret.
func (o *Options) Settings() []any {
	var gates []string
	for _, name := range slices.Sorted(maps.Keys(o.FeatureGates)) {
		gates = append(gates, fmt.Sprintf("%s=%t", name, o.FeatureGates[name]))
	}
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
		"featureGates", strings.Join(gates, ","),
		"extraModifyMetadata", o.ExtraModifyMetadata,
		"nodeDeployment", o.NodeDeployment,
	}
}
