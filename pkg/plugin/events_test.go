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
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/events"
)

func TestEventsOfTheClaimInOrder(t *testing.T) {
	at := now.Add(-time.Minute)
	failed := event(events.ReasonResizeFailed, "uncertain", at)
	resizing := event(events.ReasonResizing, "resizing", at) // same second, written later
	older := event(events.ReasonResizing, "older", at.Add(-time.Minute))
	earlierClaim := event(events.ReasonResizeFailed, "of an earlier claim of the same name", at)
	earlierClaim.InvolvedObject.UID = "uid-old"
	otherSource := event(events.ReasonResizing, "of another resizer", at.Add(time.Second))
	otherSource.Source.Component = events.Source("other.csi.example.com")
	events := ofClaim([]v1.Event{*resizing, *failed, *earlierClaim, *otherSource, *older}, claim("1Gi", "1Gi"))
	var messages []string
	for _, e := range events {
		messages = append(messages, e.Message)
	}
	if want := []string{"older", "uncertain", "resizing", "of another resizer"}; !slices.Equal(messages, want) {
		t.Errorf("events = %q, want %q", messages, want)
	}
	if newest := newestOf(events, driver, resizeReasons); newest == nil || newest.Message != "resizing" {
		t.Errorf("newest event of the resizer = %+v, want the one written last", newest)
	}
	if newest := newestOf(events, driver, modifyReasons); newest != nil {
		t.Errorf("newest modify event = %+v, want none", newest)
	}
}
