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

package plugin

import (
	"encoding/json"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// Settings are the resizer's settings that explain reasons with. The
// resizer publishes them on the Lease it holds (resizeroptions.SettingsAnnotation):
// the leader election Lease, or with --node-deployment its node Lease. A
// resizer that publishes none (an older one, or upstream's) is taken to run
// with the defaults, which the explanation says.
type Settings struct {
	resizeroptions.Published
	// From says where they come from: "defaults", or "Lease NS/NAME".
	From string `json:"from"`
}

// defaultsFrom is the From of the defaults.
const defaultsFrom = "defaults"

// defaultSettings are the resizer's defaults, as packages options and
// features define them.
func defaultSettings() Settings {
	return Settings{Published: resizeroptions.Published{
		RetryIntervalStart:     resizeroptions.Duration(resizeroptions.DefaultRetryIntervalStart),
		RetryIntervalMax:       resizeroptions.Duration(resizeroptions.DefaultRetryIntervalMax),
		Recovery:               resizeroptions.Specs()[resizeroptions.RecoverVolumeExpansionFailure].Default,
		HandleVolumeInUseError: true,
		ResizeTimeout:          resizeroptions.Duration(resizeroptions.DefaultTimeout),
		ModifyTimeout:          resizeroptions.Duration(resizeroptions.DefaultTimeout),
	}, From: defaultsFrom}
}

func (s Settings) retryMax() time.Duration   { return time.Duration(s.RetryIntervalMax) }
func (s Settings) retryStart() time.Duration { return time.Duration(s.RetryIntervalStart) }

// settingsOf reads the settings lease publishes; the defaults when lease
// is nil or publishes none, and then unread says why, when lease is not
// nil.
func settingsOf(lease *coordinationv1.Lease) (s Settings, unread string) {
	s = defaultSettings()
	if lease == nil {
		return s, ""
	}
	value, ok := lease.Annotations[resizeroptions.SettingsAnnotation]
	if !ok {
		return s, fmt.Sprintf("the resizer's Lease %s/%s does not publish them (annotation %s: the resizer is older than this plugin, or upstream's)",
			lease.Namespace, lease.Name, resizeroptions.SettingsAnnotation)
	}
	published := s
	if err := json.Unmarshal([]byte(value), &published.Published); err != nil {
		return s, fmt.Sprintf("the annotation %s of the resizer's Lease %s/%s does not read (%v)", resizeroptions.SettingsAnnotation, lease.Namespace, lease.Name, err)
	}
	published.From = fmt.Sprintf("Lease %s/%s", lease.Namespace, lease.Name)
	return published, ""
}
