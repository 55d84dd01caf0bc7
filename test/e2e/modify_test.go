//go:build e2e

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

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// modifiable is a csi-mock that advertises MODIFY_VOLUME.
var modifiable = framework.DriverOptions{Modify: true}

// modified is a claim at class, with nothing left to modify.
func modified(class string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.CurrentAttributesClass(pvc) == class && pvc.Status.ModifyVolumeStatus == nil && len(pvc.Status.Conditions) == 0
	}
}

// attributesClass creates a VolumeAttributesClass of the test's driver with
// a name unique to the test; it returns the name.
func (e *env) attributesClass(name string, params map[string]string) string {
	e.t.Helper()
	name = e.ns + "-" + name
	must(e.t, framework.CreateAttributesClass(e.ctx, cluster.Admin, name, e.driver.Name, params))
	return name
}

func (e *env) setClass(claim, class string) {
	e.t.Helper()
	must(e.t, framework.SetAttributesClass(e.ctx, cluster.Admin, e.ns, claim, class))
}

func (e *env) modifyCalls() []framework.Call {
	e.t.Helper()
	return e.calls(csidriver.MethodModify)
}

// pvClass is the PV's spec.volumeAttributesClassName.
func (e *env) pvClass(v framework.Volume) string {
	e.t.Helper()
	pv, err := cluster.Admin.CoreV1().PersistentVolumes().Get(e.ctx, v.PVName(), metav1.GetOptions{})
	must(e.t, err)
	if pv.Spec.VolumeAttributesClassName == nil {
		return ""
	}
	return *pv.Spec.VolumeAttributesClassName
}

// pendingOrInProgress waits for the claim's modifyVolumeStatus.
func (e *env) waitModifyStatus(claim, target string, status v1.PersistentVolumeClaimModifyVolumeStatus) *v1.PersistentVolumeClaim {
	e.t.Helper()
	return e.waitClaim(claim, fmt.Sprintf("modifyVolumeStatus %s %s", status, target), func(pvc *v1.PersistentVolumeClaim) bool {
		gotTarget, got := framework.ModifyStatus(pvc)
		return gotTarget == target && got == status
	})
}

// resync makes the resizer queue every claim every second (an informer
// resync, which the resizer always acts on), so that it decides again about
// a claim that nothing else would wake up: settled needs it.
const resync = "--resync-period=1s"

// retryMax is the resizer's --retry-interval-max, the longest it waits
// before it looks at a claim again by itself: the cap of its backoff after
// a failure, and an infeasible class's wait.
func (e *env) retryMax() time.Duration {
	e.t.Helper()
	var d time.Duration
	for _, a := range e.args {
		if v, ok := strings.CutPrefix(a, "--retry-interval-max="); ok {
			var err error
			d, err = time.ParseDuration(v)
			must(e.t, err)
		}
	}
	if d <= 0 {
		e.t.Fatalf("resizer args %v have no --retry-interval-max", e.args)
	}
	return d
}

// settled is how a test asserts that the resizer does not do something
// (call the driver, typically) about a claim whose state it has reached.
// It waits strictly longer than --retry-interval-max from now, so that
// every retry the resizer scheduled for the claim until now has come due,
// then for two decisions of operation op ("resize" or "modify") about the
// claim logged after that, and returns every decision of op about the claim
// logged since that moment. The resizer must run with resync.
//
// What it proves, with the driver's call log read after it returns:
//   - The resizer's workqueue never syncs one claim twice at once, within a
//     sync a decision is logged before its step and the next one after the
//     step's driver call has returned, and the mock logs a call before it
//     answers. So once a decision logged after the due time is followed by
//     another one, every call decided until the first of them, those of the
//     retries that came due included, is in the call log.
//   - A decision reads only the claim, its PV, the classes, what the resizer
//     remembers of the claim's failures and the clock, which is now past
//     every retry's due time: the decisions returned are what a retry of
//     the claim decides, however late it runs. A test checks that they do
//     not act ("none", or the refusal it expects), which the resizer would
//     keep deciding until something changes.
//
// A bare sleep proves neither: a sleep shorter than the retry interval
// passes whatever the retry does, and one longer still misses a call in
// flight when it ends.
func (e *env) settled(claim, op string) []framework.Decision {
	e.t.Helper()
	if !slices.Contains(e.args, resync) {
		e.t.Fatalf("settled needs the resizer to run with %s; args %v", resync, e.args)
	}
	// Half a second more: a retry's sync starts a moment after it is due.
	select {
	case <-time.After(e.retryMax() + 500*time.Millisecond):
	case <-e.ctx.Done():
		e.t.Fatal(e.ctx.Err())
	}
	from, err := framework.LogSize(e.resizer.Log)
	must(e.t, err)
	key := e.ns + "/" + claim
	var decided []framework.Decision
	err = wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		all, err := framework.Decisions(e.resizer.Log, from)
		if err != nil {
			return false, err
		}
		decided = slices.DeleteFunc(all, func(d framework.Decision) bool { return d.Claim != key || d.Operation != op })
		return len(decided) >= 2, nil
	})
	if err != nil {
		e.t.Fatalf("waiting for the resizer to decide twice about %s of %s after its retries came due: %v (decisions: %v)", op, key, err, decided)
	}
	return decided
}

// decidedOnly reports an error unless every decision has action.
func decidedOnly(t *testing.T, decisions []framework.Decision, action, why string) {
	t.Helper()
	for _, d := range decisions {
		if d.Action != action {
			t.Errorf("the resizer decided %s, want only %s: %s", d, action, why)
		}
	}
}

func TestModifyVolume(t *testing.T) {
	e := newEnv(t, modifiable)
	v := e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000", "throughput": "125"})
	e.setClass("data", gold)

	e.waitClaim("data", "the class change to finish", modified(gold))
	if got := e.pvClass(v); got != gold {
		t.Errorf("PV class = %q, want %q", got, gold)
	}
	calls := e.modifyCalls()
	want := map[string]string{"iops": "3000", "throughput": "125"}
	if len(calls) != 1 || calls[0].VolumeID != v.Handle || !maps.Equal(calls[0].Parameters, want) {
		t.Errorf("ControllerModifyVolume calls = %+v, want one for %s with %v", calls, v.Handle, want)
	}
	if n := len(e.calls()); n != 0 {
		t.Errorf("ControllerExpandVolume calls = %d, want none", n)
	}
	e.waitFact("data", fact{reason: events.ReasonModify, words: []string{"external resizer is modifying volume data with vac " + gold}})
	e.waitFact("data", fact{reason: events.ReasonModifySuccessful, words: []string{"external resizer modified volume data with vac " + gold + " successfully"}})
}

func TestModifyExtraMetadata(t *testing.T) {
	e := newEnv(t, modifiable, "--extra-modify-metadata")
	v := e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	e.setClass("data", gold)
	e.waitClaim("data", "the class change to finish", modified(gold))
	want := map[string]string{"iops": "3000", "csi.storage.k8s.io/pvc/name": "data",
		"csi.storage.k8s.io/pvc/namespace": e.ns, "csi.storage.k8s.io/pv/name": v.PVName()}
	if calls := e.modifyCalls(); len(calls) != 1 || !maps.Equal(calls[0].Parameters, want) {
		t.Errorf("ControllerModifyVolume calls = %+v, want one with %v", calls, want)
	}
}

func TestModifyInfeasibleThenRollback(t *testing.T) {
	e := newEnv(t, modifiable, resync)
	silver := e.attributesClass("silver", map[string]string{"iops": "1000"})
	v := e.volume("data", "1Gi", func(v *framework.Volume) { v.AttributesClass = silver })
	gold := e.attributesClass("gold", map[string]string{"iops": "64000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Code: "InvalidArgument", Message: "iops 64000 is above the volume type's limit"}))
	e.setClass("data", gold)

	pvc := e.waitModifyStatus("data", gold, v1.PersistentVolumeClaimModifyVolumeInfeasible)
	if conditionReason(pvc, v1.PersistentVolumeClaimVolumeModifyVolumeError) != "InvalidArgument" {
		t.Errorf("conditions = %+v, want ModifyVolumeError of reason InvalidArgument", pvc.Status.Conditions)
	}
	// The failure event names the class and carries the code and the
	// driver's message.
	e.waitFact("data", fact{reason: events.ReasonModifyFailed, code: "InvalidArgument", words: []string{`class "` + gold + `"`, "iops 64000 is above the volume type's limit"}})

	e.setClass("data", silver)
	e.waitClaim("data", "the rollback to a clean state", modified(silver))
	e.waitFact("data", fact{reason: events.ReasonModifyCanceled})
	// Excluded: any driver call after the rollback. Gold was infeasible:
	// its retry, due --retry-interval-max after the failure, must not be
	// made now that the claim asks for silver; and the volume is still at
	// silver, so silver is not applied either. A resizer that retried gold
	// or applied silver would decide to modify after the retry came due,
	// and its call would be in the log (see settled).
	decidedOnly(t, e.settled("data", "modify"), "none", "the volume is at the requested class")
	if calls := e.modifyCalls(); len(calls) != 1 {
		t.Errorf("ControllerModifyVolume calls = %+v, want only the infeasible one: the volume is still at %s", calls, silver)
	}
	if got := e.pvClass(v); got != silver {
		t.Errorf("PV class = %q, want %q", got, silver)
	}
}

// TestModifyFinalErrorThenRollback: the driver fails a class change with a
// final error that is not infeasible (it may have applied part of it); the
// user sets the class back, and the current class is applied again through
// the driver.
func TestModifyFinalErrorThenRollback(t *testing.T) {
	// A slow retry keeps the failure in place while the user sets it back.
	e := newEnv(t, modifiable, "--retry-interval-start=30s", "--retry-interval-max=1m")
	silver := e.attributesClass("silver", map[string]string{"iops": "1000"})
	v := e.volume("data", "1Gi", func(v *framework.Volume) { v.AttributesClass = silver })
	gold := e.attributesClass("gold", map[string]string{"iops": "16000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Code: "Internal", Message: "throughput applied, iops not"}))
	e.setClass("data", gold)
	e.waitFact("data", fact{reason: events.ReasonModifyFailed, code: "Internal"})

	e.setClass("data", silver)
	e.waitClaim("data", "the rollback through the driver", modified(silver))
	var got []string
	for _, c := range e.modifyCalls() {
		got = append(got, c.Parameters["iops"]+":"+c.Code)
	}
	if want := []string{"16000:Internal", "1000:OK"}; !slices.Equal(got, want) {
		t.Errorf("ControllerModifyVolume calls (iops:code) = %v, want %v", got, want)
	}
	if got := e.pvClass(v); got != silver {
		t.Errorf("PV class = %q, want %q", got, silver)
	}
}

func TestModifyInfeasibleThenCancelToNoClass(t *testing.T) {
	e := newEnv(t, modifiable, resync)
	e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Code: "InvalidArgument", Message: "no"}))
	e.setClass("data", gold)
	e.waitModifyStatus("data", gold, v1.PersistentVolumeClaimModifyVolumeInfeasible)

	e.setClass("data", "")
	e.waitClaim("data", "the cancel", modified(""))
	e.waitFact("data", fact{reason: events.ReasonModifyCanceled})
	// Excluded: a retry of the infeasible gold, due --retry-interval-max
	// after the failure, once the class is unset (see settled).
	decidedOnly(t, e.settled("data", "modify"), "none", "the class is unset")
	if calls := e.modifyCalls(); len(calls) != 1 {
		t.Errorf("ControllerModifyVolume calls = %+v, want only the infeasible one", calls)
	}
}

func TestModifyMissingClassThenCreated(t *testing.T) {
	e := newEnv(t, modifiable, resync)
	e.volume("data", "1Gi")
	gold := e.ns + "-gold"
	e.setClass("data", gold)
	e.waitModifyStatus("data", gold, v1.PersistentVolumeClaimModifyVolumePending)
	e.waitFact("data", fact{reason: events.ReasonModifyFailed, words: []string{gold}})
	// Excluded: a driver call while the class does not exist, in the sync
	// that recorded Pending or in any later one (see settled).
	decidedOnly(t, e.settled("data", "modify"), "pend", "the class does not exist yet")
	if n := len(e.modifyCalls()); n != 0 {
		t.Fatalf("ControllerModifyVolume calls = %d before the class exists, want none", n)
	}

	// Nothing but the class's creation wakes the claim up.
	e.attributesClass("gold", map[string]string{"tier": "fast"})
	e.waitClaim("data", "the modification once the class exists", modified(gold))
	if calls := e.modifyCalls(); len(calls) != 1 || calls[0].Parameters["tier"] != "fast" {
		t.Errorf("ControllerModifyVolume calls = %+v, want one with tier=fast", calls)
	}
}

func TestModifyClassOfAnotherDriverRefused(t *testing.T) {
	e := newEnv(t, modifiable, resync)
	e.volume("data", "1Gi")
	other := e.ns + "-other"
	must(t, framework.CreateAttributesClass(e.ctx, cluster.Admin, other, "other.csi.example.com", map[string]string{"iops": "3000"}))
	e.setClass("data", other)
	e.waitModifyStatus("data", other, v1.PersistentVolumeClaimModifyVolumeInfeasible)
	e.waitFact("data", fact{reason: events.ReasonModifyFailed, words: []string{"other.csi.example.com"}})
	// Excluded: a driver call with another driver's class, at once or when
	// the infeasible refusal would be retried (see settled).
	decidedOnly(t, e.settled("data", "modify"), "refuse", "the class is another driver's")
	if n := len(e.modifyCalls()); n != 0 {
		t.Errorf("ControllerModifyVolume calls = %d, want none for a class of another driver", n)
	}
}

// TestModifyUncertainThenSpecChange: a call that timed out may still be
// running in the backend, so the recorded target is finished before the
// new class, even across a restart of the resizer.
func TestModifyUncertainThenSpecChange(t *testing.T) {
	e := newEnv(t, modifiable, "--modify-timeout=1s", "--retry-interval-start=3s")
	v := e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	silver := e.attributesClass("silver", map[string]string{"iops": "1000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Delay: "5s"}))
	e.setClass("data", gold)
	pvc := e.waitClaim("data", "the uncertain failure", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.HasCondition(pvc, v1.PersistentVolumeClaimVolumeModifyVolumeError)
	})
	if target, status := framework.ModifyStatus(pvc); target != gold || status != v1.PersistentVolumeClaimModifyVolumeInProgress {
		t.Errorf("modifyVolumeStatus = %s %s, want InProgress %s", status, target, gold)
	}
	if r := conditionReason(pvc, v1.PersistentVolumeClaimVolumeModifyVolumeError); r != "DeadlineExceeded" {
		t.Errorf("ModifyVolumeError of reason %s, want DeadlineExceeded", r)
	}
	e.waitFact("data", fact{reason: events.ReasonModifyFailed, code: "DeadlineExceeded"})

	e.resizer.Kill()
	e.setClass("data", silver)
	e.startResizer("resizer-restarted")
	e.waitClaim("data", "the new class after the recorded one", modified(silver))
	var targets []string
	for _, c := range e.modifyCalls() {
		targets = append(targets, c.Parameters["iops"])
	}
	if want := []string{"3000", "3000", "1000"}; strings.Join(targets, ",") != strings.Join(want, ",") {
		t.Errorf("ControllerModifyVolume iops = %v, want %v (timed out, gold again, then silver)", targets, want)
	}
	if got := e.pvClass(v); got != silver {
		t.Errorf("PV class = %q, want %q", got, silver)
	}
}

// TestKilledMidModifyFinishesRecordedClass: the resizer is killed while the
// driver holds its ControllerModifyVolume call, and the class is changed
// meanwhile; the restarted resizer finishes the recorded class before the
// new one, so that the volume never ends between two classes.
func TestKilledMidModifyFinishesRecordedClass(t *testing.T) {
	e := newEnv(t, modifiable)
	v := e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	silver := e.attributesClass("silver", map[string]string{"iops": "1000"})
	// The driver holds the first call until its caller goes.
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Delay: "1m"}))
	e.setClass("data", gold)
	// Killed once the driver holds the call, not once InProgress is
	// recorded: the intent is recorded before the call is made, and a
	// resizer killed in between has made no call at all (seen under load:
	// the held answer then went to the call after the restart).
	e.waitHeld(csidriver.MethodModify, v.Handle, "iops", "3000")
	if target, status := framework.ModifyStatus(e.waitClaim("data", "the claim", func(*v1.PersistentVolumeClaim) bool { return true })); target != gold || status != v1.PersistentVolumeClaimModifyVolumeInProgress {
		t.Fatalf("modifyVolumeStatus = %s %s while the driver holds the call, want InProgress %s", status, target, gold)
	}
	e.resizer.Kill() // SIGKILL while the driver is still modifying
	// The driver sees its caller gone: the held call ends and is logged
	// before the restarted resizer makes its own.
	e.waitFor("the driver to end the killed call", func() bool { return len(e.modifyCalls()) == 1 })
	e.setClass("data", silver)

	e.startResizer("resizer-restarted")
	e.waitClaim("data", "the class change to finish", modified(silver))
	var targets []string
	for _, c := range e.modifyCalls() {
		targets = append(targets, c.Parameters["iops"]+":"+c.Code)
	}
	if want := "3000:Canceled,3000:OK,1000:OK"; strings.Join(targets, ",") != want {
		t.Errorf("ControllerModifyVolume iops:code = %v, want %s (killed, gold finished, then silver)", targets, want)
	}
	if got := e.pvClass(v); got != silver {
		t.Errorf("PV class = %q, want %q", got, silver)
	}
}

// waitHeld waits until the driver holds a call of method on volume, with
// the parameter key at value, by a scripted delay: the call has reached
// the driver, which has not answered it.
func (e *env) waitHeld(method, volume, key, value string) {
	e.t.Helper()
	e.waitFor(fmt.Sprintf("the driver to hold a %s call on %s with %s=%s", method, volume, key, value), func() bool {
		received, err := e.driver.Received(method)
		must(e.t, err)
		return slices.ContainsFunc(received, func(c framework.Call) bool {
			return c.VolumeID == volume && c.Parameters[key] == value && c.Delay != ""
		})
	})
}

// TestResizeAndModifyAtOnce: one update asks for both; the expansion goes
// first, and the two calls never overlap on the volume.
func TestResizeAndModifyAtOnce(t *testing.T) {
	e := newEnv(t, modifiable)
	v := e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	must(t, e.driver.Script(framework.Answer{Delay: "1s"}, framework.Answer{Method: csidriver.MethodModify, Delay: "1s"}))
	must(t, framework.GrowAndSetAttributesClass(e.ctx, cluster.Admin, e.ns, "data", "2Gi", gold))

	e.waitClaim("data", "both to finish", func(pvc *v1.PersistentVolumeClaim) bool {
		return finished("2Gi")(pvc) && modified(gold)(pvc)
	})
	calls := e.calls(csidriver.MethodExpand, csidriver.MethodModify)
	if len(calls) != 2 || calls[0].Method != csidriver.MethodExpand || calls[1].Method != csidriver.MethodModify {
		t.Fatalf("driver calls = %+v, want the expansion, then the modification", calls)
	}
	if calls[1].Start.Before(calls[0].End) {
		t.Errorf("the modification started at %s, before the expansion ended at %s", calls[1].Start, calls[0].End)
	}
	if got := e.pvSize(v); got != "2Gi" {
		t.Errorf("PV size = %s, want 2Gi", got)
	}
}

func TestModifyOffWithoutModifyVolume(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{}, resync)
	e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	e.setClass("data", gold)
	e.grow("data", "2Gi")
	e.waitClaim("data", "the resize", finished("2Gi"))
	e.waitFor("the log to say why modification is off", func() bool {
		return strings.Contains(readLog(t, e.resizer), "does not advertise the controller capability MODIFY_VOLUME")
	})
	// Excluded: any modification. The resize shows the resizer synced the
	// claim with its class set; the resize decisions after the retries came
	// due show those syncs, and any later one, are over (see settled), and
	// none of them decided about the class.
	e.settled("data", "resize")
	checkNoModifyDecision(t, e.resizer)
	pvc := e.waitClaim("data", "the claim", func(*v1.PersistentVolumeClaim) bool { return true })
	if pvc.Status.ModifyVolumeStatus != nil || pvc.Status.CurrentVolumeAttributesClassName != nil {
		t.Errorf("claim status = %+v, want no modification recorded", pvc.Status)
	}
	if n := len(e.modifyCalls()); n != 0 {
		t.Errorf("ControllerModifyVolume calls = %d, want none", n)
	}
}

// TestModifyGateOffNeedsNoClassRules: with the gate off the resizer runs
// on the rules of rbac.yaml without volumeattributesclasses (a forbidden
// list would fail its cache sync) and leaves class changes alone.
func TestModifyGateOffNeedsNoClassRules(t *testing.T) {
	// The feature gate last: it is dropped for the last resizer.
	e := newEnv(t, modifiable, resync, "--feature-gates=VolumeAttributesClass=false")
	_ = e.resizer.Stop(30 * time.Second)
	e.kubeconfig = kubeconfigWithoutClasses
	from := time.Now()
	e.startResizer("resizer-without-classes")
	e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	e.setClass("data", gold)
	e.grow("data", "2Gi")
	e.waitClaim("data", "the resize", finished("2Gi"))
	// Excluded: any modification (see TestModifyOffWithoutModifyVolume).
	e.settled("data", "resize")
	checkNoModifyDecision(t, e.resizer)
	if log := readLog(t, e.resizer); !strings.Contains(log, "feature gate VolumeAttributesClass is off") {
		t.Errorf("resizer log does not say why modification is off:\n%s", log)
	}
	if forbidden, err := refused(withoutClassesName, from, func(framework.AuditEvent) bool { return true }); err != nil || len(forbidden) > 0 {
		t.Errorf("the resizer without class rules was refused %d requests (audit log %s: %v), the first %+v", len(forbidden), cluster.AuditLog, err, forbidden)
	}
	pvc := e.waitClaim("data", "the claim", func(*v1.PersistentVolumeClaim) bool { return true })
	if pvc.Status.ModifyVolumeStatus != nil || pvc.Status.CurrentVolumeAttributesClassName != nil {
		t.Errorf("claim status = %+v, want no modification recorded", pvc.Status)
	}
	if n := len(e.modifyCalls()); n != 0 {
		t.Errorf("ControllerModifyVolume calls = %d, want none", n)
	}
	// The identity really lacks the rule: with the gate on, the same
	// resizer is refused the list.
	_ = e.resizer.Stop(30 * time.Second)
	e.args = e.args[:len(e.args)-1] // drop the feature gate
	from = time.Now()
	e.startResizer("resizer-gate-on")
	e.waitFor("the list of VolumeAttributesClasses to be forbidden", func() bool {
		lists, err := refused(withoutClassesName, from, func(a framework.AuditEvent) bool {
			return a.Verb == "list" && a.ObjectRef.APIGroup == "storage.k8s.io" && a.ObjectRef.Resource == "volumeattributesclasses"
		})
		return err == nil && len(lists) > 0
	})
}

// checkNoModifyDecision reports an error if the resizer, whose modification
// is off, logged a decision about a class.
func checkNoModifyDecision(t *testing.T, resizer *framework.Process) {
	t.Helper()
	decisions, err := framework.Decisions(resizer.Log, 0)
	must(t, err)
	modifies := slices.DeleteFunc(decisions, func(d framework.Decision) bool { return d.Operation != "modify" })
	if len(modifies) > 0 {
		t.Errorf("the resizer, whose modification is off, made %d modify decisions, the first: %s", len(modifies), modifies[0])
	}
}
