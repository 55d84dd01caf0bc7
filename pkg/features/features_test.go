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

package features

import (
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
)

func TestDefaults(t *testing.T) {
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
		{name: "ContextualLogging comes from logsapi", feature: logsapi.ContextualLogging, want: true,
			spec: featuregate.FeatureSpec{PreRelease: featuregate.Beta}},
		{name: "LoggingAlphaOptions comes from logsapi", feature: logsapi.LoggingAlphaOptions, want: false,
			spec: featuregate.FeatureSpec{PreRelease: featuregate.Alpha}},
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
			name:  "logging gate",
			set:   map[string]bool{"LoggingAlphaOptions": true},
			check: map[featuregate.Feature]bool{logsapi.LoggingAlphaOptions: true},
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
