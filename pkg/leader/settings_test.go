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

package leader

import (
	"encoding/json"
	"testing"
	"time"
)

// TestAnnotationsPublished: the configured annotations are on the Lease
// this replica creates, and on one it takes over, beside the others.
func TestAnnotationsPublished(t *testing.T) {
	published := Settings{RetryIntervalStart: Duration(2 * time.Second), RetryIntervalMax: Duration(10 * time.Minute), Recovery: true}.Annotations()
	h := newHarness(t)
	h.start("a", func(c *Config) { c.Annotations = published }, false)
	if got := h.lease().Annotations[SettingsAnnotation]; got != published[SettingsAnnotation] {
		t.Errorf("created Lease: annotation %q, want %q", got, published[SettingsAnnotation])
	}

	old := heldLease("other", h0())
	old.Annotations = map[string]string{"kept": "yes", SettingsAnnotation: "{}"}
	h = newHarness(t, old)
	h.start("a", func(c *Config) { c.Annotations = published }, false)
	h.step(leaseDuration + 5*time.Second)
	if l := h.lease(); holderOrNone(l) != "a" || l.Annotations[SettingsAnnotation] != published[SettingsAnnotation] || l.Annotations["kept"] != "yes" {
		t.Errorf("taken Lease: holder %q, annotations %v; want a, ours and the other kept", holderOrNone(l), l.Annotations)
	}
}

// TestSettingsJSON pins the annotation's JSON, which explain reads.
func TestSettingsJSON(t *testing.T) {
	s := Settings{RetryIntervalStart: Duration(time.Second), RetryIntervalMax: Duration(5 * time.Minute), Recovery: true,
		HandleVolumeInUseError: true, ResizeTimeout: Duration(10 * time.Second), ModifyTimeout: Duration(time.Minute), NodeDeployment: true}
	want := `{"retryIntervalStart":"1s","retryIntervalMax":"5m0s","recoverVolumeExpansionFailure":true,"handleVolumeInUseError":true,` +
		`"resizeTimeout":"10s","modifyTimeout":"1m0s","nodeDeployment":true}`
	if got := s.Annotations()[SettingsAnnotation]; got != want {
		t.Errorf("annotation = %s\nwant         %s", got, want)
	}
	var back Settings
	if err := json.Unmarshal([]byte(want), &back); err != nil || back != s {
		t.Errorf("read back %+v (%v), want %+v", back, err, s)
	}
}
