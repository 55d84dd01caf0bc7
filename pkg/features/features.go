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

// Package features declares the feature gates of csi-resizer. The names,
// maturity and defaults match upstream external-resizer v2.2 so that an
// operator's --feature-gates value keeps working, except where noted.
package features

import (
	"fmt"
	"slices"
	"strings"

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
// logging gates of component-base (ContextualLogging, LoggingAlphaOptions,
// LoggingBetaOptions), so that one --feature-gates flag sets both. Each call
// returns an independent gate: there is no process-wide gate to reset.
func NewGate() featuregate.MutableFeatureGate {
	gate := featuregate.NewFeatureGate()
	// Both calls only fail on malformed specs or a closed gate, which would
	// be a programming error in this file.
	if err := gate.Add(Specs()); err != nil {
		panic(fmt.Sprintf("add csi-resizer feature gates: %v", err))
	}
	if err := logsapi.AddFeatureGates(gate); err != nil {
		panic(fmt.Sprintf("add logging feature gates: %v", err))
	}
	return gate
}

// Known lists the gates gate knows, one per line, as --help shows them:
// featuregate's KnownFeatures leaves out the GA gates, which may still be
// set (to turn a feature off), so they are added in the same form.
func Known(gate featuregate.MutableFeatureGate) []string {
	known := gate.KnownFeatures()
	for name, spec := range gate.GetAll() {
		if spec.PreRelease == featuregate.GA && !spec.LockToDefault {
			known = append(known, fmt.Sprintf("%s=true|false (GA - default=%t)", name, spec.Default))
		}
	}
	slices.SortFunc(known, func(a, b string) int { return strings.Compare(a, b) })
	return known
}
