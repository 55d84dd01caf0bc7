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
	"encoding/json"
	"time"
)

// SettingsAnnotation is the annotation on the Leases a resizer holds (its
// leader election Lease, or with --node-deployment its node Lease) that
// publishes the settings kubectl csi-resizer explain reasons with, as JSON
// (Published), so that explain reads them where it finds the resizer.
const SettingsAnnotation = "csi-resizer.io/settings"

// Published are the resizer's settings that explain reasons with, as the
// resizer resolved them from its command line. Their JSON is
// SettingsAnnotation's value; fields may be added, never renamed.
type Published struct {
	// RetryIntervalStart and RetryIntervalMax are --retry-interval-start
	// and --retry-interval-max: the first and the longest backoff, and
	// the slow lane of infeasible sizes and classes.
	RetryIntervalStart Duration `json:"retryIntervalStart"`
	RetryIntervalMax   Duration `json:"retryIntervalMax"`
	// Recovery is the feature gate RecoverVolumeExpansionFailure: a
	// lowered request is followed after a failure.
	Recovery bool `json:"recoverVolumeExpansionFailure"`
	// HandleVolumeInUseError is --handle-volume-inuse-error.
	HandleVolumeInUseError bool `json:"handleVolumeInUseError"`
	// ResizeTimeout and ModifyTimeout bound each driver call, after
	// --timeout's override.
	ResizeTimeout Duration `json:"resizeTimeout"`
	ModifyTimeout Duration `json:"modifyTimeout"`
	// NodeDeployment is --node-deployment.
	NodeDeployment bool `json:"nodeDeployment"`
	// OfflineOnly is true when the driver expands only volumes no pod
	// uses (its capabilities): the resizer holds an expansion back while
	// pods use the claim.
	OfflineOnly bool `json:"offlineOnly"`
	// AnnotateFsResize is the feature gate of that name.
	AnnotateFsResize bool `json:"annotateFsResize"`
}

// Annotations are the Lease annotations that publish s.
func (s Published) Annotations() map[string]string {
	b, err := json.Marshal(s)
	if err != nil {
		return nil // cannot happen: every field marshals
	}
	return map[string]string{SettingsAnnotation: string(b)}
}

// Duration is a time.Duration that reads in JSON as Go writes it: "5m0s".
type Duration time.Duration

// MarshalJSON writes d as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a string that time.ParseDuration accepts.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}
