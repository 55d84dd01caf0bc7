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
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/secrets"
)

// secretWords say where the Secret sent with each job's call is set.
var secretWords = map[decide.Job]string{
	decide.ResizeJob: fmt.Sprintf("the PV's spec.csi.controllerExpandSecretRef, else the StorageClass parameters %s and %s", secrets.NameParam, secrets.NamespaceParam),
	decide.ModifyJob: fmt.Sprintf("the PV's annotations %s and %s, else the expansion Secret", secrets.ModifyNameAnnotation, secrets.ModifyNamespaceAnnotation),
}

// knownCode reports whether name is a gRPC code's name other than OK.
func knownCode(name string) bool {
	return name != decide.ReasonUncertain && slices.Contains(decide.CodeNames(), name)
}

// advice is what job's failure with code means and what the user can do
// (decide.MeaningOf), with the claim's facts in its words, and Can the
// advice for an unused claim when no pod uses it.
func (f *facts) advice(job decide.Job, code, class string) decide.Meaning {
	m := decide.MeaningOf(job, code)
	pv, handle := "", "" // the handle the resizer sends the driver
	if f.o.Volume != nil {
		pv = f.o.Volume.Name
	}
	if src, err := ownership.Source(f.o.Volume); err == nil {
		handle = src.VolumeHandle
	}
	fill := strings.NewReplacer("{pv}", pv, "{handle}", strconv.Quote(handle), "{driver}", f.driver,
		"{class}", strconv.Quote(class), "{params}", f.classParameters(class), "{secret}", secretWords[job])
	m.Means, m.Until = fill.Replace(m.Means), fill.Replace(m.Until)
	can := m.Can
	if len(f.users) == 0 && len(m.CanWhenUnused) > 0 {
		can = m.CanWhenUnused
	}
	m.Can = nil
	for _, c := range can {
		m.Can = append(m.Can, fill.Replace(c))
	}
	return m
}

// classParameters lists the parameters of class as read: "iops=3000,
// type=gp3"; "not read" when the class was not.
func (f *facts) classParameters(class string) string {
	vac, ok := f.o.AttributesClasses[class]
	if !ok {
		return "not read"
	}
	if len(vac.Parameters) == 0 {
		return "no parameters"
	}
	pairs := make([]string, 0, len(vac.Parameters))
	for k, v := range vac.Parameters {
		pairs = append(pairs, k+"="+v)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ", ")
}

// decisionSummary says the decision as the one who owns the next step sees
// it: what continues "the resizer will"; "" words the action.
func decisionSummary(op Operation, what string) string {
	if d := op.Decision; what == "" {
		why := ""
		if d.Reason != "" {
			why = " (" + d.Reason + ")"
		}
		words := cmp.Or(actionWords[op.Operation+" "+d.Action], "leave the claim alone{why}")
		what = strings.NewReplacer("{target}", d.Target, "{class}", strconv.Quote(d.Target), "{why}", why, "{retry}", d.RetryAfter).Replace(words)
	}
	switch {
	case op.NextStepBy == ByNobody:
		return "No resizer runs; once one does, it will " + what + "."
	case op.NextStepBy == ByDriver && (op.Decision.Action == decide.Expand.String() || op.Decision.Action == decide.ModifyCall.String()):
		return "The resizer waits for the driver's answer; if the call ends without one, it will " + what + "."
	}
	return "The resizer will " + what + "."
}

// actionWords word each operation's actions so that they continue "the
// resizer will": {class} is the target quoted, {why} the reason.
var actionWords = map[string]string{
	"resize " + decide.Expand.String():           "expand the volume to {target}{why}",
	"resize " + decide.ResizeWait.String():       "try {target} again in {retry}",
	"resize " + decide.RecordVolumeSize.String(): "record {target}, the volume's size, as the claim's capacity, without calling the driver",
	"resize " + decide.NodeRetry.String():        "hand the claim back to kubelet at {target}, without calling the driver",
	"resize " + decide.RecordShort.String():      "record again that the driver gives less than {target}, without calling the driver",
	"modify " + decide.ModifyCall.String():       "call the driver to apply class {class}",
	"modify " + decide.Pend.String():             "wait for VolumeAttributesClass {class} to be created, and not call the driver before",
	"modify " + decide.Refuse.String():           "not send class {class} to the driver{why}",
	"modify " + decide.Cancel.String():           "drop the recorded modification to class {class}, without calling the driver",
	"modify " + decide.ModifyWait.String():       "try class {class} again in {retry}",
	"modify " + decide.Blocked.String():          "leave the modification to class {class} unfinished{why}",
}

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
// a resolution of a second, and an event seen again gets a higher version.
func compareEvents(a, b v1.Event) int {
	if c := lastSeen(&a).Compare(lastSeen(&b)); c != 0 {
		return c
	}
	ra, errA := strconv.ParseUint(a.ResourceVersion, 10, 64)
	rb, errB := strconv.ParseUint(b.ResourceVersion, 10, 64)
	if errA != nil || errB != nil {
		return strings.Compare(a.Name, b.Name)
	}
	return cmp.Compare(ra, rb)
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

// ago says how long before now t was: "3h ago"; "in 5m" for a time after
// now (clocks differ).
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "at an unknown time"
	}
	if d := now.Sub(t); d >= 0 {
		return short(d) + " ago"
	}
	return "in " + short(t.Sub(now))
}

// short writes d in its two largest units: "45s", "4m10s", "3h", "2d5h".
func short(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return pair(int(d/time.Minute), "m", int(d%time.Minute/time.Second), "s")
	case d < 48*time.Hour:
		return pair(int(d/time.Hour), "h", int(d%time.Hour/time.Minute), "m")
	}
	return pair(int(d/(24*time.Hour)), "d", int(d%(24*time.Hour)/time.Hour), "h")
}

func pair(a int, unitA string, b int, unitB string) string {
	if b == 0 {
		return fmt.Sprintf("%d%s", a, unitA)
	}
	return fmt.Sprintf("%d%s%d%s", a, unitA, b, unitB)
}
