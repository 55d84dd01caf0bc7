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
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/events"
)

// The reasons of the resizer's events about each operation.
var (
	resizeReasons = []string{events.ReasonResizing, events.ReasonResizeFailed, events.ReasonFileSystemResizeRequired, events.ReasonResizeSuccessful}
	modifyReasons = []string{events.ReasonModify, events.ReasonModifySuccessful, events.ReasonModifyFailed, events.ReasonModifyCanceled}
)

// ofClaim keeps the events of pvc itself (not of an earlier claim of the
// same name), oldest first.
func ofClaim(events []v1.Event, pvc *v1.PersistentVolumeClaim) []v1.Event {
	var out []v1.Event
	for _, e := range events {
		ref := e.InvolvedObject
		if ref.Kind == "PersistentVolumeClaim" && ref.Namespace == pvc.Namespace && ref.Name == pvc.Name &&
			(ref.UID == "" || ref.UID == pvc.UID) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, compareEvents)
	return out
}

// lastSeen is when an event was last seen: its last timestamp, else its
// event time, else its creation.
func lastSeen(e *v1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// compareEvents orders by last seen, then by resource version: times have
// a resolution of a second, and an event seen again is written again,
// with a higher version.
func compareEvents(a, b v1.Event) int {
	if c := lastSeen(&a).Compare(lastSeen(&b)); c != 0 {
		return c
	}
	ra, errA := strconv.ParseUint(a.ResourceVersion, 10, 64)
	rb, errB := strconv.ParseUint(b.ResourceVersion, 10, 64)
	if errA != nil || errB != nil {
		return strings.Compare(a.Name, b.Name)
	}
	switch {
	case ra < rb:
		return -1
	case ra > rb:
		return 1
	}
	return 0
}

// newestOf returns the newest event of driver's resizer with one of
// reasons; nil when there is none.
func newestOf(evs []v1.Event, driver string, reasons []string) *v1.Event {
	source := events.Source(driver)
	for i := len(evs) - 1; i >= 0; i-- {
		e := &evs[i]
		if e.Source.Component == source && slices.Contains(reasons, e.Reason) {
			return e
		}
	}
	return nil
}

// eventsOf projects the newest max events, oldest first.
func eventsOf(events []v1.Event, max int) []Event {
	if len(events) > max {
		events = events[len(events)-max:]
	}
	out := make([]Event, 0, len(events))
	for i := range events {
		e := &events[i]
		out = append(out, Event{Last: lastSeen(e).UTC(), Type: e.Type, Reason: e.Reason,
			Source: e.Source.Component, Message: e.Message, Count: e.Count})
	}
	return out
}
