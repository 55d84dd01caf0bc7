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

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// A claim that keeps failing stays in its state since the resizer began
// expanding to the size (or modifying to the class), through every retry,
// so that csi_resizer_claim_oldest_seconds and the explain command say how
// long it has been stuck, not when it was last tried. Another size or
// class starts a new time.

func TestResizeSinceSurvivesRetries(t *testing.T) {
	pvc := claim("a", "5Gi", "1Gi")
	internal := result{err: status.Error(codes.Internal, "backend busy")}
	infeasible := result{err: status.Error(codes.OutOfRange, "too big")}
	e := newEnv(t, &fakeResizer{script: []result{internal, internal, infeasible, infeasible, internal}}, objects(pvc, volume(pvc, "1Gi")))

	for range 2 {
		_, _ = e.sync("a")
		checkSince(t, resizeEntry(e.claim("a")), decide.ControllerError, t0)
		e.clock.Step(time.Minute)
	}
	e.mustSync("a")
	checkSince(t, resizeEntry(e.claim("a")), decide.ControllerInfeasible, t0)
	e.clock.Step(5 * time.Minute)
	e.mustSync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"5Gi", "5Gi", "5Gi", "5Gi"})
	checkSince(t, resizeEntry(e.claim("a")), decide.ControllerInfeasible, t0)

	e.clock.Step(time.Minute)
	lowered := e.clock.Now()
	e.setRequest("a", "3Gi")
	_, _ = e.sync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"5Gi", "5Gi", "5Gi", "5Gi", "3Gi"})
	checkSince(t, resizeEntry(e.claim("a")), decide.ControllerError, lowered)
}

func TestModifySinceSurvivesRetries(t *testing.T) {
	infeasible := status.Error(codes.InvalidArgument, "iops out of range")
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, bronze))
	m := &fakeModifier{script: []error{status.Error(codes.Internal, "busy"), infeasible, infeasible, infeasible}}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi", classed(bronze)),
		attributeClass(gold, driverName), attributeClass(silver, driverName), attributeClass(bronze, driverName)))

	_, _ = e.sync("a")
	checkSince(t, modifyEntry(e.claim("a")), decide.ModifyInProgress, t0)
	e.clock.Step(time.Minute)
	e.mustSync("a")
	checkSince(t, modifyEntry(e.claim("a")), decide.ModifyInfeasible, t0)
	e.clock.Step(5 * time.Minute)
	e.mustSync("a")
	equal(t, "driver calls", m.targets(), []string{gold, gold, gold})
	checkSince(t, modifyEntry(e.claim("a")), decide.ModifyInfeasible, t0)

	e.clock.Step(time.Minute)
	changed := e.clock.Now()
	e.setClass("a", silver)
	e.mustSync("a")
	equal(t, "driver calls", m.targets(), []string{gold, gold, gold, silver})
	checkSince(t, modifyEntry(e.claim("a")), decide.ModifyInfeasible, changed)
}

// checkSince checks a claim's entry against the state and time wanted.
func checkSince(t *testing.T, got decide.Entry, state decide.Stage, since time.Time) {
	t.Helper()
	if got.State != state || !got.Since.Equal(since) {
		t.Errorf("claim is %q since %v, want %q since %v", got.State, got.Since, state, since)
	}
}

func resizeEntry(pvc *v1.PersistentVolumeClaim) decide.Entry {
	e, _ := decide.UnfinishedResize(slim.NewClaim(pvc), nil)
	return e
}

func modifyEntry(pvc *v1.PersistentVolumeClaim) decide.Entry {
	e, _ := decide.UnfinishedModify(slim.NewClaim(pvc))
	return e
}
