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
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	calls, err := e.driver.ModifyCalls()
	must(e.t, err)
	return calls
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
	e.waitEvent("data", "VolumeModify: external resizer is modifying volume data with vac "+gold)
	e.waitEvent("data", "VolumeModifySuccessful: external resizer modified volume data with vac "+gold+" successfully")
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
	e := newEnv(t, modifiable)
	silver := e.attributesClass("silver", map[string]string{"iops": "1000"})
	v := e.volume("data", "1Gi", func(v *framework.Volume) { v.AttributesClass = silver })
	gold := e.attributesClass("gold", map[string]string{"iops": "64000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Code: "InvalidArgument", Message: "iops 64000 is above the volume type's limit"}))
	e.setClass("data", gold)

	pvc := e.waitModifyStatus("data", gold, v1.PersistentVolumeClaimModifyVolumeInfeasible)
	if !framework.HasCondition(pvc, v1.PersistentVolumeClaimVolumeModifyVolumeError) {
		t.Errorf("conditions = %+v, want ModifyVolumeError", pvc.Status.Conditions)
	}
	e.waitEvent("data", "iops 64000 is above the volume type's limit")
	if ev := e.events("data"); !strings.Contains(ev, gold) || !strings.Contains(ev, "InvalidArgument") {
		t.Errorf("failure event does not name the class and the code:\n%s", ev)
	}

	e.setClass("data", silver)
	e.waitClaim("data", "the rollback to a clean state", modified(silver))
	e.waitEvent("data", "VolumeModifyCanceled")
	time.Sleep(2 * time.Second) // a retry would come within --retry-interval-max
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
	e.waitEvent("data", "throughput applied, iops not")

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
	e := newEnv(t, modifiable)
	e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Code: "InvalidArgument", Message: "no"}))
	e.setClass("data", gold)
	e.waitModifyStatus("data", gold, v1.PersistentVolumeClaimModifyVolumeInfeasible)

	e.setClass("data", "")
	e.waitClaim("data", "the cancel", modified(""))
	e.waitEvent("data", "VolumeModifyCanceled")
	if calls := e.modifyCalls(); len(calls) != 1 {
		t.Errorf("ControllerModifyVolume calls = %d, want 1", len(calls))
	}
}

func TestModifyMissingClassThenCreated(t *testing.T) {
	e := newEnv(t, modifiable)
	e.volume("data", "1Gi")
	gold := e.ns + "-gold"
	e.setClass("data", gold)
	e.waitModifyStatus("data", gold, v1.PersistentVolumeClaimModifyVolumePending)
	e.waitEvent("data", gold)
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
	e := newEnv(t, modifiable)
	e.volume("data", "1Gi")
	other := e.ns + "-other"
	must(t, framework.CreateAttributesClass(e.ctx, cluster.Admin, other, "other.csi.example.com", map[string]string{"iops": "3000"}))
	e.setClass("data", other)
	e.waitModifyStatus("data", other, v1.PersistentVolumeClaimModifyVolumeInfeasible)
	e.waitEvent("data", "other.csi.example.com")
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
	e.waitEvent("data", "DeadlineExceeded")

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

func TestKilledMidModifyFinishesRecordedClass(t *testing.T) {
	e := newEnv(t, modifiable)
	v := e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	silver := e.attributesClass("silver", map[string]string{"iops": "1000"})
	must(t, e.driver.Script(framework.Answer{Method: csidriver.MethodModify, Delay: "4s"}))
	e.setClass("data", gold)
	e.waitModifyStatus("data", gold, v1.PersistentVolumeClaimModifyVolumeInProgress)
	e.resizer.Kill() // SIGKILL while the driver is still modifying
	e.setClass("data", silver)

	e.startResizer("resizer-restarted")
	e.waitClaim("data", "the class change to finish", modified(silver))
	var targets []string
	for _, c := range e.modifyCalls() {
		targets = append(targets, c.Parameters["iops"])
	}
	if want := "3000,3000,1000"; strings.Join(targets, ",") != want {
		t.Errorf("ControllerModifyVolume iops = %v, want %s (killed, gold finished, then silver)", targets, want)
	}
	if got := e.pvClass(v); got != silver {
		t.Errorf("PV class = %q, want %q", got, silver)
	}
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
	calls, err := e.driver.AllCalls()
	must(t, err)
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
	e := newEnv(t, framework.DriverOptions{})
	e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	e.setClass("data", gold)
	e.grow("data", "2Gi")
	e.waitClaim("data", "the resize", finished("2Gi"))
	e.waitFor("the log to say why modification is off", func() bool {
		return strings.Contains(readLog(t, e.resizer), "does not advertise the controller capability MODIFY_VOLUME")
	})
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
	e := newEnv(t, modifiable, "--feature-gates=VolumeAttributesClass=false")
	_ = e.resizer.Stop(30 * time.Second)
	e.kubeconfig = kubeconfigWithoutClasses
	e.startResizer("resizer-without-classes")
	e.volume("data", "1Gi")
	gold := e.attributesClass("gold", map[string]string{"iops": "3000"})
	e.setClass("data", gold)
	e.grow("data", "2Gi")
	e.waitClaim("data", "the resize", finished("2Gi"))
	if log := readLog(t, e.resizer); !strings.Contains(log, "feature gate VolumeAttributesClass is off") || strings.Contains(log, "forbidden") {
		t.Errorf("resizer log does not say why modification is off, or shows a forbidden request:\n%s", log)
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
	gateOn := e.startResizer("resizer-gate-on")
	e.waitFor("the list of VolumeAttributesClasses to be forbidden", func() bool {
		return strings.Contains(readLog(t, gateOn), `volumeattributesclasses.storage.k8s.io is forbidden`)
	})
}
