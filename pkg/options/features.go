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

// This file declares the feature gates of csi-resizer. The names,
// maturity and defaults match upstream external-resizer v2.2 so that an
// operator's --feature-gates value keeps working, except where noted; the
// gates upstream accepts only because it links k8s.io/apiserver are
// accepted too, without effect (compat.go).

package options

import (
	"fmt"
	"slices"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
)

const (
	// AnnotateFsResize makes the resizer record the PVC capacity before a
	// resize in the PV annotation volume.alpha.kubernetes.io/pre-resize-capacity
	// when the driver asks for node expansion.
	AnnotateFsResize featuregate.Feature = "AnnotateFsResize"

	// RecoverVolumeExpansionFailure lets users lower a failed request to
	// recover from expansion failures (KEP-1790). GA and on by default, as
	// upstream; it may still be turned off.
	RecoverVolumeExpansionFailure featuregate.Feature = "RecoverVolumeExpansionFailure"

	// VolumeAttributesClass turns on volume modification (KEP-3751): the
	// resizer calls ControllerModifyVolume with the class's parameters for
	// claims whose spec.volumeAttributesClassName changes, when the driver
	// advertises MODIFY_VOLUME and the API server serves storage.k8s.io/v1
	// VolumeAttributesClass. GA and on by default, as upstream; false turns
	// modification off, and the volumeattributesclasses RBAC rule is then
	// not needed.
	VolumeAttributesClass featuregate.Feature = "VolumeAttributesClass"

	// ReleaseLeaderElectionOnExit releases the leader election Lease on a
	// graceful shutdown so that another replica takes over without waiting
	// for the lease to expire. Upstream had it alpha and off; here it is beta
	// and on, because graceful shutdown is part of our contract
	// (docs/design.md#shutdown).
	ReleaseLeaderElectionOnExit featuregate.Feature = "ReleaseLeaderElectionOnExit"
)

// Specs returns the feature specs of csi-resizer's own gates, without the
// logging gates. It returns a new map on each call.
func Specs() map[featuregate.Feature]featuregate.FeatureSpec {
	return map[featuregate.Feature]featuregate.FeatureSpec{
		AnnotateFsResize:              {Default: false, PreRelease: featuregate.Alpha},
		RecoverVolumeExpansionFailure: {Default: true, PreRelease: featuregate.GA},
		VolumeAttributesClass:         {Default: true, PreRelease: featuregate.GA},
		ReleaseLeaderElectionOnExit:   {Default: true, PreRelease: featuregate.Beta},
	}
}

// NewGate returns a new feature gate that knows csi-resizer's gates and the
// gates upstream v2.2.1 accepts without effect (CompatSpecs): exactly the
// names upstream's --feature-gates accepts. Each call returns an
// independent gate: there is no process-wide gate to reset.
//
// The logging gates of component-base are not in it: upstream refuses them
// on --feature-gates (they live in a gate of their own there, left at its
// defaults), and so does csi-resizer; see NewLoggingGate. Nor are
// client-go's gates (WatchListClient, ...): upstream refuses them too, and
// client-go reads them from KUBE_FEATURE_<name> environment variables, in
// both resizers alike.
func NewGate() featuregate.MutableFeatureGate {
	gate := featuregate.NewFeatureGate()
	// Both calls only fail on malformed specs or a closed gate, which would
	// be a programming error in this package.
	if err := gate.Add(Specs()); err != nil {
		panic(fmt.Sprintf("add csi-resizer feature gates: %v", err))
	}
	if err := gate.Add(CompatSpecs()); err != nil {
		panic(fmt.Sprintf("add upstream's compatibility feature gates: %v", err))
	}
	return gate
}

// NewLoggingGate returns a new gate holding only the logging gates of
// component-base (ContextualLogging, LoggingAlphaOptions,
// LoggingBetaOptions) at their defaults, for logsapi.ValidateAndApply, as
// upstream does: no flag sets them.
func NewLoggingGate() featuregate.FeatureGate {
	gate := featuregate.NewFeatureGate()
	if err := logsapi.AddFeatureGates(gate); err != nil {
		panic(fmt.Sprintf("add logging feature gates: %v", err))
	}
	return gate
}

// HasEffect reports whether setting the gate name changes what csi-resizer
// does: false for the gates of CompatSpecs, accepted only because upstream
// accepts them.
func HasEffect(name string) bool {
	_, compat := CompatSpecs()[featuregate.Feature(name)]
	return !compat
}

// compatHeader separates csi-resizer's gates from CompatSpecs in Known.
const compatHeader = "Accepted because upstream external-resizer v2.2.1 accepts them, without effect (k8s.io/apiserver's gates):"

// Known lists every gate gate accepts, one per line, as --help shows them:
// csi-resizer's own gates (with AllAlpha and AllBeta), then the gates of
// CompatSpecs under a line that says they have no effect. Unlike
// featuregate's KnownFeatures it includes the GA and deprecated gates,
// which may still be set, and the locked ones, which only take their one
// value.
func Known(gate featuregate.MutableFeatureGate) []string {
	var own, compat []string
	for name, spec := range gate.GetAll() {
		line := describe(name, spec)
		if HasEffect(string(name)) {
			own = append(own, line)
		} else {
			compat = append(compat, line)
		}
	}
	slices.Sort(own)
	slices.Sort(compat)
	if len(compat) == 0 {
		return own
	}
	return append(append(own, compatHeader), compat...)
}

// describe is one line of Known, in the form of featuregate's KnownFeatures.
func describe(name featuregate.Feature, spec featuregate.FeatureSpec) string {
	stage := string(spec.PreRelease)
	if spec.PreRelease == featuregate.GA {
		stage = "GA"
	}
	if spec.LockToDefault {
		return fmt.Sprintf("%s=%t (%s - locked)", name, spec.Default, stage)
	}
	return fmt.Sprintf("%s=true|false (%s - default=%t)", name, stage, spec.Default)
}
