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

package controller

import (
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/secrets"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const (
	claimStatusWrite = "patch persistentvolumeclaims/status a"
	volumeWrite      = "patch persistentvolumes pv-a"

	evModifyGold     = "Normal VolumeModify external resizer is modifying volume a with vac gold"
	evModifiedGold   = "Normal VolumeModifySuccessful external resizer modified volume a with vac gold successfully"
	evModifySilver   = "Normal VolumeModify external resizer is modifying volume a with vac silver"
	evModifiedSilver = "Normal VolumeModifySuccessful external resizer modified volume a with vac silver successfully"

	atGold        = "spec=gold current=gold modify=- conditions=[]"
	failedAtGold  = "spec=gold current=- modify=InProgress:gold conditions=[ModifyVolumeError,ModifyingVolume]"
	pendingGold   = "spec=gold current=- modify=Pending:gold conditions=[]"
	refusedGold   = "spec=gold current=- modify=Infeasible:gold conditions=[ModifyVolumeError,ModifyingVolume]"
	unclassedDone = "spec=- current=- modify=- conditions=[]"
)

func TestModifySuccess(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	e := newModifyEnv(t, nil, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName), attributeClass(silver, driverName)))
	equal(t, "requeue after", e.mustSync("a"), time.Duration(0))

	equal(t, "driver calls", e.modifier.targets(), []string{gold})
	call := e.modifier.call(0)
	equal(t, "volume", call.Volume, "pv-a")
	equal(t, "parameters", call.Parameters, attributeClass(gold, driverName).Parameters)
	equal(t, "expansions", len(e.resizer.targets()), 0)

	// The intent, the PV, then the claim's final status: the PV is written
	// before the claim says that the volume is at its class.
	equal(t, "writes", e.writes(), []string{claimStatusWrite, volumeWrite, claimStatusWrite})
	patches := e.patchBodies()
	intent, pv, done := patches[0], patches[1], patches[2]
	mvs, _ := intent.field("status", "modifyVolumeStatus")
	equal(t, "intent's modifyVolumeStatus", mvs, any(map[string]any{"targetVolumeAttributesClassName": gold, "status": "InProgress"}))
	if !strings.Contains(jsonOf(t, intent.Body), `"type":"ModifyingVolume"`) {
		t.Errorf("intent patch lacks the ModifyingVolume condition: %s", jsonOf(t, intent.Body))
	}
	if _, ok := intent.field("status", "currentVolumeAttributesClassName"); ok {
		t.Errorf("intent patch sets the current class before the driver call: %s", jsonOf(t, intent.Body))
	}
	class, _ := pv.field("spec", "volumeAttributesClassName")
	equal(t, "PV patch's class", class, any(gold))
	current, _ := done.field("status", "currentVolumeAttributesClassName")
	equal(t, "final patch's current class", current, any(gold))
	if v, ok := done.field("status", "modifyVolumeStatus"); !ok || v != nil {
		t.Errorf("final patch does not clear modifyVolumeStatus: %s", jsonOf(t, done.Body))
	}

	equal(t, "claim", modifySummary(e.claim("a")), atGold)
	equal(t, "PV class", pvClass(e.volume("pv-a")), gold)
	equal(t, "events", e.events(), []string{evModifyGold, evModifiedGold})

	// Done: nothing more, however often the claim is looked at.
	e.clearActions()
	e.mustSync("a")
	e.clock.Step(time.Hour)
	e.mustSync("a")
	equal(t, "writes after success", e.writes(), []string(nil))
	equal(t, "events after success", e.events(), []string(nil))
	equal(t, "driver calls after success", e.modifier.targets(), []string{gold})
}

func TestModifyWriteConflicts(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "persistentvolumeclaims"}, "a", nil)
	tests := []struct {
		name      string
		res       string
		nth       int
		wantCalls []string
	}{
		// Nothing was sent to the driver yet.
		{name: "conflict recording the intent", res: "persistentvolumeclaims", nth: 1, wantCalls: []string{gold}},
		// The driver applied gold: this process remembers it and retries
		// only the writes. (After a restart the recorded target is sent
		// again; ControllerModifyVolume is idempotent.)
		{name: "conflict writing the PV", res: "persistentvolumes", nth: 1, wantCalls: []string{gold}},
		{name: "conflict writing the claim's final status", res: "persistentvolumeclaims", nth: 2, wantCalls: []string{gold}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
			e := newModifyEnv(t, nil, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)))
			e.failRequest("patch", tc.res, tc.nth, conflict)
			_, err := e.sync("a")
			if !apierrors.IsConflict(err) {
				t.Fatalf("want a conflict to requeue, got %v", err)
			}
			for _, ev := range e.events() {
				if strings.HasPrefix(ev, v1.EventTypeWarning) {
					t.Errorf("warning event on a conflict: %s", ev)
				}
			}
			e.mustSync("a")
			equal(t, "claim", modifySummary(e.claim("a")), atGold)
			equal(t, "PV class", pvClass(e.volume("pv-a")), gold)
			equal(t, "driver calls", e.modifier.targets(), tc.wantCalls)
			if evs := e.events(); len(evs) == 0 || evs[len(evs)-1] != evModifiedGold {
				t.Errorf("events after the retry %q, want %q last", evs, evModifiedGold)
			}

			// Once the claim records the class, the driver is not called again.
			e.clearActions()
			e.mustSync("a")
			equal(t, "driver calls after success", e.modifier.targets(), tc.wantCalls)
			equal(t, "writes after success", e.writes(), []string(nil))
			equal(t, "applied class remembered after success", e.ctrl.memory.modify.applied.get(idOf(ns+"/a", e.claim("a"))) == nil, true)
		})
	}
}

func TestModifyUncertainKeepsRecordedTarget(t *testing.T) {
	tests := []struct {
		name    string
		code    codes.Code
		restart bool
	}{
		{name: "deadline exceeded, then a restart", code: codes.DeadlineExceeded, restart: true},
		{name: "unavailable, then a restart", code: codes.Unavailable, restart: true},
		{name: "unavailable, same process", code: codes.Unavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
			m := &fakeModifier{script: []error{status.Error(tc.code, "no answer")}}
			e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName), attributeClass(silver, driverName)))
			if _, err := e.sync("a"); err == nil {
				t.Fatal("want the failure to be retried with backoff")
			}
			got := e.claim("a")
			equal(t, "claim after the failure", modifySummary(got), failedAtGold)
			if c := modifyError(got); c == nil || c.Reason != tc.code.String() {
				t.Errorf("ModifyVolumeError %+v, want reason %s", c, tc.code)
			}
			equal(t, "PV class", pvClass(e.volume("pv-a")), "-")
			events := e.events()
			equal(t, "events", events, []string{evModifyGold, `Warning VolumeModifyFailed modify volume "pv-a" to class "gold": rpc error: code = ` +
				tc.code.String() + ` desc = no answer; the call may still complete, so class "gold" is retried until it does, whatever the spec asks meanwhile`})

			// The user picks another class meanwhile.
			e.setClass("a", silver)
			next := e
			if tc.restart {
				next = e.restart(m)
			}
			next.mustSync("a")
			equal(t, "driver calls", m.targets(), []string{gold, gold})
			equal(t, "claim after finishing gold", modifySummary(next.claim("a")), "spec=silver current=gold modify=- conditions=[]")
			equal(t, "PV class after finishing gold", pvClass(next.volume("pv-a")), gold)

			next.mustSync("a")
			equal(t, "driver calls", m.targets(), []string{gold, gold, silver})
			equal(t, "claim", modifySummary(next.claim("a")), "spec=silver current=silver modify=- conditions=[]")
			equal(t, "PV class", pvClass(next.volume("pv-a")), silver)
			equal(t, "events", next.events(), []string{evModifiedGold, evModifySilver, evModifiedSilver})
		})
	}
}

func TestModifyInfeasibleThenRollback(t *testing.T) {
	infeasible := status.Error(codes.InvalidArgument, "iops out of range")
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, bronze))
	m := &fakeModifier{script: []error{infeasible, infeasible}}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi", classed(bronze)),
		attributeClass(gold, driverName), attributeClass(bronze, driverName)))

	// The worker's loop puts an infeasible class in the slow lane, not in
	// the backoff of errors.
	e.process("a")
	key := ns + "/a"
	equal(t, "backoff requeues", e.ctrl.queue.NumRequeues(key), 0)
	equal(t, "queued now", e.ctrl.queue.Len(), 0)
	got := e.claim("a")
	equal(t, "claim", modifySummary(got), "spec=gold current=bronze modify=Infeasible:gold conditions=[ModifyVolumeError,ModifyingVolume]")
	if c := modifyError(got); c == nil || c.Reason != "InvalidArgument" {
		t.Errorf("ModifyVolumeError %+v, want reason InvalidArgument", c)
	}
	equal(t, "events", e.events(), []string{evModifyGold,
		`Warning VolumeModifyFailed modify volume "pv-a" to class "gold": rpc error: code = InvalidArgument desc = iops out of range; retried every 5m0s unless the class changes; to cancel, set the class back to "bronze"`})

	// Not retried before RetryMax.
	e.clock.Step(time.Minute)
	e.clearActions()
	equal(t, "wait", e.mustSync("a"), 4*time.Minute)
	equal(t, "writes while waiting", e.writes(), []string(nil))
	equal(t, "driver calls while waiting", m.targets(), []string{gold})

	// Retried once it is due.
	e.clock.Step(4 * time.Minute)
	equal(t, "requeue after the second failure", e.mustSync("a"), 5*time.Minute)
	equal(t, "driver calls when due", m.targets(), []string{gold, gold})
	e.events()

	// The user sets the class back to the current one: a clean state, and
	// no call.
	e.setClass("a", bronze)
	e.clearActions()
	equal(t, "requeue after the rollback", e.mustSync("a"), time.Duration(0))
	equal(t, "writes of the rollback", e.writes(), []string{claimStatusWrite})
	equal(t, "claim after the rollback", modifySummary(e.claim("a")), "spec=bronze current=bronze modify=- conditions=[]")
	equal(t, "events of the rollback", e.events(), []string{`Normal VolumeModifyCanceled Canceled the modification to class "gold": the class was set back to its current one`})
	equal(t, "PV class", pvClass(e.volume("pv-a")), bronze)

	e.clearActions()
	e.clock.Step(time.Hour)
	e.mustSync("a")
	equal(t, "writes after the rollback", e.writes(), []string(nil))
	equal(t, "events after the rollback", e.events(), []string(nil))
	equal(t, "driver calls after the rollback", m.targets(), []string{gold, gold})
}

// TestModifyFinalErrorThenRollback: after a final failure (the backend may
// be partly at the failed class), setting the class back to the current
// one applies the current class again through the driver.
func TestModifyFinalErrorThenRollback(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, bronze))
	m := &fakeModifier{script: []error{status.Error(codes.Internal, "half applied")}}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi", classed(bronze)),
		attributeClass(gold, driverName), attributeClass(bronze, driverName)))
	if _, err := e.sync("a"); err == nil {
		t.Fatal("sync after the final failure: want its error, to retry with backoff")
	}
	equal(t, "claim after the failure", modifySummary(e.claim("a")), "spec=gold current=bronze modify=InProgress:gold conditions=[ModifyVolumeError,ModifyingVolume]")

	e.setClass("a", bronze)
	e.mustSync("a")
	equal(t, "driver calls", m.targets(), []string{gold, bronze})
	equal(t, "claim after the rollback", modifySummary(e.claim("a")), "spec=bronze current=bronze modify=- conditions=[]")
	equal(t, "PV class", pvClass(e.volume("pv-a")), bronze)
}

func TestModifyInfeasibleThenUnset(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	m := &fakeModifier{script: []error{status.Error(codes.InvalidArgument, "no")}}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)))
	e.mustSync("a")
	equal(t, "claim", modifySummary(e.claim("a")), refusedGold)
	e.events()

	e.setClass("a", "")
	e.mustSync("a")
	equal(t, "claim after unsetting", modifySummary(e.claim("a")), unclassedDone)
	equal(t, "events", e.events(), []string{`Normal VolumeModifyCanceled Canceled the modification to class "gold": the class was unset`})
	equal(t, "driver calls", m.targets(), []string{gold})
	equal(t, "PV class", pvClass(e.volume("pv-a")), "-")
}

func TestModifyFinalErrorFollowsSpec(t *testing.T) {
	internal := status.Error(codes.Internal, "backend busy")
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	m := &fakeModifier{script: []error{internal, internal}}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName), attributeClass(silver, driverName)))

	// The worker's loop retries with backoff.
	e.process("a")
	equal(t, "backoff requeues", e.ctrl.queue.NumRequeues(ns+"/a"), 1)
	got := e.claim("a")
	equal(t, "claim", modifySummary(got), failedAtGold)
	if c := modifyError(got); c == nil || c.Reason != "Internal" {
		t.Errorf("ModifyVolumeError %+v, want reason Internal", c)
	}
	equal(t, "events", e.events(), []string{evModifyGold,
		`Warning VolumeModifyFailed modify volume "pv-a" to class "gold": rpc error: code = Internal desc = backend busy; retried with backoff, at the class the spec names then`})

	// The retry, with the spec unchanged, is for the same class.
	if _, err := e.sync("a"); err == nil {
		t.Fatal("want the second failure to be retried")
	}
	equal(t, "driver calls", m.targets(), []string{gold, gold})

	// The next attempt follows the spec.
	e.setClass("a", silver)
	e.mustSync("a")
	equal(t, "driver calls", m.targets(), []string{gold, gold, silver})
	equal(t, "claim", modifySummary(e.claim("a")), "spec=silver current=silver modify=- conditions=[]")
	equal(t, "PV class", pvClass(e.volume("pv-a")), silver)
}

func TestModifyExtraMetadata(t *testing.T) {
	for _, extra := range []bool{false, true} {
		t.Run(map[bool]string{false: "without", true: "with"}[extra], func(t *testing.T) {
			pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
			e := newModifyEnv(t, nil, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)),
				func(c *Config) { c.ExtraModifyMetadata = extra })
			e.mustSync("a")
			want := attributeClass(gold, driverName).Parameters
			if extra {
				want[decide.ParamPVCName] = "a"
				want[decide.ParamPVCNamespace] = ns
				want[decide.ParamPVName] = "pv-a"
			}
			equal(t, "parameters", e.modifier.call(0).Parameters, want)
			equal(t, "claim", modifySummary(e.claim("a")), atGold)
		})
	}
}

func TestModifySecrets(t *testing.T) {
	modifySecret := func(namespace, name string) testobj.VolumeOpt {
		return func(pv *v1.PersistentVolume) {
			pv.Annotations = map[string]string{secrets.ModifyNameAnnotation: name, secrets.ModifyNamespaceAnnotation: namespace}
		}
	}
	t.Run("the annotated secret", func(t *testing.T) {
		pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
		e := newModifyEnv(t, nil, objects(pvc, volume(pvc, "1Gi", modifySecret("vault", "modify-creds"), expandSecret("vault", "expand-creds")),
			attributeClass(gold, driverName),
			secret("vault", "modify-creds", map[string]string{"key": "for-modify"}),
			secret("vault", "expand-creds", map[string]string{"key": "for-expand"})))
		e.mustSync("a")
		equal(t, "secrets", e.modifier.call(0).Secrets, map[string]string{"key": "for-modify"})
		equal(t, "claim", modifySummary(e.claim("a")), atGold)
	})
	t.Run("the annotated secret is missing", func(t *testing.T) {
		pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
		e := newModifyEnv(t, nil, objects(pvc, volume(pvc, "1Gi", modifySecret("vault", "missing")), attributeClass(gold, driverName)))
		if _, err := e.sync("a"); err == nil {
			t.Fatal("want the missing secret to be retried")
		}
		equal(t, "driver calls", len(e.modifier.targets()), 0)
		equal(t, "writes", e.writes(), []string(nil))
		equal(t, "events", e.events(), []string{`Warning VolumeModifyFailed modify volume "pv-a" to class "gold": ` +
			`secret "vault/missing" for volume modification not found: secrets "missing" not found; the driver is not called without it: retried with backoff`})
	})
}

func TestModificationOff(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)))
	e.mustSync("a")

	if e.ctrl.vacs != nil || e.ctrl.AttributeClasses != nil {
		t.Error("a VolumeAttributesClass lister or informer with modification off")
	}
	if _, ok := e.ctrl.Claims.GetIndexer().GetIndexers()[byClass]; ok {
		t.Error("claims indexed by class with modification off")
	}
	// The expansion runs as always; the class is left alone.
	equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
	equal(t, "events", e.events(), []string{evResizing, evSucceeded})
	got := e.claim("a")
	equal(t, "claim", summary(got), "capacity=2Gi allocated=2Gi status=- conditions=[]")
	equal(t, "claim's classes", modifySummary(got), "spec=gold current=- modify=- conditions=[]")
	equal(t, "PV class", pvClass(e.volume("pv-a")), "-")
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "patch" {
			body := string(a.(interface{ GetPatch() []byte }).GetPatch())
			if strings.Contains(body, "VolumeAttributesClass") || strings.Contains(body, "modifyVolumeStatus") {
				t.Errorf("a class field written with modification off: %s", body)
			}
		}
	}
}

// TestRecreatedClaimInheritsNoAppliedClass: the driver applied a class, the
// writes after it failed, and the claim was deleted and created again under
// its name, on another volume, asking for the same class. The new volume
// gets its driver call: what the driver applied to the old one is no
// reason to record the class on the new one.
func TestRecreatedClaimInheritsNoAppliedClass(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	m := &fakeModifier{}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)))
	e.failRequest("patch", "persistentvolumes", 1, errors.New("etcd is down"))
	if _, err := e.sync("a"); err == nil {
		t.Fatal("sync: want the failed PV write")
	}
	equal(t, "driver calls", m.volumes(), []string{"pv-a"})

	e.must(e.client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), ns, "a"))
	again := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	again.UID, again.Spec.VolumeName = "uid-a-again", "pv-a-again"
	e.must(e.client.Tracker().Add(again))
	e.must(e.client.Tracker().Add(volume(again, "1Gi")))
	e.mustSync("a")
	equal(t, "driver calls", m.volumes(), []string{"pv-a", "pv-a-again"})
	equal(t, "new volume's class", pvClass(e.volume("pv-a-again")), gold)
}
