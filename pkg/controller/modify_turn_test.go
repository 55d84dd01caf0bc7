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
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const expanded = "capacity=2Gi allocated=2Gi status=- conditions=[]"

// onTimeline makes both operations of e's controller record their driver
// calls on tl, each call lasting pause.
func onTimeline(tl *timeline, rz *fakeResizer, pause time.Duration) envOpt {
	return func(c *Config) { c.Resizer = &timedResizer{fakeResizer: rz, timeline: tl, pause: pause} }
}

// modifyRecorded records an unfinished modification to target on the
// claim, as a resizer that stopped during the driver call leaves it.
func modifyRecorded(target string) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		*pvc = *claimstatus.ModifyIntent(pvc, target, t0Meta())
	}
}

// resizeRecorded records an unfinished expansion to size on the claim.
func resizeRecorded(size string) testobj.ClaimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		testobj.Allocated(size, v1.PersistentVolumeClaimControllerResizeInProgress)(pvc)
		pvc.Status.Conditions = append(pvc.Status.Conditions,
			v1.PersistentVolumeClaimCondition{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue})
	}
}

// TestResizeAndModifyTakeTurns: a claim that wants a larger size and
// another class gets both, one driver call at a time, in the order of
// plan.next.
func TestResizeAndModifyTakeTurns(t *testing.T) {
	tests := []struct {
		name   string
		opts   []testobj.ClaimOpt
		script []result
		// syncs is how many syncs the claim needs; all but the last fail.
		syncs int
		want  []string
	}{
		{name: "a fresh expansion goes before a fresh modification",
			syncs: 1, want: []string{"expand 2Gi", "modify gold"}},
		{name: "an unfinished modification goes before a fresh expansion",
			opts: []testobj.ClaimOpt{modifyRecorded(gold)}, syncs: 1, want: []string{"modify gold", "expand 2Gi"}},
		{name: "an unfinished modification goes before an unfinished expansion",
			opts: []testobj.ClaimOpt{modifyRecorded(gold), resizeRecorded("2Gi")}, syncs: 1, want: []string{"modify gold", "expand 2Gi"}},
		{name: "an expansion that failed for sure goes after the modification",
			script: []result{{err: status.Error(codes.Internal, "busy")}},
			syncs:  2, want: []string{"expand 2Gi", "modify gold", "expand 2Gi"}},
		{name: "an expansion that timed out yields the next turn to the modification",
			script: []result{{err: status.Error(codes.DeadlineExceeded, "slow")}},
			syncs:  2, want: []string{"expand 2Gi", "modify gold", "expand 2Gi"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := newTimeline()
			pvc := claim("a", "2Gi", "1Gi", append([]testobj.ClaimOpt{testobj.AttributesClasses(gold, "")}, tc.opts...)...)
			e := newModifyEnv(t, &fakeModifier{timeline: tl}, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)),
				onTimeline(tl, &fakeResizer{script: tc.script}, 0))
			for i := 1; i < tc.syncs; i++ {
				if _, err := e.sync("a"); err == nil {
					t.Fatalf("sync %d: want the scripted failure", i)
				}
			}
			e.mustSync("a")
			equal(t, "driver calls", tl.of("pv-a"), tc.want)
			got := e.claim("a")
			equal(t, "claim's size", summary(got), expanded)
			equal(t, "claim's class", modifySummary(got), atGold)
			pv := e.volume("pv-a")
			equal(t, "PV", pvSize(pv)+" "+pvClass(pv), "2Gi gold")

			e.clearActions()
			e.mustSync("a")
			equal(t, "writes when done", e.writes(), []string(nil))
			equal(t, "driver calls when done", len(tl.of("pv-a")), len(tc.want))
		})
	}
}

// TestResizeAndModifyNeverOverlap runs the controller on its informers
// with several workers and claims that each want a larger size and another
// class; driver calls take a while. No two calls may run at once on one
// volume, and every claim must end expanded and modified with one call of
// each, the expansion first.
func TestResizeAndModifyNeverOverlap(t *testing.T) {
	const claims = 8
	tl := newTimeline()
	objs := []runtime.Object{attributeClass(gold, driverName)}
	for i := range claims {
		pvc := claim(fmt.Sprintf("c%d", i), "2Gi", "1Gi", testobj.AttributesClasses(gold, ""))
		objs = append(objs, pvc, volume(pvc, "1Gi"))
	}
	e := newModifyEnv(t, &fakeModifier{timeline: tl, pause: 5 * time.Millisecond}, objs,
		onTimeline(tl, &fakeResizer{}, 5*time.Millisecond))
	stop := runInformers(t, e.ctrl)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- e.ctrl.Run(ctx, 4) }()
	defer func() {
		cancel()
		<-done
		close(stop)
	}()

	for i := range claims {
		name := fmt.Sprintf("c%d", i)
		waitFor(t, name+" done", func() bool {
			pvc := e.claim(name)
			return summary(pvc) == expanded && modifySummary(pvc) == atGold
		})
	}
	// No call can come after the last write: the controller's own
	// decisions have nothing left to do for any claim.
	for i := range claims {
		name := fmt.Sprintf("c%d", i)
		equal(t, "step left for "+name, e.idle(t, name).Next, decide.NoJob)
	}
	equal(t, "overlapping calls", tl.overlapping(), []string(nil))
	for i := range claims {
		volume := fmt.Sprintf("pv-c%d", i)
		equal(t, "driver calls on "+volume, tl.of(volume), []string{"expand 2Gi", "modify gold"})
		pv := e.volume(volume)
		equal(t, "PV "+volume, pvSize(pv)+" "+pvClass(pv), "2Gi gold")
	}
}

// losingResizer ends the worker's context during its driver call, as a
// replica that loses its Lease then does.
type losingResizer struct {
	*fakeResizer
	lose context.CancelFunc
}

func (r *losingResizer) Expand(ctx context.Context, pv *v1.PersistentVolume, target resource.Quantity, secrets map[string]string) (resource.Quantity, bool, error) {
	r.lose()
	return r.fakeResizer.Expand(ctx, pv, target, secrets)
}

// TestLeaseLostMidSyncStartsNoNewCall: the worker's context ends (the Lease
// is lost) while the expansion's driver call runs. That call finishes and is
// recorded, but the modification the same sync would run next is not
// started: the new leader may already be working on the volume.
func TestLeaseLostMidSyncStartsNoNewCall(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	m := &fakeModifier{}
	var lose context.CancelFunc
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)),
		func(c *Config) { c.Resizer = &losingResizer{fakeResizer: &fakeResizer{}, lose: func() { lose() }} })
	ctx, lose := context.WithCancel(e.ctx)
	defer lose()
	e.refresh()
	e.refreshClasses()
	e.ctrl.queue.Add(ns + "/a")
	e.ctrl.processNext(ctx)
	equal(t, "claim's size", summary(e.claim("a")), expanded)
	equal(t, "modify calls after the Lease was lost", m.targets(), []string(nil))

	e.mustSync("a")
	equal(t, "modify calls of the next leader", m.targets(), []string{gold})
}

// TestFailingOperationDoesNotStarveTheOther: one operation's driver call
// keeps timing out (uncertain: its target stays recorded and is retried);
// the other operation still gets its turn and finishes.
func TestFailingOperationDoesNotStarveTheOther(t *testing.T) {
	timeout := status.Error(codes.DeadlineExceeded, "slow")
	tests := []struct {
		name     string
		opts     []testobj.ClaimOpt
		resizes  []result
		modifies []error
		check    func(t *testing.T, pvc *v1.PersistentVolumeClaim)
	}{
		{name: "an expansion that keeps timing out lets the class change through",
			resizes: []result{{err: timeout}, {err: timeout}, {err: timeout}, {err: timeout}},
			check: func(t *testing.T, pvc *v1.PersistentVolumeClaim) {
				if c := pvc.Status.CurrentVolumeAttributesClassName; c == nil || *c != gold {
					t.Errorf("current class = %v, want %s", c, gold)
				}
			}},
		{name: "an unfinished modification that keeps timing out lets the expansion through",
			opts:     []testobj.ClaimOpt{modifyRecorded(gold)},
			modifies: []error{timeout, timeout, timeout, timeout},
			check: func(t *testing.T, pvc *v1.PersistentVolumeClaim) {
				if got := pvc.Status.Capacity[v1.ResourceStorage]; got.String() != "2Gi" {
					t.Errorf("capacity = %s, want 2Gi", got.String())
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi", append([]testobj.ClaimOpt{testobj.AttributesClasses(gold, "")}, tc.opts...)...)
			tl := newTimeline()
			e := newModifyEnv(t, &fakeModifier{timeline: tl, script: tc.modifies}, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName)),
				onTimeline(tl, &fakeResizer{script: tc.resizes}, 0))
			for i := 0; i < 3; i++ {
				_, _ = e.sync("a")
			}
			tc.check(t, e.claim("a"))
		})
	}
}
