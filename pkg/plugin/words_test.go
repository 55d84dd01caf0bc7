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
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
)

// codeWant is what explain must say, and must not say, of a failure with
// one code.
type codeWant struct {
	says, never []string
}

// sizeAdvice is the advice of a failure that another size may fix; the
// codes whose failure is not about the size must never give it.
var sizeAdvice = []string{"Lower the request", "raise the request"}

// resizeByCode is what explain says of an expansion that failed with each
// code the decisions know: every gRPC code but OK, and the reason of a
// failure without one.
var resizeByCode = map[string]codeWant{
	// The resizer records no uncertain failure on the claim (it retries the
	// same size): explain reads its code from the failure event's annotation.
	"Canceled":           {says: []string{"(Canceled)", "may still expand the volume", "Nothing but wait"}},
	"Unknown":            {says: []string{"(Unknown)", "Fix what the driver reports", "Lower the request"}},
	"InvalidArgument":    {says: []string{"(InvalidArgument)", "Lower the request", "Or raise the request to a larger size", "no size helps: fix PV pv-data"}},
	"DeadlineExceeded":   {says: []string{"(DeadlineExceeded)", "a longer --resize-timeout", "Nothing but wait"}},
	"NotFound":           {says: []string{`does not know the volume (NotFound): it has no volume with the handle "vol-1" of PV pv-data`, `Check PV pv-data: its spec.csi.volumeHandle "vol-1"`, "at any size, fails the same way until the driver knows the volume"}, never: sizeAdvice},
	"AlreadyExists":      {says: []string{"(AlreadyExists)", "Fix what the driver reports", "Lower the request"}},
	"PermissionDenied":   {says: []string{"(PermissionDenied)", "another size does not help", "csi.storage.k8s.io/controller-expand-secret-name", "fails the same way until the driver is allowed to"}, never: sizeAdvice},
	"ResourceExhausted":  {says: []string{"(ResourceExhausted)", "quotas, rate limits and free capacity", "Nothing but wait"}},
	"FailedPrecondition": {says: []string{"cannot expand the volume in its present state (FailedPrecondition)", "No pod uses the claim now"}, never: sizeAdvice},
	"Aborted":            {says: []string{"(Aborted)", "another operation on the volume"}},
	"OutOfRange":         {says: []string{"outside the range the driver supports for the volume (OutOfRange)", "Lower the request", "if the driver's range lies above it"}},
	"Unimplemented":      {says: []string{"does not implement ControllerExpandVolume (Unimplemented)", "another size does not help"}, never: sizeAdvice},
	"Internal":           {says: []string{"(Internal)", "Fix what the driver reports", "Lower the request"}},
	"Unavailable":        {says: []string{"(Unavailable)", "listens on the resizer's --csi-address"}},
	"DataLoss":           {says: []string{"(DataLoss)", "Check PV pv-data's volume in the backend"}, never: sizeAdvice},
	"Unauthenticated":    {says: []string{"(Unauthenticated)", "csi.storage.k8s.io/controller-expand-secret-name"}, never: sizeAdvice},
	// The reason of a failure without a code: the event says what failed
	// (a Secret not read, say), which is not a driver's answer.
	decide.ReasonUncertain: {says: []string{"Its last call got no final answer", "Nothing but wait"}, never: []string{"gRPC code"}},
}

// modifyByCode is what explain says of a modification that failed with
// each code the decisions know.
var modifyByCode = map[string]codeWant{
	"Canceled":             {says: []string{"(Canceled)", "may still modify the volume"}},
	"Unknown":              {says: []string{"(Unknown)", "Fix what the driver reports"}},
	"InvalidArgument":      {says: []string{`refused the parameters of class "gold" (InvalidArgument)`, `VolumeAttributesClass "gold" (iops=3000)`, "create one with parameters it accepts", `back to "silver"`}},
	"DeadlineExceeded":     {says: []string{"(DeadlineExceeded)", "a longer --modify-timeout"}},
	"NotFound":             {says: []string{"does not know the volume (NotFound)", "Every attempt, with any class, fails the same way until the driver knows the volume"}},
	"AlreadyExists":        {says: []string{"(AlreadyExists)", "Fix what the driver reports"}},
	"PermissionDenied":     {says: []string{"(PermissionDenied)", "another class does not help", "volume.kubernetes.io/controller-modify-secret-name"}},
	"ResourceExhausted":    {says: []string{"(ResourceExhausted)", "quotas"}},
	"FailedPrecondition":   {says: []string{"cannot modify the volume in its present state (FailedPrecondition)", "another class would meet the same condition"}},
	"Aborted":              {says: []string{"(Aborted)"}},
	"OutOfRange":           {says: []string{"(OutOfRange)", "a class whose parameters driver ebs.csi.example.com supports"}},
	"Unimplemented":        {says: []string{"does not implement ControllerModifyVolume (Unimplemented)", "another class does not help"}},
	"Internal":             {says: []string{"(Internal)", "Fix what the driver reports"}},
	"Unavailable":          {says: []string{"(Unavailable)", "--csi-address"}},
	"DataLoss":             {says: []string{"(DataLoss)", "Check PV pv-data's volume in the backend"}},
	"Unauthenticated":      {says: []string{"(Unauthenticated)", "volume.kubernetes.io/controller-modify-secret-name"}},
	decide.ReasonUncertain: {says: []string{"carries no gRPC code", `retries the same class`}},
}

// knownReasons are the reasons a failure is recorded with: every code but
// OK, and decide.ReasonUncertain.
func knownReasons() []string {
	var out []string
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		out = append(out, c.String())
	}
	return append(out, decide.ReasonUncertain)
}

// driverMessage is the message the resizer records of a failure with
// reason.
func driverMessage(what, reason string) string {
	if reason == decide.ReasonUncertain {
		return what + ": read the Secret: permission denied"
	}
	return fmt.Sprintf("%s: rpc error: code = %s desc = scripted", what, reason)
}

// TestAdviceForEveryResizeCode explains an expansion failed with each code
// in the state its class leaves the claim in, as the controller records
// it: the advice fits the code, and the decision says what happens in
// words consistent with who owns the next step.
func TestAdviceForEveryResizeCode(t *testing.T) {
	for _, reason := range knownReasons() {
		t.Run(reason, func(t *testing.T) {
			w, ok := resizeByCode[reason]
			if !ok {
				t.Fatalf("no expectation for %s", reason)
			}
			message := driverMessage(`expand volume "pv-data" to 10Gi`, reason)
			var pvc *v1.PersistentVolumeClaim
			var extra []runtime.Object
			state, by := "controller_error", ByResizer
			switch decide.ResizeRules.ClassOfReason(reason) {
			case decide.Infeasible:
				state, by = "controller_infeasible", ByUser
				pvc = claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
					resizeError(reason, t0, message))
			case decide.Final:
				pvc = claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
					resizeError(reason, t0, message))
			default:
				state = "controller_in_progress"
				pvc = claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
					condition(v1.PersistentVolumeClaimResizing, t0, ""))
				extra = []runtime.Object{event(events.ReasonResizing, "External resizer is resizing volume pv-data", t0),
					annotatedEvent(event(events.ReasonResizeFailed, message+"; the call may still complete", now.Add(-time.Minute)), events.AnnotationCode, reason)}
			}
			x := explainObjects(t, Request{}, append([]runtime.Object{pvc, volume(pvc, "1Gi"), freshLease(), storageClass(true)}, extra...)...)
			op := operation(t, x, "resize")
			checkAdvice(t, op, state, by, w)
		})
	}
}

// TestAdviceForEveryModifyCode does the same for a modification.
func TestAdviceForEveryModifyCode(t *testing.T) {
	for _, reason := range knownReasons() {
		t.Run(reason, func(t *testing.T) {
			w, ok := modifyByCode[reason]
			if !ok {
				t.Fatalf("no expectation for %s", reason)
			}
			message := driverMessage(`modify volume "pv-data" to class "gold"`, reason)
			status, state, by := v1.PersistentVolumeClaimModifyVolumeInProgress, "in_progress", ByResizer
			if decide.ModifyRules.ClassOfReason(reason) == decide.Infeasible {
				status, state, by = v1.PersistentVolumeClaimModifyVolumeInfeasible, "infeasible", ByUser
			}
			pvc := claim("1Gi", "1Gi", classes("gold", "silver"), modifyStatus("gold", status),
				condition(v1.PersistentVolumeClaimVolumeModifyingVolume, t0, ""), modifyError(reason, now.Add(-time.Minute), message))
			x := explainObjects(t, Request{}, pvc, volume(pvc, "1Gi"), freshLease(), vac("gold", driver), vac("silver", driver))
			checkAdvice(t, operation(t, x, "modify"), state, by, w)
		})
	}
}

func checkAdvice(t *testing.T, op Operation, state, by string, w codeWant) {
	t.Helper()
	if op.State != state || op.NextStepBy != by {
		t.Errorf("state %s, next step by %s; want %s, %s", op.State, op.NextStepBy, state, by)
	}
	text := dump(op)
	for _, s := range w.says {
		if !strings.Contains(text, s) {
			t.Errorf("explanation lacks %q:\n%s", s, text)
		}
	}
	for _, s := range w.never {
		if strings.Contains(text, s) {
			t.Errorf("explanation says %q, which cannot help:\n%s", s, text)
		}
	}
	checkDecision(t, op)
}

// checkDecision checks that the decision reads in plain words, and as the
// next step's owner has it: a refused target is only retried.
func checkDecision(t *testing.T, op Operation) {
	t.Helper()
	d := op.Decision.Summary
	if !strings.HasPrefix(d, "The resizer ") && !strings.HasPrefix(d, "No resizer runs") {
		t.Errorf("decision %q does not say what the resizer does", d)
	}
	if strings.Contains(d, ".Decide") || strings.Contains(d, op.Decision.Action+" "+op.Decision.Target+":") {
		t.Errorf("decision %q reads as code", d)
	}
	if op.NextStepBy == ByUser && (strings.Contains(d, "will expand") || strings.Contains(d, "will call the driver")) {
		t.Errorf("the user's step, but the decision %q reads as the resizer's", d)
	}
}

// TestResizeCodeFromTheCondition: the code is the reason of the
// ControllerResizeError condition, never read from a message; a condition
// without one (an older resizer) leaves the code unknown.
func TestResizeCodeFromTheCondition(t *testing.T) {
	message := driverMessage(`expand volume "pv-data" to 10Gi`, "NotFound")
	for _, tc := range []struct {
		name, reason string
		says         []string
	}{
		{name: "recorded", reason: "NotFound", says: []string{"does not know the volume (NotFound)"}},
		{name: "not recorded, though the message names it", reason: "", says: []string{"carries no gRPC code"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible), resizeError(tc.reason, t0, message))
			text := dump(operation(t, explainObjects(t, Request{}, pvc, volume(pvc, "1Gi"), freshLease()), "resize"))
			for _, s := range tc.says {
				if !strings.Contains(text, s) {
					t.Errorf("explanation lacks %q:\n%s", s, text)
				}
			}
		})
	}
}

// annotatedEvent is e with the annotation key: value, as the resizer writes it.
func annotatedEvent(e *v1.Event, key, value string) *v1.Event {
	e.Annotations = map[string]string{key: value}
	return e
}

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
