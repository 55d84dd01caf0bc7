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

func TestHeldBackInUse(t *testing.T) {
	for _, tc := range []struct {
		message        string
		offline, inUse bool
	}{
		{message: "unable to expand apps/data to 2Gi because CSI driver d only supports offline expansion and volume is currently in-use by pod(s) [app]; ...", offline: true},
		{message: "Unable to expand apps/data because CSI driver d only supports offline expansion and volume is currently in-use", offline: true},
		{message: `expand volume "pv-data" to 2Gi: rpc error: code = FailedPrecondition desc = mounted; the driver cannot expand the volume while a pod uses it: retried once the pods that use the claim are deleted`, inUse: true},
		{message: "unable to expand apps/data to 2Gi because CSI driver d answered FailedPrecondition (volume in use) to the last attempt and volume is currently in-use by pod(s) [app]", inUse: true},
		{message: `expand volume "pv-data" to 2Gi: rpc error: code = Internal desc = no`},
	} {
		e := event(events.ReasonResizeFailed, tc.message, now)
		if got := heldBackInUse(e); got != tc.offline {
			t.Errorf("heldBackInUse(%q) = %v, want %v", tc.message, got, tc.offline)
		}
		if got := inUseRefused(e); got != tc.inUse {
			t.Errorf("inUseRefused(%q) = %v, want %v", tc.message, got, tc.inUse)
		}
	}
	if heldBackInUse(event(events.ReasonResizing, "only supports offline expansion", now)) || heldBackInUse(nil) || inUseRefused(nil) {
		t.Error("an event that is no failure holds nothing back")
	}
}
