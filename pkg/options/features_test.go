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
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
)

func TestFeatureDefaults(t *testing.T) {
	tests := []struct {
		name    string
		feature featuregate.Feature
		want    bool
		// Only PreRelease is compared: its type is not exported.
		spec featuregate.FeatureSpec
	}{
		{name: "AnnotateFsResize is alpha and off", feature: AnnotateFsResize, want: false,
			spec: featuregate.FeatureSpec{PreRelease: featuregate.Alpha}},
		{name: "RecoverVolumeExpansionFailure is GA and on, as upstream v2.2.1", feature: RecoverVolumeExpansionFailure, want: true,
			spec: featuregate.FeatureSpec{PreRelease: featuregate.GA}},
		{name: "VolumeAttributesClass is GA and on", feature: VolumeAttributesClass, want: true,
			spec: featuregate.FeatureSpec{PreRelease: featuregate.GA}},
		{name: "ReleaseLeaderElectionOnExit is beta and on", feature: ReleaseLeaderElectionOnExit, want: true,
			spec: featuregate.FeatureSpec{PreRelease: featuregate.Beta}},
		{name: "WatchList is accepted as upstream does, beta and on", feature: "WatchList", want: true,
			spec: featuregate.FeatureSpec{PreRelease: featuregate.Beta}},
	}
	gate := NewGate()
	all := gate.GetAll()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := gate.Enabled(tc.feature); got != tc.want {
				t.Errorf("Enabled(%s) = %v, want %v", tc.feature, got, tc.want)
			}
			spec, ok := all[tc.feature]
			if !ok {
				t.Fatalf("%s is not known to the gate", tc.feature)
			}
			if spec.PreRelease != tc.spec.PreRelease {
				t.Errorf("%s is %q, want %q", tc.feature, spec.PreRelease, tc.spec.PreRelease)
			}
		})
	}
}

func TestSpecsMatchGate(t *testing.T) {
	all := NewGate().GetAll()
	for name, want := range Specs() {
		got, ok := all[name]
		if !ok {
			t.Errorf("%s missing from the gate", name)
			continue
		}
		if got.Default != want.Default || got.PreRelease != want.PreRelease {
			t.Errorf("%s = %+v, want %+v", name, got, want)
		}
	}
}

func TestSetFromMap(t *testing.T) {
	tests := []struct {
		name    string
		set     map[string]bool
		wantErr string
		check   map[featuregate.Feature]bool
	}{
		{
			name:  "enable alpha gate",
			set:   map[string]bool{"AnnotateFsResize": true},
			check: map[featuregate.Feature]bool{AnnotateFsResize: true, RecoverVolumeExpansionFailure: true},
		},
		{
			name:  "disable beta gates",
			set:   map[string]bool{"RecoverVolumeExpansionFailure": false, "ReleaseLeaderElectionOnExit": false},
			check: map[featuregate.Feature]bool{RecoverVolumeExpansionFailure: false, ReleaseLeaderElectionOnExit: false},
		},
		{
			name:  "AllAlpha",
			set:   map[string]bool{"AllAlpha": true},
			check: map[featuregate.Feature]bool{AnnotateFsResize: true},
		},
		{
			name:  "a gate of upstream's apiserver",
			set:   map[string]bool{"WatchList": false, "KMSv1": true},
			check: map[featuregate.Feature]bool{"WatchList": false, "KMSv1": true},
		},
		{
			name:  "a locked gate at its value",
			set:   map[string]bool{"APIServerTracing": true},
			check: map[featuregate.Feature]bool{"APIServerTracing": true},
		},
		{
			name:    "a locked gate at the other value",
			set:     map[string]bool{"APIServerTracing": false},
			wantErr: "cannot set feature gate APIServerTracing to false, feature is locked to true",
		},
		{
			name:    "logging gates are refused, as upstream refuses them",
			set:     map[string]bool{"ContextualLogging": false},
			wantErr: "unrecognized feature gate: ContextualLogging",
		},
		{
			name:    "LoggingAlphaOptions is refused",
			set:     map[string]bool{"LoggingAlphaOptions": true},
			wantErr: "unrecognized feature gate: LoggingAlphaOptions",
		},
		{
			name:    "LoggingBetaOptions is refused",
			set:     map[string]bool{"LoggingBetaOptions": true},
			wantErr: "unrecognized feature gate: LoggingBetaOptions",
		},
		{
			name:    "client-go's gates are refused, as upstream refuses them",
			set:     map[string]bool{"WatchListClient": true},
			wantErr: "unrecognized feature gate: WatchListClient",
		},
		{
			name:    "unknown gate",
			set:     map[string]bool{"NoSuchGate": true},
			wantErr: "unrecognized feature gate: NoSuchGate",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gate := NewGate()
			err := gate.SetFromMap(tc.set)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("SetFromMap() error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("SetFromMap() error = %v", err)
			}
			for f, want := range tc.check {
				if got := gate.Enabled(f); got != want {
					t.Errorf("Enabled(%s) = %v, want %v", f, got, want)
				}
			}
		})
	}
}

func TestNewGateIsIndependent(t *testing.T) {
	first := NewGate()
	if err := first.SetFromMap(map[string]bool{string(AnnotateFsResize): true}); err != nil {
		t.Fatal(err)
	}
	if NewGate().Enabled(AnnotateFsResize) {
		t.Error("a new gate saw a value set on another gate")
	}
}

func TestNewLoggingGate(t *testing.T) {
	gate := NewLoggingGate()
	want := map[featuregate.Feature]bool{
		logsapi.ContextualLogging:   true,
		logsapi.LoggingAlphaOptions: false,
		logsapi.LoggingBetaOptions:  true,
	}
	for f, w := range want {
		if got := gate.Enabled(f); got != w {
			t.Errorf("Enabled(%s) = %v, want %v (the default, as upstream)", f, got, w)
		}
	}
}

func TestHasEffect(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{name: string(AnnotateFsResize), want: true},
		{name: string(ReleaseLeaderElectionOnExit), want: true},
		{name: "AllAlpha", want: true},
		{name: "WatchList", want: false},
		{name: "APIServerTracing", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HasEffect(tc.name); got != tc.want {
				t.Errorf("HasEffect(%s) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

func TestKnown(t *testing.T) {
	gate := NewGate()
	known := Known(gate)
	header := slices.Index(known, compatHeader)
	if header < 0 {
		t.Fatalf("Known() has no line %q:\n%s", compatHeader, strings.Join(known, "\n"))
	}
	if got, want := len(known)-1, len(gate.GetAll()); got != want {
		t.Errorf("Known() lists %d gates, the gate accepts %d", got, want)
	}
	tests := []struct {
		name   string
		line   string
		compat bool
	}{
		{name: "alpha", line: "AnnotateFsResize=true|false (ALPHA - default=false)"},
		{name: "GA, not locked", line: "RecoverVolumeExpansionFailure=true|false (GA - default=true)"},
		{name: "AllAlpha", line: "AllAlpha=true|false (ALPHA - default=false)"},
		{name: "compat beta", line: "WatchList=true|false (BETA - default=true)", compat: true},
		{name: "compat locked", line: "APIServerTracing=true (GA - locked)", compat: true},
		{name: "compat deprecated", line: "KMSv1=true|false (DEPRECATED - default=false)", compat: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i := slices.Index(known, tc.line)
			switch {
			case i < 0:
				t.Errorf("Known() has no line %q", tc.line)
			case tc.compat != (i > header):
				t.Errorf("%q is at line %d, the compatibility header at %d", tc.line, i, header)
			}
		})
	}
}

// upstreamDifferences are the gates whose spec differs from upstream
// v2.2.1's, with the reason (features.go).
var upstreamDifferences = map[featuregate.Feature]string{
	ReleaseLeaderElectionOnExit: "beta and on: graceful shutdown is part of our contract",
}

// TestAgainstUpstream: the gate accepts exactly the names upstream v2.2.1
// accepts, with upstream's default, maturity and lock, but for
// upstreamDifferences.
func TestAgainstUpstream(t *testing.T) {
	upstream := readUpstreamGates(t)
	ours := NewGate().GetAll()
	for name, want := range upstream {
		got, ok := ours[name]
		switch {
		case !ok:
			t.Errorf("%s: accepted by upstream, unknown here", name)
		case upstreamDifferences[name] != "":
			if got == want {
				t.Errorf("%s is listed as different from upstream but equals it: %+v", name, got)
			}
		case got.Default != want.Default || got.PreRelease != want.PreRelease || got.LockToDefault != want.LockToDefault:
			t.Errorf("%s = %+v, upstream %+v", name, got, want)
		}
	}
	for name := range ours {
		if _, ok := upstream[name]; !ok {
			t.Errorf("%s: accepted here, unknown to upstream", name)
		}
	}
}

// readUpstreamGates reads testdata/upstream-v2.2.1-gates.txt.
func readUpstreamGates(t *testing.T) map[featuregate.Feature]featuregate.FeatureSpec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "upstream-v2.2.1-gates.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The type of PreRelease is not exported: specs carry the values.
	stages := map[string]featuregate.FeatureSpec{
		"ALPHA": {PreRelease: featuregate.Alpha}, "BETA": {PreRelease: featuregate.Beta},
		"GA": {PreRelease: featuregate.GA}, "DEPRECATED": {PreRelease: featuregate.Deprecated},
	}
	gates := map[featuregate.Feature]featuregate.FeatureSpec{}
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		stage, ok := stages[f[min(2, len(f)-1)]]
		if len(f) != 4 || !ok {
			t.Fatalf("upstream-v2.2.1-gates.txt:%d: malformed line %q", i+1, line)
		}
		gates[featuregate.Feature(f[0])] = featuregate.FeatureSpec{Default: f[1] == "true", PreRelease: stage.PreRelease, LockToDefault: f[3] == "true"}
	}
	return gates
}
