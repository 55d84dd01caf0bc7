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

package sidecar

import (
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// publishedSettings are the Lease annotations (options.SettingsAnnotation)
// that publish the settings of o, and whether the driver expands offline
// only, that kubectl csi-resizer explain reasons with,
// on the leader election Lease and on the node Lease alike: explain reads
// them from the Lease it finds the resizer by, so it needs no access to
// the resizer's pod.
func publishedSettings(o *options.Options, offlineOnly bool) map[string]string {
	recovery := options.Specs()[options.RecoverVolumeExpansionFailure].Default
	annotateFsResize := options.Specs()[options.AnnotateFsResize].Default
	if o.Features != nil { // nil only in options made by hand
		recovery = o.Features.Enabled(options.RecoverVolumeExpansionFailure)
		annotateFsResize = o.Features.Enabled(options.AnnotateFsResize)
	}
	return options.Published{
		RetryIntervalStart:     options.Duration(o.RetryIntervalStart),
		RetryIntervalMax:       options.Duration(o.RetryIntervalMax),
		Recovery:               recovery,
		HandleVolumeInUseError: o.HandleVolumeInUseError,
		ResizeTimeout:          options.Duration(o.ResizeTimeout),
		ModifyTimeout:          options.Duration(o.ModifyTimeout),
		NodeDeployment:         o.NodeDeployment,
		OfflineOnly:            offlineOnly,
		AnnotateFsResize:       annotateFsResize,
	}.Annotations()
}
