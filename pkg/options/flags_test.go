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
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubernetes-csi/csi-lib-utils/standardflags"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// upstreamFlags is the flag set of upstream external-resizer v2.2.1: its
// own flags (cmd/csi-resizer/main.go of that release), csi-lib-utils
// v0.24.0's common flags (the version upstream and we build with; its
// --metrics-path and --automaxprocs register on the global flag set, where
// upstream parses, so they are added here), and the logging flags.
func upstreamFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("upstream", flag.ContinueOnError)
	fs.String("master", "", "")
	fs.Duration("resync-period", 10*time.Minute, "")
	fs.Int("workers", 10, "")
	fs.Bool("extra-modify-metadata", false, "")
	fs.Duration("timeout", 10*time.Second, "")
	fs.Duration("retry-interval-start", time.Second, "")
	fs.Duration("retry-interval-max", 5*time.Minute, "")
	fs.Bool("handle-volume-inuse-error", true, "")
	var gates map[string]bool
	fs.Var(cliflag.NewMapStringBool(&gates), "feature-gates", "")
	logsapi.AddGoFlags(logsapi.NewLoggingConfiguration(), fs)
	standardflags.RegisterCommonFlags(fs)
	fs.String("metrics-path", "/metrics", "")
	fs.Bool("automaxprocs", false, "")
	return fs
}

// flagDifferences are the flags where ours differ from upstream v2.2.1's, by
// name; the README's table of flags lists each with its reason.
var flagDifferences = map[string]string{
	"resize-timeout": "ours only",
	"modify-timeout": "ours only",
	// Upstream's open PR 573 adds it, with NODE_NAME and without leader
	// election, as here.
	"node-deployment": "ours only",
	// Go does not read a cgroup's memory limit by itself.
	"automemlimit": "ours only",
}

// TestFlagsAgainstUpstream compares our flags with upstream v2.2.1's, flag
// by flag: the same names and defaults, but for flagDifferences.
func TestFlagsAgainstUpstream(t *testing.T) {
	o := &Options{Features: NewGate(), Logging: logsapi.NewLoggingConfiguration(), LeaderElectionLabels: map[string]string{}}
	var gates map[string]bool
	ours := newFlagSet(o, &gates, nil)
	upstream := upstreamFlags()
	got := map[string]string{}
	ours.VisitAll(func(f *flag.Flag) {
		u := upstream.Lookup(f.Name)
		switch {
		case u == nil:
			got[f.Name] = "ours only"
		case defaultOf(u) != defaultOf(f):
			got[f.Name] = "default " + f.DefValue + ", upstream " + u.DefValue
		case isBool(u) != isBool(f):
			got[f.Name] = "boolean in one only"
		}
	})
	upstream.VisitAll(func(f *flag.Flag) {
		if ours.Lookup(f.Name) == nil {
			got[f.Name] = "upstream only"
		}
	})
	for name, want := range flagDifferences {
		if got[name] != want {
			t.Errorf("--%s: %q, want %q", name, got[name], want)
		}
	}
	for name, diff := range got {
		if _, listed := flagDifferences[name]; !listed {
			t.Errorf("--%s differs from upstream v2.2.1 (%s) and is not listed", name, diff)
		}
	}
}

// defaultOf is f's default as --help shows it; an empty map reads as empty.
func defaultOf(f *flag.Flag) string {
	if f.DefValue == "map[]" {
		return ""
	}
	return f.DefValue
}

// isBool reports whether f may be given without a value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func TestLabelsValue(t *testing.T) {
	tests := []struct {
		name    string
		values  []string // one per occurrence of the flag
		want    map[string]string
		wantErr string
	}{
		{name: "one label", values: []string{"a:b"}, want: map[string]string{"a": "b"}},
		{name: "several labels", values: []string{"my-label:my-value,my-second-label:my-second-value"},
			want: map[string]string{"my-label": "my-value", "my-second-label": "my-second-value"}},
		{name: "prefixed key", values: []string{"example.com/owner:team-a"},
			want: map[string]string{"example.com/owner": "team-a"}},
		{name: "empty value", values: []string{"a:"}, want: map[string]string{"a": ""}},
		{name: "repeated flag merges, later wins", values: []string{"a:1,b:2", "b:3,c:4"},
			want: map[string]string{"a": "1", "b": "3", "c": "4"}},
		{name: "empty", values: []string{""}, wantErr: `malformed item "" in list of labels, want key:value`},
		{name: "no colon", values: []string{"a:b,c"}, wantErr: `malformed item "c"`},
		{name: "two colons", values: []string{"a:b:c"}, wantErr: `malformed item "a:b:c"`},
		{name: "trailing comma", values: []string{"a:b,"}, wantErr: `malformed item ""`},
		{name: "empty key", values: []string{":b"}, wantErr: `invalid label key ""`},
		{name: "bad key", values: []string{"a b:c"}, wantErr: `invalid label key "a b"`},
		{name: "bad value", values: []string{"a:b c"}, wantErr: `invalid value "b c" of label "a"`},
		{name: "value too long", values: []string{"a:" + strings.Repeat("x", 64)}, wantErr: `invalid value "xxx`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			v := &labelsValue{m: &got}
			var err error
			for _, s := range tc.values {
				if err = v.Set(s); err != nil {
					break
				}
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Set(%q) error = %v, want it to contain %q", tc.values, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Set(%q) error = %v", tc.values, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Set(%q) = %v, want %v", tc.values, got, tc.want)
			}
		})
	}
}

func TestLabelsValueString(t *testing.T) {
	tests := []struct {
		name string
		v    *labelsValue
		want string
	}{
		{name: "nil value", v: nil, want: ""},
		{name: "nil map pointer", v: &labelsValue{}, want: ""},
		{name: "sorted", v: &labelsValue{m: &map[string]string{"b": "2", "a": "1"}}, want: "a:1,b:2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.v.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLabelsValueAllocatesMap(t *testing.T) {
	var m map[string]string
	if err := (&labelsValue{m: &m}).Set("a:b"); err != nil {
		t.Fatal(err)
	}
	if m["a"] != "b" {
		t.Errorf("map = %v, want a:b", m)
	}
}

func TestLabelsRepeatedOnCommandLine(t *testing.T) {
	o := mustParse(t, "--leader-election-labels=a:1", "-leader-election-labels", "b:2")
	if want := map[string]string{"a": "1", "b": "2"}; !reflect.DeepEqual(o.LeaderElectionLabels, want) {
		t.Errorf("LeaderElectionLabels = %v, want %v", o.LeaderElectionLabels, want)
	}
}

// TestLeaderJitterFactorIsClientGos checks the copy of client-go's jitter
// factor against the original.
func TestValidationErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "zero workers", args: []string{"--workers=0"},
			wantErr: "invalid value 0 for flag --workers: must be at least 1"},
		{name: "negative workers", args: []string{"-workers=-2"},
			wantErr: "invalid value -2 for flag --workers: must be at least 1"},
		{name: "zero timeout", args: []string{"--timeout=0s"},
			wantErr: "invalid value 0s for flag --timeout: must be greater than zero"},
		{name: "negative timeout", args: []string{"--timeout=-1s"},
			wantErr: "invalid value -1s for flag --timeout: must be greater than zero"},
		{name: "zero resize-timeout", args: []string{"--resize-timeout=0s"},
			wantErr: "invalid value 0s for flag --resize-timeout: must be greater than zero"},
		{name: "negative resize-timeout", args: []string{"-resize-timeout=-1m"},
			wantErr: "invalid value -1m0s for flag --resize-timeout: must be greater than zero"},
		{name: "zero modify-timeout", args: []string{"-modify-timeout=0s"},
			wantErr: "invalid value 0s for flag --modify-timeout: must be greater than zero"},
		{name: "negative modify-timeout", args: []string{"--modify-timeout=-5s"},
			wantErr: "invalid value -5s for flag --modify-timeout: must be greater than zero"},
		{name: "bad resize-timeout even when timeout overrides it", args: []string{"--timeout=1m", "--resize-timeout=0s"},
			wantErr: "invalid value 0s for flag --resize-timeout: must be greater than zero"},
		{name: "zero timeout with valid new ones", args: []string{"--timeout=0s", "--resize-timeout=1m", "--modify-timeout=1m"},
			wantErr: "invalid value 0s for flag --timeout: must be greater than zero"},
		{name: "negative resync", args: []string{"--resync-period=-1m"},
			wantErr: "invalid value -1m0s for flag --resync-period: must not be negative"},
		{name: "zero retry start", args: []string{"--retry-interval-start=0s"},
			wantErr: "invalid value 0s for flag --retry-interval-start: must be greater than zero"},
		{name: "retry start above max", args: []string{"--retry-interval-start=10m"},
			wantErr: "invalid value 10m0s for flag --retry-interval-start: must not be greater than --retry-interval-max (5m0s)"},
		{name: "retry max below start", args: []string{"--retry-interval-start=2s", "--retry-interval-max=1s"},
			wantErr: "must not be greater than --retry-interval-max (1s)"},
		{name: "zero qps", args: []string{"--kube-api-qps=0"},
			wantErr: "invalid value 0 for flag --kube-api-qps: must be a finite number greater than zero"},
		{name: "negative qps", args: []string{"--kube-api-qps=-1"},
			wantErr: "invalid value -1 for flag --kube-api-qps"},
		{name: "NaN qps", args: []string{"--kube-api-qps=NaN"},
			wantErr: "invalid value NaN for flag --kube-api-qps"},
		{name: "infinite qps", args: []string{"--kube-api-qps=+Inf"},
			wantErr: "invalid value +Inf for flag --kube-api-qps"},
		{name: "zero burst", args: []string{"--kube-api-burst=0"},
			wantErr: "invalid value 0 for flag --kube-api-burst: must be at least 1"},
		{name: "metrics-address with http-endpoint", args: []string{"--metrics-address=:9090", "--http-endpoint=:8080"},
			wantErr: "only one of --metrics-address and --http-endpoint can be set"},
		{name: "relative metrics path", args: []string{"--metrics-path=metrics"},
			wantErr: `invalid value "metrics" for flag --metrics-path: must start with "/"`},
		{name: "empty metrics path", args: []string{"--metrics-path="},
			wantErr: `invalid value "" for flag --metrics-path: must start with "/"`},
		{name: "lease not above renew", args: []string{"--leader-election", "--leader-election-lease-duration=10s"},
			wantErr: "--leader-election-lease-duration (10s) must be greater than --leader-election-renew-deadline (10s)"},
		{name: "renew not above retry times jitter", args: []string{"--leader-election", "--leader-election-renew-deadline=6s"},
			wantErr: "--leader-election-renew-deadline (6s) must be greater than 1.2 times --leader-election-retry-period (5s), i.e. greater than 6s"},
		{name: "zero retry period", args: []string{"--leader-election", "--leader-election-retry-period=0s"},
			wantErr: "invalid value 0s for flag --leader-election-retry-period: must be greater than zero"},
		{name: "all problems on one line", args: []string{"--workers=0", "--kube-api-burst=0"},
			wantErr: "invalid value 0 for flag --workers: must be at least 1; invalid value 0 for flag --kube-api-burst: must be at least 1"},
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
				t.Errorf("Parse(%q) wrote %q, want nothing", tc.args, out)
			}
		})
	}
}

func TestLeaderElectionTimingsOnlyCheckedWhenEnabled(t *testing.T) {
	// Upstream ignores the lease timings without --leader-election; so do we.
	mustParse(t, "--leader-election-lease-duration=1s", "--leader-election-renew-deadline=5s")
}

func TestLeaderElectionTimingsAtTheLimit(t *testing.T) {
	o := mustParse(t, "--leader-election", "--leader-election-lease-duration=8s",
		"--leader-election-renew-deadline=7s", "--leader-election-retry-period=5s")
	if !o.LeaderElection {
		t.Error("LeaderElection = false")
	}
}

func TestNodeDeployment(t *testing.T) {
	t.Setenv(NodeNameEnv, "node-1")
	for _, arg := range []string{"-node-deployment", "--node-deployment", "--node-deployment=true"} {
		o := mustParse(t, arg)
		if !o.NodeDeployment || o.NodeName != "node-1" {
			t.Errorf("Parse(%q): NodeDeployment %v, NodeName %q; want true, node-1", arg, o.NodeDeployment, o.NodeName)
		}
	}
}

func TestNodeNameReadOnlyWithNodeDeployment(t *testing.T) {
	t.Setenv(NodeNameEnv, "node-1")
	if o := mustParse(t); o.NodeDeployment || o.NodeName != "" {
		t.Errorf("without --node-deployment: NodeDeployment %v, NodeName %q; want false, empty", o.NodeDeployment, o.NodeName)
	}
	// Nothing checks NODE_NAME when it is not used.
	t.Setenv(NodeNameEnv, "Not A Node")
	mustParse(t, "--leader-election")
}

func TestNodeDeploymentRefusals(t *testing.T) {
	const (
		together = "--node-deployment and --leader-election cannot be used together: with --node-deployment every node runs its own resizer for the volumes of that node, so there is no leader to elect"
		noName   = "--node-deployment requires the NODE_NAME environment variable, the name of the node the resizer runs on: set it from the pod's spec.nodeName with the downward API"
	)
	tests := []struct {
		name     string
		nodeName string
		args     []string
		wantErr  string
	}{
		{name: "no NODE_NAME", args: []string{"--node-deployment"}, wantErr: noName},
		{name: "with leader election", nodeName: "node-1", args: []string{"--node-deployment", "--leader-election"}, wantErr: together},
		{name: "both, on one line", args: []string{"--leader-election", "--node-deployment"}, wantErr: together + "; " + noName},
		{name: "NODE_NAME not a node name", nodeName: "Node_1", args: []string{"--node-deployment"},
			wantErr: `invalid NODE_NAME "Node_1" for --node-deployment: it is not a node name: a lowercase RFC 1123 subdomain`},
		{name: "with other problems", nodeName: "node-1", args: []string{"--node-deployment", "--leader-election", "--workers=0"},
			wantErr: "invalid value 0 for flag --workers: must be at least 1; " + together},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(NodeNameEnv, tc.nodeName)
			o, out, err := parse(t, tc.args...)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error %q", tc.args, o, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse(%q) error = %q, want it to contain %q", tc.args, err, tc.wantErr)
			}
			if strings.ContainsAny(err.Error(), "\r\n") || out != "" {
				t.Errorf("Parse(%q): error %q on more than one line, or wrote %q", tc.args, err, out)
			}
		})
	}
}
