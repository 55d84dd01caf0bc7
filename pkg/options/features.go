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
	"fmt"
	"slices"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// The gates of csi-resizer: names, maturity and defaults of upstream v2.2
// unless noted.
const (
	// AnnotateFsResize makes the resizer record the PVC capacity before a
	// resize in the PV annotation volume.alpha.kubernetes.io/pre-resize-capacity
	// when the driver asks for node expansion.
	AnnotateFsResize featuregate.Feature = "AnnotateFsResize"

	// RecoverVolumeExpansionFailure lets users lower a failed request to
	// recover from expansion failures (KEP-1790). GA and on by default, as
	// upstream; it may still be turned off.
	RecoverVolumeExpansionFailure featuregate.Feature = "RecoverVolumeExpansionFailure"

	// VolumeAttributesClass turns on volume modification (KEP-3751), when
	// the driver advertises MODIFY_VOLUME and the API server serves
	// storage.k8s.io/v1 VolumeAttributesClass. GA and on by default, as
	// upstream; off, the volumeattributesclasses RBAC rule is not needed.
	VolumeAttributesClass featuregate.Feature = "VolumeAttributesClass"

	// ReleaseLeaderElectionOnExit releases the leader election Lease on a
	// graceful shutdown so that another replica takes over without waiting
	// for the lease to expire. Upstream had it alpha and off; here it is beta
	// and on, because graceful shutdown is part of our contract
	// (docs/design.md#shutdown).
	ReleaseLeaderElectionOnExit featuregate.Feature = "ReleaseLeaderElectionOnExit"
)

// Specs returns a new map of the specs of csi-resizer's own gates.
func Specs() map[featuregate.Feature]featuregate.FeatureSpec {
	return map[featuregate.Feature]featuregate.FeatureSpec{
		AnnotateFsResize:              {Default: false, PreRelease: featuregate.Alpha},
		RecoverVolumeExpansionFailure: {Default: true, PreRelease: featuregate.GA},
		VolumeAttributesClass:         {Default: true, PreRelease: featuregate.GA},
		ReleaseLeaderElectionOnExit:   {Default: true, PreRelease: featuregate.Beta},
	}
}

// NewGate returns a new, independent feature gate that knows exactly the
// names upstream's --feature-gates accepts: csi-resizer's gates and
// CompatSpecs. Upstream refuses the logging gates of component-base there
// (see NewLoggingGate) and client-go's (read from KUBE_FEATURE_<name>
// environment variables, in both resizers alike), and so does csi-resizer.
func NewGate() featuregate.MutableFeatureGate {
	gate := featuregate.NewFeatureGate()
	// Add fails only on malformed specs or a closed gate: a bug here.
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
// csi-resizer's own (with AllAlpha and AllBeta), then CompatSpecs under
// compatHeader. Unlike featuregate's KnownFeatures it includes the GA,
// deprecated and locked gates, which may still be set.
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

// CompatSpecs returns a new map of the gates upstream v2.2.1's
// --feature-gates accepts besides its own: k8s.io/apiserver's, registered
// on the process-wide gate upstream sets (its features package is linked in
// for a signal handler). Nothing reads them, there or here: they are
// accepted so that an argument list upstream takes is not refused, with the
// specs of k8s.io/apiserver v0.36.1, as testdata/upstream-v2.2.1-gates.txt
// read them off a build of upstream.
func CompatSpecs() map[featuregate.Feature]featuregate.FeatureSpec {
	return map[featuregate.Feature]featuregate.FeatureSpec{
		"APIResponseCompression":                              {Default: true, PreRelease: featuregate.Beta},
		"APIServerIdentity":                                   {Default: true, PreRelease: featuregate.Beta},
		"APIServerTracing":                                    {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"APIServingWithRoutine":                               {Default: false, PreRelease: featuregate.Alpha},
		"AggregatedDiscoveryRemoveBetaType":                   {Default: true, PreRelease: featuregate.Deprecated, LockToDefault: true},
		"AllowParsingUserUIDFromCertAuth":                     {Default: true, PreRelease: featuregate.Beta},
		"AllowUnsafeMalformedObjectDeletion":                  {Default: false, PreRelease: featuregate.Alpha},
		"AnonymousAuthConfigurableEndpoints":                  {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"AuthorizeWithSelectors":                              {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"BtreeWatchCache":                                     {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"CBORServingAndStorage":                               {Default: false, PreRelease: featuregate.Alpha},
		"ComponentFlagz":                                      {Default: true, PreRelease: featuregate.Beta},
		"ComponentStatusz":                                    {Default: true, PreRelease: featuregate.Beta},
		"ConcurrentWatchObjectDecode":                         {Default: false, PreRelease: featuregate.Beta},
		"ConsistentListFromCache":                             {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"ConstrainedImpersonation":                            {Default: true, PreRelease: featuregate.Beta},
		"CoordinatedLeaderElection":                           {Default: false, PreRelease: featuregate.Beta},
		"DeclarativeValidation":                               {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"DeclarativeValidationBeta":                           {Default: true, PreRelease: featuregate.Beta},
		"DeclarativeValidationTakeover":                       {Default: false, PreRelease: featuregate.Deprecated},
		"DetectCacheInconsistency":                            {Default: true, PreRelease: featuregate.Beta},
		"KMSv1":                                               {Default: false, PreRelease: featuregate.Deprecated},
		"ListFromCacheSnapshot":                               {Default: true, PreRelease: featuregate.Beta},
		"ManifestBasedAdmissionControlConfig":                 {Default: false, PreRelease: featuregate.Alpha},
		"MutatingAdmissionPolicy":                             {Default: true, PreRelease: featuregate.GA},
		"NativeHistograms":                                    {Default: false, PreRelease: featuregate.Alpha},
		"OpenAPIEnums":                                        {Default: true, PreRelease: featuregate.Beta},
		"RemoteRequestHeaderUID":                              {Default: true, PreRelease: featuregate.Beta},
		"ResilientWatchCacheInitialization":                   {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"RetryGenerateName":                                   {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"SeparateCacheWatchRPC":                               {Default: false, PreRelease: featuregate.Deprecated, LockToDefault: true},
		"ShardedListAndWatch":                                 {Default: false, PreRelease: featuregate.Alpha},
		"SizeBasedListCostEstimate":                           {Default: true, PreRelease: featuregate.Beta},
		"StorageVersionAPI":                                   {Default: false, PreRelease: featuregate.Alpha},
		"StorageVersionHash":                                  {Default: true, PreRelease: featuregate.Beta},
		"StreamingCollectionEncodingToJSON":                   {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"StreamingCollectionEncodingToProtobuf":               {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"StructuredAuthenticationConfiguration":               {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		"StructuredAuthenticationConfigurationEgressSelector": {Default: true, PreRelease: featuregate.Beta},
		"StructuredAuthenticationConfigurationJWKSMetrics":    {Default: true, PreRelease: featuregate.Beta},
		"TokenRequestServiceAccountUIDValidation":             {Default: true, PreRelease: featuregate.Beta},
		"UnauthenticatedHTTP2DOSMitigation":                   {Default: true, PreRelease: featuregate.Beta},
		"UnknownVersionInteroperabilityProxy":                 {Default: true, PreRelease: featuregate.Beta},
		"WatchCacheInitializationPostStartHook":               {Default: true, PreRelease: featuregate.Beta},
		"WatchList":                                           {Default: true, PreRelease: featuregate.Beta},
	}
}
