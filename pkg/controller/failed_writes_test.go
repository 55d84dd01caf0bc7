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
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// TestUnrecordedInfeasibleSizeIsTriedAgain: the driver finds the size
// infeasible, and the write that records it fails. The claim must not stay
// shown in progress for the slow lane's length: the write error is retried
// with backoff, the attempt made again, and its failure written.
func TestUnrecordedInfeasibleSizeIsTriedAgain(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	rz := &fakeResizer{script: []result{{err: status.Error(codes.OutOfRange, "too big")}, {err: status.Error(codes.OutOfRange, "too big")}}}
	e := newEnv(t, rz, objects(pvc, volume(pvc, "1Gi")))
	e.failRequest("patch", "persistentvolumeclaims", 2, errEtcdDown)
	if after, err := e.sync("a"); err == nil {
		t.Fatalf("sync = %s, nil; want the write error, retried with backoff", after)
	}
	equal(t, "claim", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=ControllerResizeInProgress conditions=[Resizing]")

	if after := e.mustSync("a"); after != 5*time.Minute {
		t.Errorf("requeue after the recorded failure = %s, want the slow lane's 5m", after)
	}
	equal(t, "driver calls", e.resizer.targets(), []string{"2Gi", "2Gi"})
	equal(t, "claim", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=ControllerResizeInfeasible conditions=[ControllerResizeError]")
}

// TestUnrecordedInfeasibleClassIsTriedAgain is the same for a class.
func TestUnrecordedInfeasibleClassIsTriedAgain(t *testing.T) {
	infeasible := status.Error(codes.InvalidArgument, "iops out of range")
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	m := &fakeModifier{script: []error{infeasible, infeasible}}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)))
	e.failRequest("patch", "persistentvolumeclaims", 2, errEtcdDown)
	if after, err := e.sync("a"); err == nil {
		t.Fatalf("sync = %s, nil; want the write error, retried with backoff", after)
	}
	equal(t, "claim", modifySummary(e.claim("a")), "spec=gold current=- modify=InProgress:gold conditions=[ModifyingVolume]")

	if after := e.mustSync("a"); after != 5*time.Minute {
		t.Errorf("requeue after the recorded failure = %s, want the slow lane's 5m", after)
	}
	equal(t, "driver calls", m.targets(), []string{gold, gold})
	equal(t, "claim", modifySummary(e.claim("a")), "spec=gold current=- modify=Infeasible:gold conditions=[ModifyVolumeError,ModifyingVolume]")
}

// TestAppliedClassRecordedWithoutItsSecret: the driver applied the class,
// the PV's write failed, and the modification Secret is deleted meanwhile.
// Only the writes are retried, and they need no Secret.
func TestAppliedClassRecordedWithoutItsSecret(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	creds := secret(ns, "creds", map[string]string{"k": "v"})
	m := &fakeModifier{}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi", expandSecret(ns, "creds")), attributeClass(gold, driverName), creds))
	e.failRequest("patch", "persistentvolumes", 1, errEtcdDown)
	if _, err := e.sync("a"); err == nil {
		t.Fatal("sync: want the failed PV write")
	}
	e.must(e.client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("secrets"), ns, "creds"))

	e.mustSync("a")
	equal(t, "driver calls", m.targets(), []string{gold})
	equal(t, "claim", modifySummary(e.claim("a")), atGold)
	equal(t, "PV class", pvClass(e.volume("pv-a")), gold)
}

// TestInfeasibleSizeNotAskedAgainAfterAConflict: the write that records an
// infeasible size conflicts (the claim changed under it, here by the user,
// whose new request the cache does not have yet). The claim is looked at
// again at once, and the refused size must not be asked for again before
// the slow lane; the new request is tried at once once seen.
func TestInfeasibleSizeNotAskedAgainAfterAConflict(t *testing.T) {
	pvc := claim("a", "3Gi", "1Gi")
	rz := &fakeResizer{script: []result{{err: status.Error(codes.OutOfRange, "too big")}}}
	e := newEnv(t, rz, objects(pvc, volume(pvc, "1Gi")))
	e.failRequest("patch", "persistentvolumeclaims", 2, apierrors.NewConflict(schema.GroupResource{Resource: "persistentvolumeclaims"}, "a", nil))
	if _, err := e.sync("a"); !apierrors.IsConflict(err) {
		t.Fatalf("sync: %v, want the conflict", err)
	}
	if after := e.mustSync("a"); after <= 0 || after > 5*time.Minute {
		t.Errorf("requeue after the conflict = %s, want the slow lane's wait", after)
	}
	equal(t, "driver calls after the conflict", e.resizer.targets(), []string{"3Gi"})

	e.setRequest("a", "2Gi")
	e.mustSync("a")
	equal(t, "driver calls once the new request is seen", e.resizer.targets(), []string{"3Gi", "2Gi"})
}
