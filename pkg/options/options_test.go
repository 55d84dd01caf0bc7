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
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
)

// designFlags are the flags of upstream external-resizer that the resizer
// keeps (README.md, Flags; docs/design.md#scope), without dashes. Renaming
// or dropping one breaks existing Deployments.
var designFlags = []string{
	"csi-address", "kubeconfig", "master", "timeout", "resize-timeout",
	"modify-timeout", "workers", "resync-period",
	"retry-interval-start", "retry-interval-max", "handle-volume-inuse-error",
	"feature-gates", "leader-election", "leader-election-namespace",
	"leader-election-lease-duration", "leader-election-renew-deadline",
	"leader-election-retry-period", "leader-election-labels", "kube-api-qps",
	"kube-api-burst", "http-endpoint", "metrics-address", "metrics-path",
	"automaxprocs", "extra-modify-metadata", "version", "v", "vmodule",
	"logging-format",
}

// parse calls Parse after undoing the logging configuration applied by an
// earlier Parse: logsapi allows one per process. The last one is undone when
// the test ends.
func parse(t *testing.T, args ...string) (*Options, string, error) {
	t.Helper()
	reset := func() {
		if err := logsapi.ResetForTest(nil); err != nil {
			t.Errorf("reset logging: %v", err)
		}
	}
	reset()
	t.Cleanup(reset)
	var out bytes.Buffer
	o, err := Parse(args, &out)
	return o, out.String(), err
}

// mustParse is parse for arguments that are valid.
func mustParse(t *testing.T, args ...string) *Options {
	t.Helper()
	o, out, err := parse(t, args...)
	if err != nil {
		t.Fatalf("Parse(%q) error = %v", args, err)
	}
	if out != "" {
		t.Errorf("Parse(%q) wrote %q, want nothing", args, out)
	}
	return o
}

func TestDefaults(t *testing.T) {
	o := mustParse(t)
	tests := []struct {
		name string
		got  any
		want any
	}{
		{name: "csi-address", got: o.CSIAddress, want: "/run/csi/socket"},
		{name: "kubeconfig", got: o.Kubeconfig, want: ""},
		{name: "master", got: o.Master, want: ""},
		{name: "timeout", got: o.Timeout, want: 10 * time.Second},
		{name: "resize-timeout", got: o.ResizeTimeout, want: 10 * time.Second},
		{name: "modify-timeout", got: o.ModifyTimeout, want: 10 * time.Second},
		{name: "workers", got: o.Workers, want: 10},
		{name: "resync-period", got: o.ResyncPeriod, want: 10 * time.Minute},
		{name: "retry-interval-start", got: o.RetryIntervalStart, want: time.Second},
		{name: "retry-interval-max", got: o.RetryIntervalMax, want: 5 * time.Minute},
		{name: "handle-volume-inuse-error", got: o.HandleVolumeInUseError, want: true},
		{name: "leader-election", got: o.LeaderElection, want: false},
		{name: "leader-election-namespace", got: o.LeaderElectionNamespace, want: ""},
		{name: "leader-election-lease-duration", got: o.LeaseDuration, want: 15 * time.Second},
		{name: "leader-election-renew-deadline", got: o.RenewDeadline, want: 10 * time.Second},
		{name: "leader-election-retry-period", got: o.RetryPeriod, want: 5 * time.Second},
		{name: "leader-election-labels", got: o.LeaderElectionLabels, want: map[string]string{}},
		{name: "node-deployment", got: o.NodeDeployment, want: false},
		{name: "kube-api-qps", got: o.KubeAPIQPS, want: 5.0},
		{name: "kube-api-burst", got: o.KubeAPIBurst, want: 10},
		{name: "http-endpoint", got: o.HTTPEndpoint, want: ""},
		{name: "metrics-address", got: o.MetricsAddress, want: ""},
		{name: "metrics-path", got: o.MetricsPath, want: "/metrics"},
		{name: "automaxprocs", got: o.Automaxprocs, want: false},
		{name: "automemlimit", got: o.Automemlimit, want: true},
		{name: "extra-modify-metadata", got: o.ExtraModifyMetadata, want: false},
		{name: "version", got: o.ShowVersion, want: false},
		{name: "v", got: o.Logging.Verbosity, want: logsapi.VerbosityLevel(0)},
		{name: "vmodule", got: len(o.Logging.VModule), want: 0},
		{name: "logging-format", got: o.Logging.Format, want: "text"},
		{name: "addr", got: o.Addr(), want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("default of --%s = %#v, want %#v", tc.name, tc.got, tc.want)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string // without dashes; each case runs with - and --
		check func(*Options) any
		want  any
	}{
		{name: "csi-address", args: []string{"csi-address=/csi/csi.sock"},
			check: func(o *Options) any { return o.CSIAddress }, want: "/csi/csi.sock"},
		{name: "kubeconfig", args: []string{"kubeconfig", "/tmp/kc"},
			check: func(o *Options) any { return o.Kubeconfig }, want: "/tmp/kc"},
		{name: "master", args: []string{"master=https://1.2.3.4:6443"},
			check: func(o *Options) any { return o.Master }, want: "https://1.2.3.4:6443"},
		{name: "timeout", args: []string{"timeout=2m"},
			check: func(o *Options) any { return o.Timeout }, want: 2 * time.Minute},
		{name: "workers", args: []string{"workers", "3"},
			check: func(o *Options) any { return o.Workers }, want: 3},
		{name: "resync-period zero", args: []string{"resync-period=0s"},
			check: func(o *Options) any { return o.ResyncPeriod }, want: time.Duration(0)},
		{name: "retry intervals", args: []string{"retry-interval-start=2s", "retry-interval-max=1m"},
			check: func(o *Options) any { return []time.Duration{o.RetryIntervalStart, o.RetryIntervalMax} },
			want:  []time.Duration{2 * time.Second, time.Minute}},
		{name: "retry-interval-start equal to max", args: []string{"retry-interval-start=1m", "retry-interval-max=1m"},
			check: func(o *Options) any { return o.RetryIntervalStart }, want: time.Minute},
		{name: "handle-volume-inuse-error off", args: []string{"handle-volume-inuse-error=false"},
			check: func(o *Options) any { return o.HandleVolumeInUseError }, want: false},
		{name: "leader election", args: []string{"leader-election", "leader-election-namespace=kube-system",
			"leader-election-lease-duration=60s", "leader-election-renew-deadline=30s", "leader-election-retry-period=10s"},
			check: func(o *Options) any {
				return []any{o.LeaderElection, o.LeaderElectionNamespace, o.LeaseDuration, o.RenewDeadline, o.RetryPeriod}
			},
			want: []any{true, "kube-system", time.Minute, 30 * time.Second, 10 * time.Second}},
		{name: "leader-election-labels", args: []string{"leader-election-labels=a:b,example.com/c:d"},
			check: func(o *Options) any { return o.LeaderElectionLabels },
			want:  map[string]string{"a": "b", "example.com/c": "d"}},
		{name: "kube api", args: []string{"kube-api-qps=50.5", "kube-api-burst=100"},
			check: func(o *Options) any { return []any{o.KubeAPIQPS, o.KubeAPIBurst} }, want: []any{50.5, 100}},
		{name: "http-endpoint", args: []string{"http-endpoint=:8080", "metrics-path=/m"},
			check: func(o *Options) any { return []string{o.HTTPEndpoint, o.Addr(), o.MetricsPath} },
			want:  []string{":8080", ":8080", "/m"}},
		{name: "deprecated metrics-address", args: []string{"metrics-address=:9090"},
			check: func(o *Options) any { return []string{o.MetricsAddress, o.Addr()} }, want: []string{":9090", ":9090"}},
		{name: "extra-modify-metadata", args: []string{"extra-modify-metadata"},
			check: func(o *Options) any { return o.ExtraModifyMetadata }, want: true},
		{name: "v", args: []string{"v=5"},
			check: func(o *Options) any { return o.Logging.Verbosity }, want: logsapi.VerbosityLevel(5)},
		{name: "vmodule", args: []string{"vmodule=controller*=4"},
			check: func(o *Options) any { return o.Logging.VModule },
			want:  logsapi.VModuleConfiguration{{FilePattern: "controller*", Verbosity: 4}}},
		{name: "logging-format json", args: []string{"logging-format=json"},
			check: func(o *Options) any { return o.Logging.Format }, want: "json"},
		{name: "feature-gates", args: []string{"feature-gates=AnnotateFsResize=true,ReleaseLeaderElectionOnExit=false"},
			check: func(o *Options) any {
				return []bool{o.Features.Enabled(AnnotateFsResize), o.Features.Enabled(ReleaseLeaderElectionOnExit)}
			},
			want: []bool{true, false}},
	}
	for _, tc := range tests {
		for _, dash := range []string{"-", "--"} {
			t.Run(tc.name+" "+dash, func(t *testing.T) {
				var args []string
				for i, a := range tc.args {
					// A bare word after a flag that takes a value is that value.
					if i > 0 && !strings.Contains(a, "=") && isValueOf(tc.args[i-1]) {
						args = append(args, a)
						continue
					}
					args = append(args, dash+a)
				}
				o := mustParse(t, args...)
				if got := tc.check(o); !reflect.DeepEqual(got, tc.want) {
					t.Errorf("Parse(%q) = %#v, want %#v", args, got, tc.want)
				}
			})
		}
	}
}

// isValueOf tells whether arg is a flag given without "=" that takes a value.
func isValueOf(arg string) bool {
	return !strings.Contains(arg, "=") && arg != "leader-election" && arg != "extra-modify-metadata"
}

func TestTimeouts(t *testing.T) {
	tests := []struct {
		name        string
		args        []string // "name=value" or "name value", without dashes; each case runs with - and --
		wantTimeout time.Duration
		wantResize  time.Duration
		wantModify  time.Duration
	}{
		{name: "none set", wantTimeout: 10 * time.Second, wantResize: 10 * time.Second, wantModify: 10 * time.Second},
		{name: "only timeout", args: []string{"timeout=2m"},
			wantTimeout: 2 * time.Minute, wantResize: 2 * time.Minute, wantModify: 2 * time.Minute},
		{name: "only resize-timeout", args: []string{"resize-timeout=1m"},
			wantTimeout: 10 * time.Second, wantResize: time.Minute, wantModify: 10 * time.Second},
		{name: "only modify-timeout", args: []string{"modify-timeout=30m"},
			wantTimeout: 10 * time.Second, wantResize: 10 * time.Second, wantModify: 30 * time.Minute},
		{name: "both new ones", args: []string{"resize-timeout=5m", "modify-timeout=30m"},
			wantTimeout: 10 * time.Second, wantResize: 5 * time.Minute, wantModify: 30 * time.Minute},
		{name: "new ones below timeout's default", args: []string{"resize-timeout=1s", "modify-timeout=2s"},
			wantTimeout: 10 * time.Second, wantResize: time.Second, wantModify: 2 * time.Second},
		{name: "timeout overrides both", args: []string{"timeout=2m", "resize-timeout=5m", "modify-timeout=30m"},
			wantTimeout: 2 * time.Minute, wantResize: 2 * time.Minute, wantModify: 2 * time.Minute},
		{name: "timeout overrides whatever the order", args: []string{"resize-timeout=5m", "modify-timeout=30m", "timeout=2m"},
			wantTimeout: 2 * time.Minute, wantResize: 2 * time.Minute, wantModify: 2 * time.Minute},
		{name: "timeout at its default value still overrides", args: []string{"timeout=10s", "resize-timeout=1m"},
			wantTimeout: 10 * time.Second, wantResize: 10 * time.Second, wantModify: 10 * time.Second},
		{name: "timeout as a separate argument", args: []string{"timeout 10s", "modify-timeout 1m"},
			wantTimeout: 10 * time.Second, wantResize: 10 * time.Second, wantModify: 10 * time.Second},
		{name: "resize-timeout as a separate argument", args: []string{"resize-timeout 1m"},
			wantTimeout: 10 * time.Second, wantResize: time.Minute, wantModify: 10 * time.Second},
	}
	for _, tc := range tests {
		for _, dash := range []string{"-", "--"} {
			t.Run(tc.name+" "+dash, func(t *testing.T) {
				var args []string
				for _, a := range tc.args {
					name, value, separate := strings.Cut(a, " ")
					args = append(args, dash+name)
					if separate {
						args = append(args, value)
					}
				}
				o := mustParse(t, args...)
				got := []time.Duration{o.Timeout, o.ResizeTimeout, o.ModifyTimeout}
				want := []time.Duration{tc.wantTimeout, tc.wantResize, tc.wantModify}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Parse(%q): timeout, resize, modify = %v, want %v", args, got, want)
				}
			})
		}
	}
}

func TestTimeoutsResolvedWithVersion(t *testing.T) {
	o := mustParse(t, "--version", "--timeout=1m")
	if o.ResizeTimeout != time.Minute || o.ModifyTimeout != time.Minute {
		t.Errorf("resize, modify = %v, %v, want 1m0s for both", o.ResizeTimeout, o.ModifyTimeout)
	}
}

func TestVerbosityApplied(t *testing.T) {
	mustParse(t, "--v=4")
	if !klog.V(4).Enabled() {
		t.Error("--v=4 did not raise the klog verbosity")
	}
	if klog.V(5).Enabled() {
		t.Error("--v=4 enabled V(5)")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "bad int", args: []string{"--workers=x"},
			wantErr: `invalid value "x" for flag -workers: parse error`},
		{name: "bad duration", args: []string{"-timeout=10"},
			wantErr: `invalid value "10" for flag -timeout: parse error`},
		{name: "bad resize-timeout", args: []string{"--resize-timeout=soon"},
			wantErr: `invalid value "soon" for flag -resize-timeout: parse error`},
		{name: "bad modify-timeout", args: []string{"-modify-timeout=30"},
			wantErr: `invalid value "30" for flag -modify-timeout: parse error`},
		{name: "modify-timeout without value", args: []string{"--modify-timeout"},
			wantErr: "flag needs an argument: -modify-timeout"},
		{name: "bad bool", args: []string{"--leader-election=maybe"},
			wantErr: `invalid boolean value "maybe" for -leader-election: parse error`},
		{name: "unknown flag", args: []string{"--no-such-flag"},
			wantErr: "flag provided but not defined: -no-such-flag"},
		{name: "missing value", args: []string{"--csi-address"},
			wantErr: "flag needs an argument: -csi-address"},
		{name: "positional argument", args: []string{"--workers=3", "extra"},
			wantErr: `unexpected argument "extra"`},
		{name: "flag after positional argument", args: []string{"extra", "--workers=3"},
			wantErr: `unexpected argument "extra"`},
		{name: "unknown feature gate", args: []string{"--feature-gates=NoSuchGate=true"},
			wantErr: "invalid value for flag --feature-gates: unrecognized feature gate: NoSuchGate"},
		{name: "malformed feature gate", args: []string{"--feature-gates=AnnotateFsResize"},
			wantErr: `invalid value "AnnotateFsResize" for flag -feature-gates: malformed pair`},
		{name: "non-bool feature gate", args: []string{"--feature-gates=AnnotateFsResize=yes"},
			wantErr: `invalid value "AnnotateFsResize=yes" for flag -feature-gates`},
		{name: "malformed label", args: []string{"--leader-election-labels=a:b,c"},
			wantErr: `invalid value "a:b,c" for flag -leader-election-labels: malformed item "c"`},
		{name: "unknown logging format", args: []string{"--logging-format=xml"},
			wantErr: "invalid logging configuration: format: Invalid value: \"xml\": Unsupported log format"},
		{name: "vmodule with json", args: []string{"--logging-format=json", "--vmodule=a=1"},
			wantErr: "vmodule: Forbidden: Only supported for text log format"},
		{name: "alpha logging option without its gate", args: []string{"--log-text-split-stream"},
			wantErr: "Feature LoggingAlphaOptions is disabled"},
		{name: "bad verbosity", args: []string{"-v=-1"},
			wantErr: `invalid value "-1" for flag -v`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, out, err := parse(t, tc.args...)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error %q", tc.args, o, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse(%q) error = %q, want it to contain %q", tc.args, err, tc.wantErr)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("Parse(%q) error has more than one line: %q", tc.args, err)
			}
			if out != "" {
				t.Errorf("Parse(%q) wrote %q, want nothing (no usage on errors)", tc.args, out)
			}
		})
	}
}

// TestRefusedGates: --feature-gates refuses what upstream v2.2.1 refuses:
// the logging gates and client-go's gates are not among its gates.
func TestRefusedGates(t *testing.T) {
	for _, gate := range []string{"ContextualLogging", "LoggingAlphaOptions", "LoggingBetaOptions", "WatchListClient", "InformerResourceVersion"} {
		t.Run(gate, func(t *testing.T) {
			_, _, err := parse(t, "--feature-gates="+gate+"=true")
			want := "invalid value for flag --feature-gates: unrecognized feature gate: " + gate
			if err == nil || err.Error() != want {
				t.Errorf("Parse error = %v, want %q", err, want)
			}
		})
	}
}

// TestUpstreamCompatGates: a gate upstream accepts only because it links
// k8s.io/apiserver is accepted, and named in FeatureGates.
func TestUpstreamCompatGates(t *testing.T) {
	o := mustParse(t, "--feature-gates=WatchList=false,AnnotateFsResize=true")
	if o.Features.Enabled("WatchList") || !o.Features.Enabled(AnnotateFsResize) {
		t.Errorf("gates not set: %v", o.Features)
	}
	if want := map[string]bool{"WatchList": false, "AnnotateFsResize": true}; !reflect.DeepEqual(o.FeatureGates, want) {
		t.Errorf("FeatureGates = %v, want %v", o.FeatureGates, want)
	}
}

func TestFeatureGateDefaults(t *testing.T) {
	o := mustParse(t)
	want := map[featuregate.Feature]bool{
		AnnotateFsResize:              false,
		RecoverVolumeExpansionFailure: true,
		VolumeAttributesClass:         true,
		ReleaseLeaderElectionOnExit:   true,
	}
	for f, w := range want {
		if got := o.Features.Enabled(f); got != w {
			t.Errorf("default of %s = %v, want %v", f, got, w)
		}
	}
}

func TestFeatureGatesRepeated(t *testing.T) {
	o := mustParse(t, "--feature-gates=AnnotateFsResize=true", "-feature-gates=RecoverVolumeExpansionFailure=false")
	if !o.Features.Enabled(AnnotateFsResize) || o.Features.Enabled(RecoverVolumeExpansionFailure) {
		t.Errorf("repeated --feature-gates not merged: %v", o.Features)
	}
}

func TestParseGivesFreshGates(t *testing.T) {
	mustParse(t, "--feature-gates=AnnotateFsResize=true")
	if o := mustParse(t); o.Features.Enabled(AnnotateFsResize) {
		t.Error("a feature gate set by one Parse leaked into the next")
	}
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "-help"} {
		t.Run(arg, func(t *testing.T) {
			o, out, err := parse(t, arg)
			if !errors.Is(err, flag.ErrHelp) {
				t.Fatalf("Parse(%q) error = %v, want flag.ErrHelp", arg, err)
			}
			if o != nil {
				t.Errorf("Parse(%q) returned options %+v", arg, o)
			}
			if !strings.HasPrefix(out, "Usage of csi-resizer:\n") {
				t.Errorf("usage starts with %q", strings.SplitN(out, "\n", 2)[0])
			}
			for _, name := range designFlags {
				if !strings.Contains(out, "\n  -"+name+" ") && !strings.Contains(out, "\n  -"+name+"\n") {
					t.Errorf("usage does not list -%s", name)
				}
			}
			for _, def := range []string{"(default 10s)", "(default 5m0s)", `(default "/run/csi/socket")`,
				`(default "/metrics")`, "(default 15s)", "(default true)", "(default 10m0s)"} {
				if !strings.Contains(out, def) {
					t.Errorf("usage does not show %s", def)
				}
			}
			for _, f := range []string{"AnnotateFsResize=true|false (ALPHA - default=false)",
				"RecoverVolumeExpansionFailure=true|false (GA - default=true)",
				"VolumeAttributesClass=true|false (GA - default=true)",
				"ReleaseLeaderElectionOnExit=true|false (BETA - default=true)"} {
				if !strings.Contains(out, f) {
					t.Errorf("--feature-gates help does not list %s", f)
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"-version", "--version"} {
		t.Run(arg, func(t *testing.T) {
			if o := mustParse(t, arg); !o.ShowVersion {
				t.Errorf("Parse(%q).ShowVersion = false", arg)
			}
		})
	}
	t.Run("skips validation", func(t *testing.T) {
		if o := mustParse(t, "--version", "--workers=0"); !o.ShowVersion {
			t.Error("ShowVersion = false")
		}
	})
}

func TestAutomaxprocs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	// Twice: the global csi-lib-utils flag must be registered only once.
	for i := 0; i < 2; i++ {
		if o := mustParse(t, "--automaxprocs"); !o.Automaxprocs {
			t.Fatal("Automaxprocs = false")
		}
	}
	if flag.CommandLine.Lookup("automaxprocs") == nil {
		t.Error("csi-lib-utils automaxprocs was not used")
	}
}

func TestApplyMemLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	limited := fstest.MapFS{
		"proc/self/cgroup":         {Data: []byte("0::/\n")},
		"sys/fs/cgroup/memory.max": {Data: []byte("104857600\n")},
	}
	unlimited := fstest.MapFS{
		"proc/self/cgroup":         {Data: []byte("0::/\n")},
		"sys/fs/cgroup/memory.max": {Data: []byte("max\n")},
	}
	if got := applyMemLimit(limited); got != 94371840 || debug.SetMemoryLimit(-1) != 94371840 {
		t.Errorf("applyMemLimit(100 MiB container) = %d, runtime limit %d, want 90 MiB (94371840)", got, debug.SetMemoryLimit(-1))
	}
	debug.SetMemoryLimit(before)
	if got := applyMemLimit(unlimited); got != 0 || debug.SetMemoryLimit(-1) != before {
		t.Errorf("applyMemLimit(no limit) = %d, runtime limit %d, want none", got, debug.SetMemoryLimit(-1))
	}
	t.Setenv("GOMEMLIMIT", "200MiB")
	if got := applyMemLimit(limited); got != 0 || debug.SetMemoryLimit(-1) != before {
		t.Errorf("applyMemLimit with GOMEMLIMIT set = %d, runtime limit %d, want GOMEMLIMIT's (left alone)", got, debug.SetMemoryLimit(-1))
	}
}

// TestApplyGCPercent: the collector's target is defaultGCPercent, unless
// GOGC is in the environment, which is then left to decide.
func TestApplyGCPercent(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	if v, ok := os.LookupEnv("GOGC"); ok {
		t.Cleanup(func() { os.Setenv("GOGC", v) })
		os.Unsetenv("GOGC")
	}
	if got := applyGCPercent(); got != 50 || debug.SetGCPercent(100) != 50 {
		t.Errorf("applyGCPercent() without GOGC = %d, want the collector's target set to 50", got)
	}
	t.Setenv("GOGC", "200")
	if got := applyGCPercent(); got != 0 || debug.SetGCPercent(100) != 100 {
		t.Errorf("applyGCPercent() with GOGC set = %d, want the target left alone", got)
	}
}

func TestAddr(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{name: "none", want: ""},
		{name: "http-endpoint", o: Options{HTTPEndpoint: ":8080"}, want: ":8080"},
		{name: "metrics-address", o: Options{MetricsAddress: ":9090"}, want: ":9090"},
		{name: "both prefers http-endpoint", o: Options{HTTPEndpoint: ":8080", MetricsAddress: ":9090"}, want: ":8080"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.Addr(); got != tc.want {
				t.Errorf("Addr() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "single line", in: "a b", want: "a b"},
		{name: "lines joined", in: "first:\n  second\r\nthird\n", want: "first:; second; third"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := oneLine(errors.New(tc.in)).Error(); got != tc.want {
				t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// settingsKeys are the keys of the Settings line, in order. The corpus test
// of cmd/csi-resizer and the README name them.
var settingsKeys = []string{
	"csiAddress", "timeout", "resizeTimeout", "modifyTimeout", "workers",
	"resyncPeriod", "retryIntervalStart", "retryIntervalMax",
	"handleVolumeInUseError", "leaderElection", "leaderElectionNamespace",
	"leaseDuration", "renewDeadline", "retryPeriod", "kubeAPIQPS",
	"kubeAPIBurst", "httpEndpoint", "metricsAddress", "metricsPath",
	"verbosity", "featureGates", "extraModifyMetadata", "nodeDeployment",
}

func TestSettings(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want map[string]any // the keys that differ from the defaults
	}{
		{name: "defaults"},
		{
			name: "--timeout overrides the call timeouts",
			args: []string{"--timeout=90s", "--resize-timeout=5s"},
			want: map[string]any{"timeout": "1m30s", "resizeTimeout": "1m30s", "modifyTimeout": "1m30s"},
		},
		{
			name: "the Lease namespace from POD_NAMESPACE",
			env:  map[string]string{PodNamespaceEnv: "kube-system"},
			want: map[string]any{"leaderElectionNamespace": "kube-system"},
		},
		{
			name: "gates sorted by name, only those named",
			args: []string{"--feature-gates=VolumeAttributesClass=false", "--feature-gates=AnnotateFsResize=true,AllAlpha=false"},
			want: map[string]any{"featureGates": "AllAlpha=false,AnnotateFsResize=true,VolumeAttributesClass=false"},
		},
		{
			name: "every other flag",
			args: []string{
				"-csi-address=/csi/csi.sock", "--workers=3", "--resync-period=0", "--retry-interval-start=500ms",
				"--retry-interval-max=30m", "--handle-volume-inuse-error=false", "--leader-election",
				"--leader-election-namespace=storage", "--leader-election-lease-duration=30s",
				"--leader-election-renew-deadline=20s", "--leader-election-retry-period=10s",
				"--kube-api-qps=25.5", "--kube-api-burst=50", "--metrics-address=:9000",
				"--metrics-path=/m", "--v=5", "--extra-modify-metadata",
			},
			want: map[string]any{
				"csiAddress": "/csi/csi.sock", "workers": 3, "resyncPeriod": "0s", "retryIntervalStart": "500ms",
				"retryIntervalMax": "30m0s", "handleVolumeInUseError": false, "leaderElection": true,
				"leaderElectionNamespace": "storage", "leaseDuration": "30s", "renewDeadline": "20s",
				"retryPeriod": "10s", "kubeAPIQPS": 25.5, "kubeAPIBurst": 50, "metricsAddress": ":9000",
				"metricsPath": "/m", "verbosity": uint32(5), "extraModifyMetadata": true,
			},
		},
		{
			name: "node deployment",
			args: []string{"--node-deployment", "--http-endpoint=:8080"},
			env:  map[string]string{NodeNameEnv: "node-a"},
			want: map[string]any{"nodeDeployment": true, "httpEndpoint": ":8080"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(PodNamespaceEnv, "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			got := settingsMap(t, mustParse(t, tc.args...).Settings())
			want := map[string]any{
				"csiAddress": "/run/csi/socket", "timeout": "10s", "resizeTimeout": "10s", "modifyTimeout": "10s",
				"workers": 10, "resyncPeriod": "10m0s", "retryIntervalStart": "1s", "retryIntervalMax": "5m0s",
				"handleVolumeInUseError": true, "leaderElection": false,
				"leaderElectionNamespace": (&Options{}).LeaseNamespace(),
				"leaseDuration":           "15s", "renewDeadline": "10s", "retryPeriod": "5s", "kubeAPIQPS": 5.0,
				"kubeAPIBurst": 10, "httpEndpoint": "", "metricsAddress": "", "metricsPath": "/metrics",
				"verbosity": uint32(0), "featureGates": "", "extraModifyMetadata": false, "nodeDeployment": false,
			}
			for k, v := range tc.want {
				want[k] = v
			}
			for _, k := range settingsKeys {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Errorf("%s = %#v, want %#v", k, got[k], want[k])
				}
			}
		})
	}
}

// settingsMap checks that kv holds settingsKeys in order, each once, and
// returns it as a map.
func settingsMap(t *testing.T, kv []any) map[string]any {
	t.Helper()
	if len(kv) != 2*len(settingsKeys) {
		t.Fatalf("Settings() has %d items, want %d key/value pairs", len(kv), len(settingsKeys))
	}
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		if key := fmt.Sprint(kv[i]); key != settingsKeys[i/2] {
			t.Fatalf("Settings() key %d = %q, want %q", i/2, key, settingsKeys[i/2])
		}
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}
