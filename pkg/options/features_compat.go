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

import "k8s.io/component-base/featuregate"

// CompatSpecs returns the gates that upstream external-resizer v2.2.1's
// --feature-gates accepts besides its own: it sets its gates on
// k8s.io/apiserver's process-wide gate, where the init of k8s.io/apiserver's
// features package (linked in for a signal handler) has registered the API
// server's gates. Nothing in upstream reads them, nor anything here: they
// are accepted so that an argument list upstream takes is not refused, with
// upstream's specs as they resolve at k8s.io/apiserver v0.36.1 (a locked
// gate takes only its one value, a GA or deprecated one logs a warning). The
// list is testdata/upstream-v2.2.1-gates.txt, read off a build of upstream.
// It returns a new map on each call.
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
