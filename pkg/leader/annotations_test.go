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
	"testing"
	"time"
)

// settingsAnnotation is an annotation as the resizer publishes on its Lease.
const settingsAnnotation = "csi-resizer.io/settings"

// TestAnnotationsPublished: the configured annotations are on the Lease
// this replica creates, and on one it takes over, beside the others.
func TestAnnotationsPublished(t *testing.T) {
	published := map[string]string{settingsAnnotation: `{"retryIntervalMax":"10m0s"}`}
	h := newHarness(t)
	h.start("a", func(c *Config) { c.Annotations = published }, false)
	if got := h.lease().Annotations[settingsAnnotation]; got != published[settingsAnnotation] {
		t.Errorf("created Lease: annotation %q, want %q", got, published[settingsAnnotation])
	}

	old := heldLease("other", h0())
	old.Annotations = map[string]string{"kept": "yes", settingsAnnotation: "{}"}
	h = newHarness(t, old)
	h.start("a", func(c *Config) { c.Annotations = published }, false)
	h.step(leaseDuration + 5*time.Second)
	if l := h.lease(); holderOrNone(l) != "a" || l.Annotations[settingsAnnotation] != published[settingsAnnotation] || l.Annotations["kept"] != "yes" {
		t.Errorf("taken Lease: holder %q, annotations %v; want a, ours and the other kept", holderOrNone(l), l.Annotations)
	}
}
