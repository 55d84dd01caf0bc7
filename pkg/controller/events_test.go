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
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// failureCase is one failure path of an expansion of claim "a".
type failureCase struct {
	name string
	// request, capacity and pv are the claim's request and capacity and the
	// PV's size: 2Gi, 1Gi and 1Gi unless set.
	request, capacity, pv string
	answer                result
	pvOpts                []testobj.VolumeOpt
	opts                  func(t *testing.T) []envOpt
	// failRes fails the failNth patch of that resource with errEtcdDown.
	failRes string
	failNth int
	want    []string
}

var errEtcdDown = apierrors.NewServiceUnavailable("etcd is down")

const warnFailed = "Warning VolumeResizeFailed "

// TestExpansionFailureEvents syncs a claim once down every failure path of
// an expansion and checks every event, word for word: each says the size,
// the gRPC code and the driver's message (or the error), what happens next,
// and for final and infeasible sizes what request the user may lower to.
func TestExpansionFailureEvents(t *testing.T) {
	grpcErr := func(c codes.Code, msg string) result { return result{err: status.Error(c, msg)} }
	recoveryOff := func(*testing.T) []envOpt { return []envOpt{func(c *Config) { c.Recovery = false }} }
	nodeOnly := func(*testing.T) []envOpt { return []envOpt{func(c *Config) { c.Resizer = driver.NodeOnly{} }} }
	podsTracked := func(t *testing.T) []envOpt {
		opt, _ := withPods(t, false, runningPod("app-0", "a"))
		return []envOpt{opt}
	}
	tests := []failureCase{
		// Uncertain: the recorded size is finished whatever the request says.
		{name: "uncertain code", answer: grpcErr(codes.DeadlineExceeded, "backend is slow"), want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: rpc error: code = DeadlineExceeded desc = backend is slow; the call may still complete, so 2Gi is retried until it does, whatever the request says meanwhile`}},
		{name: "uncertain, wrapped by the CSI client: the wrapper is left out", answer: result{err: fmt.Errorf(`expand volume "vol-a" to 2147483648 bytes: %w`, status.Error(codes.Unavailable, "driver restarting"))}, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: rpc error: code = Unavailable desc = driver restarting; the call may still complete, so 2Gi is retried until it does, whatever the request says meanwhile`}},
		{name: "error without a gRPC code: uncertain", answer: result{err: errors.New("connection reset by peer")}, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: connection reset by peer; the call may still complete, so 2Gi is retried until it does, whatever the request says meanwhile`}},

		// Infeasible: slow lane, and the range the request may be lowered to.
		{name: "infeasible", request: "10Gi", answer: grpcErr(codes.OutOfRange, "10Gi is more than the pool has"), want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 10Gi: rpc error: code = OutOfRange desc = 10Gi is more than the pool has; 10Gi is retried every 5m0s unless the request changes; ` +
				`to recover, lower the request to between 1Gi (exclusive, the current capacity) and 10Gi (exclusive)`}},
		{name: "infeasible, PV grown by an earlier attempt: the range still starts at the capacity", request: "10Gi", pv: "3Gi", answer: grpcErr(codes.InvalidArgument, "too big"), want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 10Gi: rpc error: code = InvalidArgument desc = too big; 10Gi is retried every 5m0s unless the request changes; ` +
				`to recover, lower the request to between 1Gi (exclusive, the current capacity) and 10Gi (exclusive)`}},
		{name: "infeasible with the recovery gate off", request: "10Gi", answer: grpcErr(codes.OutOfRange, "too big"), opts: recoveryOff, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 10Gi: rpc error: code = OutOfRange desc = too big; 10Gi is retried every 5m0s unless the request changes; ` +
				`a lower request is not followed: the RecoverVolumeExpansionFailure feature gate is off`}},
		{name: "a volume the driver does not know: no size helps", request: "10Gi", answer: grpcErr(codes.NotFound, "no such volume"), want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 10Gi: rpc error: code = NotFound desc = no such volume; 10Gi is retried every 5m0s; ` +
				`the driver does not know the volume, so no size helps: check the PV's volume handle against the driver`}},
		{name: "infeasible at the volume's own size", pv: "2Gi", answer: grpcErr(codes.OutOfRange, "no"), want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: rpc error: code = OutOfRange desc = no; 2Gi is retried every 5m0s unless the request changes; ` +
				`a lower request does not help: the volume is already 2Gi`}},
		{name: "refused before the driver", request: "10E", answer: result{err: driver.Refuse(codes.OutOfRange, errors.New("size 10E is too large for a CSI request"))}, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 10E: not sent to the driver (OutOfRange): size 10E is too large for a CSI request; 10E is retried every 5m0s unless the request changes; ` +
				`to recover, lower the request to between 1Gi (exclusive, the current capacity) and 10E (exclusive)`}},

		// Final: retried with backoff at the request, which may be lowered.
		{name: "final", request: "5Gi", answer: grpcErr(codes.Internal, "backend error"), want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 5Gi: rpc error: code = Internal desc = backend error; retried with backoff, at the request as it is then; ` +
				`to recover, lower the request to between 1Gi (exclusive, the current capacity) and 5Gi (exclusive)`}},
		{name: "final, code outside gRPC's", answer: grpcErr(codes.Code(42), "what is this"), want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: rpc error: code = Code(42) desc = what is this; retried with backoff, at the request as it is then; ` +
				`to recover, lower the request to between 1Gi (exclusive, the current capacity) and 2Gi (exclusive)`}},
		{name: "final with the recovery gate off", answer: grpcErr(codes.PermissionDenied, "no"), opts: recoveryOff, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: rpc error: code = PermissionDenied desc = no; retried with backoff, at the request as it is then; ` +
				`a lower request is not followed: the RecoverVolumeExpansionFailure feature gate is off`}},

		// In use (FailedPrecondition).
		{name: "in use, pods not tracked", answer: grpcErr(codes.FailedPrecondition, "volume is published"), want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: rpc error: code = FailedPrecondition desc = volume is published; the driver cannot expand the volume while a pod uses it: retried with backoff`}},
		{name: "in use, pods tracked", answer: grpcErr(codes.FailedPrecondition, "volume is published"), opts: podsTracked, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: rpc error: code = FailedPrecondition desc = volume is published; the driver cannot expand the volume while a pod uses it: retried once the pods that use the claim are deleted`}},

		// The driver's answer is nonsense.
		{name: "capacity below the target", answer: result{size: "1536Mi"}, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: the driver answered success with 1536Mi, below the 2Gi asked for; 1536Mi is recorded, the size the volume has, and 2Gi is asked for again every 5m0s unless the request changes; to stop asking, lower the request to 1536Mi`}},
		{name: "negative capacity", answer: result{size: "-1"}, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: driver reported capacity -1, below the requested 2Gi; the answer is not recorded, and 2Gi is asked for again until the driver reports at least that`}},

		// Before the driver: the Secret, the sizes.
		{name: "secret missing", pvOpts: []testobj.VolumeOpt{expandSecret("vault", "missing")}, want: []string{
			warnFailed + `expand volume "pv-a" to 2Gi: secret "vault/missing" for volume expansion not found: secrets "missing" not found; the driver is not called without it: retried with backoff`}},
		{name: "size that cannot be compared", request: "1e2000000000", want: []string{
			warnFailed + `cannot resize volume "pv-a": requested size: size with decimal exponent 2000000000 is out of range; nothing is done until that size changes`}},

		// API writes.
		{name: "intent write fails", failRes: "persistentvolumeclaims", failNth: 1, want: []string{
			warnFailed + `expand volume "pv-a" to 2Gi: record the intent in the claim: patch status of claim default/a: etcd is down; retried with backoff; the driver is not called before`}},
		{name: "PV write fails", failRes: "persistentvolumes", failNth: 1, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: record the new size 2Gi in the PV: patch volume pv-a: etcd is down; retried with backoff, the writes only: the driver has expanded the volume to 2Gi`}},
		{name: "claim write after success fails", failRes: "persistentvolumeclaims", failNth: 2, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: record the new size 2Gi in the claim: patch status of claim default/a: etcd is down; retried with backoff, the writes only: the driver has expanded the volume to 2Gi`}},
		{name: "recording a final failure fails", answer: grpcErr(codes.Internal, "backend error"), failRes: "persistentvolumeclaims", failNth: 2, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: rpc error: code = Internal desc = backend error; retried with backoff, at the request as it is then; ` +
				`to recover, lower the request to between 1Gi (exclusive, the current capacity) and 2Gi (exclusive)`,
			warnFailed + `expand volume "pv-a" to 2Gi: record the failure in the claim: patch status of claim default/a: etcd is down; retried with backoff`}},

		// Node-only drivers: no driver call, only the writes can fail.
		{name: "node-only, PV write fails", opts: nodeOnly, failRes: "persistentvolumes", failNth: 1, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: record the new size 2Gi in the PV: patch volume pv-a: etcd is down; retried with backoff, the writes only: the driver has expanded the volume to 2Gi`}},
		{name: "node-only, claim write fails", opts: nodeOnly, failRes: "persistentvolumeclaims", failNth: 2, want: []string{evResizing,
			warnFailed + `expand volume "pv-a" to 2Gi: record the new size 2Gi in the claim: patch status of claim default/a: etcd is down; retried with backoff, the writes only: the driver has expanded the volume to 2Gi`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runFailureCase(t, tc) })
	}
}

func runFailureCase(t *testing.T, tc failureCase) {
	t.Helper()
	pvc := claim("a", or(tc.request, "2Gi"), or(tc.capacity, "1Gi"))
	objs := objects(pvc, volume(pvc, or(tc.pv, "1Gi"), tc.pvOpts...))
	var opts []envOpt
	if tc.opts != nil {
		opts = tc.opts(t)
	}
	rz := &fakeResizer{}
	if tc.answer != (result{}) {
		rz.script = []result{tc.answer}
	}
	e := newEnv(t, rz, objs, opts...)
	if tc.failRes != "" {
		e.failRequest("patch", tc.failRes, tc.failNth, errEtcdDown)
	}
	_, _ = e.sync("a")
	equal(t, "events", e.events(), tc.want)
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// TestInUseHeldBackEvents checks the event of a claim held back while pods
// use it, after an online driver answered FailedPrecondition.
func TestInUseHeldBackEvents(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	opt, _ := withPods(t, false, runningPod("app-0", "a"))
	rz := &fakeResizer{script: []result{{err: status.Error(codes.FailedPrecondition, "volume is published")}}}
	e := newEnv(t, rz, objects(pvc, volume(pvc, "1Gi")), opt)
	_, _ = e.sync("a")
	_ = e.events()
	_, _ = e.sync("a")
	equal(t, "events", e.events(), []string{warnFailed + `unable to expand default/a to 2Gi because CSI driver test.csi.example.com ` +
		`answered FailedPrecondition (volume in use) to the last attempt and volume is currently in-use by pod(s) [app-0]; ` +
		`the expansion starts once the pods that use the claim are deleted (a finished pod counts until it is deleted): delete these pods`})
}

// TestConflictsRaiseNoWarning: a write conflict is not a failure of the
// resize, at any write.
func TestConflictsRaiseNoWarning(t *testing.T) {
	for _, res := range []string{"persistentvolumeclaims", "persistentvolumes"} {
		for nth := 1; nth <= 2; nth++ {
			t.Run(fmt.Sprintf("%s #%d", res, nth), func(t *testing.T) {
				pvc := claim("a", "2Gi", "1Gi")
				e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")))
				e.failRequest("patch", res, nth, apierrors.NewConflict(v1.Resource(res), "a", errors.New("changed")))
				_, _ = e.sync("a")
				for _, ev := range e.events() {
					if ev[:len("Warning")] == "Warning" {
						t.Errorf("warning on a conflict: %s", ev)
					}
				}
			})
		}
	}
}

const warnModify = "Warning VolumeModifyFailed "

// TestModificationFailureEvents checks the events of every failure path
// of a modification to class "gold", word for word, in the shape of the
// expansion's: the class, the gRPC code and the driver's message, what
// happens next, and how to cancel.
func TestModificationFailureEvents(t *testing.T) {
	tests := []struct {
		name    string
		current string // the claim's current class
		answer  error
		pvOpts  []testobj.VolumeOpt
		failRes string
		failNth int
		want    []string
	}{
		{name: "uncertain", answer: status.Error(codes.Unavailable, "driver restarting"), want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": rpc error: code = Unavailable desc = driver restarting; the call may still complete, so class "gold" is retried until it does, whatever the spec asks meanwhile`}},
		{name: "uncertain, wrapped by the CSI client: the wrapper is left out", answer: fmt.Errorf(`modify volume "vol-a": %w`, status.Error(codes.DeadlineExceeded, "context deadline exceeded")), want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": rpc error: code = DeadlineExceeded desc = context deadline exceeded; the call may still complete, so class "gold" is retried until it does, whatever the spec asks meanwhile`}},
		{name: "infeasible, from a class", current: bronze, answer: status.Error(codes.InvalidArgument, "iops out of range"), want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": rpc error: code = InvalidArgument desc = iops out of range; retried every 5m0s unless the class changes; to cancel, set the class back to "bronze"`}},
		{name: "infeasible, from no class", answer: status.Error(codes.InvalidArgument, "iops out of range"), want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": rpc error: code = InvalidArgument desc = iops out of range; retried every 5m0s unless the class changes; to cancel, remove the class from the claim`}},
		{name: "refused before the driver", answer: driver.Refuse(codes.InvalidArgument, errors.New("volume ID is empty")), want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": not sent to the driver (InvalidArgument): volume ID is empty; retried every 5m0s unless the class changes; to cancel, remove the class from the claim`}},
		{name: "final", answer: status.Error(codes.Internal, "backend busy"), want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": rpc error: code = Internal desc = backend busy; retried with backoff, at the class the spec names then`}},
		{name: "secret missing", pvOpts: []testobj.VolumeOpt{expandSecret("vault", "missing")}, want: []string{
			warnModify + `modify volume "pv-a" to class "gold": secret "vault/missing" for volume modification not found: secrets "missing" not found; the driver is not called without it: retried with backoff`}},
		{name: "intent write fails", failRes: "persistentvolumeclaims", failNth: 1, want: []string{
			warnModify + `modify volume "pv-a" to class "gold": record the intent in the claim: patch status of claim default/a: etcd is down; retried with backoff; the driver is not called before`}},
		{name: "PV write fails", failRes: "persistentvolumes", failNth: 1, want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": record the applied class in the PV: patch volume pv-a: etcd is down; retried with backoff, the writes only: the driver has applied class "gold"`}},
		{name: "claim write after success fails", failRes: "persistentvolumeclaims", failNth: 2, want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": record the applied class in the claim: patch status of claim default/a: etcd is down; retried with backoff, the writes only: the driver has applied class "gold"`}},
		{name: "recording the failure fails", answer: status.Error(codes.Internal, "backend busy"), failRes: "persistentvolumeclaims", failNth: 2, want: []string{evModifyGold,
			warnModify + `modify volume "pv-a" to class "gold": rpc error: code = Internal desc = backend busy; retried with backoff, at the class the spec names then`,
			warnModify + `modify volume "pv-a" to class "gold": record the failure in the claim: patch status of claim default/a: etcd is down; retried with backoff`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, tc.current))
			m := &fakeModifier{}
			if tc.answer != nil {
				m.script = []error{tc.answer}
			}
			e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi", tc.pvOpts...), attributeClass(gold, driverName), attributeClass(bronze, driverName)))
			if tc.failRes != "" {
				e.failRequest("patch", tc.failRes, tc.failNth, errEtcdDown)
			}
			_, _ = e.sync("a")
			equal(t, "events", e.events(), tc.want)
		})
	}
}

// TestFailureConditionMessages: the error conditions carry what failed and
// why, without the CSI client's wrapper, as the events do, and the driver's
// gRPC code as their reason, which explain reads.
func TestFailureConditionMessages(t *testing.T) {
	wrapped := fmt.Errorf(`expand volume "vol-a" to 2147483648 bytes: %w`, status.Error(codes.Internal, "backend error"))
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, &fakeResizer{script: []result{{err: wrapped}}}, objects(pvc, volume(pvc, "1Gi")))
	_, _ = e.sync("a")
	equal(t, "ControllerResizeError", conditionMessage(e.claim("a"), v1.PersistentVolumeClaimControllerResizeError),
		`expand volume "pv-a" to 2Gi: rpc error: code = Internal desc = backend error`)
	equal(t, "ControllerResizeError reason", conditionReason(e.claim("a"), v1.PersistentVolumeClaimControllerResizeError), "Internal")

	m := &fakeModifier{script: []error{fmt.Errorf(`modify volume "vol-a": %w`, status.Error(codes.InvalidArgument, "iops out of range"))}}
	pvc = claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	me := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)))
	_, _ = me.sync("a")
	equal(t, "ModifyVolumeError", conditionMessage(me.claim("a"), v1.PersistentVolumeClaimVolumeModifyVolumeError),
		`modify volume "pv-a" to class "gold": rpc error: code = InvalidArgument desc = iops out of range`)
	equal(t, "ModifyVolumeError reason", conditionReason(me.claim("a"), v1.PersistentVolumeClaimVolumeModifyVolumeError), "InvalidArgument")
}

// TestFailureEventsCarryTheCode: the warning of a failed driver call
// carries the call's gRPC code as an annotation, the uncertain ones too,
// which the claim does not record; explain reads it there.
func TestFailureEventsCarryTheCode(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, &fakeResizer{script: []result{{err: status.Error(codes.DeadlineExceeded, "slow")}}}, objects(pvc, volume(pvc, "1Gi")))
	_, _ = e.sync("a")
	var got []string
	for {
		select {
		case ev := <-e.recorder.Events:
			got = append(got, ev)
			continue
		default:
		}
		break
	}
	if len(got) != 2 || !strings.HasSuffix(got[1], " map["+events.AnnotationCode+":DeadlineExceeded]") {
		t.Errorf("events %q, want the intent and a warning annotated with code DeadlineExceeded", got)
	}
}

// conditionReason is the reason of pvc's condition of type t.
func conditionReason(pvc *v1.PersistentVolumeClaim, t v1.PersistentVolumeClaimConditionType) string {
	for _, c := range pvc.Status.Conditions {
		if c.Type == t {
			return c.Reason
		}
	}
	return "<no " + string(t) + ">"
}

func conditionMessage(pvc *v1.PersistentVolumeClaim, t v1.PersistentVolumeClaimConditionType) string {
	for _, c := range pvc.Status.Conditions {
		if c.Type == t {
			return c.Message
		}
	}
	return "<no " + string(t) + ">"
}
