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
	"testing"
	"time"
)

// TestPublishedJSON pins the annotation's JSON, which explain reads.
func TestPublishedJSON(t *testing.T) {
	s := Published{RetryIntervalStart: Duration(time.Second), RetryIntervalMax: Duration(5 * time.Minute), Recovery: true,
		HandleVolumeInUseError: true, ResizeTimeout: Duration(10 * time.Second), ModifyTimeout: Duration(time.Minute), NodeDeployment: true, OfflineOnly: true, AnnotateFsResize: true}
	want := `{"retryIntervalStart":"1s","retryIntervalMax":"5m0s","recoverVolumeExpansionFailure":true,"handleVolumeInUseError":true,` +
		`"resizeTimeout":"10s","modifyTimeout":"1m0s","nodeDeployment":true,"offlineOnly":true,"annotateFsResize":true}`
	if got := s.Annotations()[SettingsAnnotation]; got != want {
		t.Errorf("annotation = %s\nwant         %s", got, want)
	}
	var back Published
	if err := json.Unmarshal([]byte(want), &back); err != nil || back != s {
		t.Errorf("read back %+v (%v), want %+v", back, err, s)
	}
}
