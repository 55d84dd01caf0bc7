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
	"reflect"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const (
	intentWrite = "patch persistentvolumeclaims/status a"
	pvWrite     = "patch persistentvolumes pv-a"
	claimWrite  = "patch persistentvolumeclaims/status a"

	evResizing  = "Normal Resizing External resizer is resizing volume pv-a"
	evSucceeded = "Normal VolumeResizeSuccessful Resize volume succeeded"
	evNodeStep  = "Normal FileSystemResizeRequired Require file system resize of volume on node"
)

func objects(objs ...runtime.Object) []runtime.Object { return objs }

func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %v\n want %v", what, got, want)
	}
}

func TestControllerOnlyExpansion(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")

	equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
	equal(t, "events", e.events(), []string{evResizing, evSucceeded})
	equal(t, "driver calls", e.resizer.targets(), []string{"2Gi"})
	got := e.claim("a")
	equal(t, "claim", summary(got), "capacity=2Gi allocated=2Gi status=- conditions=[]")
	equal(t, "annotation", got.Annotations[claimstatus.AnnNodeExpansionNotRequired], "true")
	equal(t, "PV size", pvSize(e.volume("pv-a")), "2Gi")

	e.clearActions()
	e.mustSync("a")
	equal(t, "writes after finishing", e.writes(), []string(nil))
	equal(t, "driver calls after finishing", len(e.resizer.targets()), 1)
}

func TestControllerAndNodeExpansion(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi", testobj.Annotated(claimstatus.AnnNodeExpansionNotRequired, "true"))
	e := newEnv(t, &fakeResizer{nodeStep: true}, objects(pvc, volume(pvc, "1Gi")), func(c *Config) { c.AnnotateFsResize = true })
	e.mustSync("a")

	equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
	equal(t, "events", e.events(), []string{evResizing, evNodeStep})
	got := e.claim("a")
	equal(t, "claim", summary(got), "capacity=1Gi allocated=2Gi status=NodeResizePending conditions=[FileSystemResizePending]")
	equal(t, "condition message", got.Status.Conditions[0].Message, claimstatus.FileSystemResizePendingMessage)
	if _, ok := got.Annotations[claimstatus.AnnNodeExpansionNotRequired]; ok {
		t.Errorf("annotation %s kept", claimstatus.AnnNodeExpansionNotRequired)
	}
	pv := e.volume("pv-a")
	equal(t, "PV size", pvSize(pv), "2Gi")
	equal(t, "pre-resize annotation", pv.Annotations[claimstatus.AnnPreResizeCapacity], "1Gi")

	// Kubelet owns the volume now: nothing moves.
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes while node pending", e.writes(), []string(nil))

	// Kubelet finishes: the claim has the volume's size, and the PV's
	// pre-resize-capacity annotation goes, as upstream removes it; then
	// nothing is left to do.
	got.Status.Capacity[v1.ResourceStorage] = got.Status.AllocatedResources[v1.ResourceStorage]
	got.Status.Conditions = nil
	got.Status.AllocatedResourceStatuses = nil
	e.must(e.client.Tracker().Update(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), got, ns))
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes after kubelet", e.writes(), []string{pvWrite})
	if v, ok := e.volume("pv-a").Annotations[claimstatus.AnnPreResizeCapacity]; ok {
		t.Errorf("pre-resize annotation %q kept after kubelet finished", v)
	}
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes once the annotation is gone", e.writes(), []string(nil))
	equal(t, "driver calls", e.resizer.targets(), []string{"2Gi"})

	// The next expansion writes the annotation again, at the capacity it
	// starts from.
	e.setRequest("a", "3Gi")
	e.mustSync("a")
	equal(t, "pre-resize annotation of the next expansion", e.volume("pv-a").Annotations[claimstatus.AnnPreResizeCapacity], "2Gi")
}

// TestPreResizeAnnotationWrittenOnlyWhenAbsent: while an expansion's node
// step is unfinished, a new expansion keeps the annotation of the first
// (the capacity before both), as upstream writes it only when absent; one
// left over from a finished expansion is replaced.
func TestPreResizeAnnotationWrittenOnlyWhenAbsent(t *testing.T) {
	gate := func(c *Config) { c.AnnotateFsResize = true }
	tests := []struct {
		name, annotation, capacity, pvSize, want string
	}{
		{name: "absent", capacity: "1Gi", pvSize: "1Gi", want: "1Gi"},
		{name: "kept while the claim is below the volume", annotation: "512Mi", capacity: "1Gi", pvSize: "2Gi", want: "512Mi"},
		{name: "left over from a finished expansion: replaced", annotation: "512Mi", capacity: "1Gi", pvSize: "1Gi", want: "1Gi"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "3Gi", tc.capacity)
			pv := volume(pvc, tc.pvSize)
			if tc.annotation != "" {
				pv.Annotations = map[string]string{claimstatus.AnnPreResizeCapacity: tc.annotation}
			}
			e := newEnv(t, &fakeResizer{nodeStep: true}, objects(pvc, pv), gate)
			e.mustSync("a")
			equal(t, "pre-resize annotation", e.volume("pv-a").Annotations[claimstatus.AnnPreResizeCapacity], tc.want)
		})
	}
}

func TestNodeOnlyDriver(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")), func(c *Config) { c.Resizer = driver.NodeOnly{} })
	e.mustSync("a")

	equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
	equal(t, "events", e.events(), []string{evResizing, evNodeStep})
	equal(t, "driver calls", len(e.resizer.targets()), 0)
	equal(t, "claim", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=NodeResizePending conditions=[FileSystemResizePending]")
	equal(t, "PV size", pvSize(e.volume("pv-a")), "2Gi")
}

func TestIgnoredClaims(t *testing.T) {
	pending := claim("a", "2Gi", "1Gi", unbound)
	noVolume := claim("a", "2Gi", "1Gi")
	noVolume.Spec.VolumeName = ""
	other := claim("a", "2Gi", "1Gi")
	wrongUID := claim("a", "2Gi", "1Gi")
	stolen := volume(wrongUID, "1Gi")
	stolen.Spec.ClaimRef.UID = "someone-else"
	tests := []struct {
		name string
		objs []runtime.Object
	}{
		{name: "other driver ignored", objs: objects(other, volume(other, "1Gi", ofDriver("other.csi.example.com")))},
		{name: "unbound ignored", objs: objects(pending, volume(pending, "1Gi"))},
		{name: "no volume name ignored", objs: objects(noVolume)},
		{name: "PV bound to another claim ignored", objs: objects(wrongUID, stolen)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil, tc.objs)
			e.mustSync("a")
			equal(t, "writes", e.writes(), []string(nil))
			equal(t, "events", e.events(), []string(nil))
			equal(t, "driver calls", len(e.resizer.targets()), 0)
		})
	}
}

func TestVolumeNotCachedYetIsRetried(t *testing.T) {
	e := newEnv(t, nil, objects(claim("a", "2Gi", "1Gi")))
	if _, err := e.sync("a"); err == nil {
		t.Fatal("sync with the PV missing from the cache: want an error to retry, got nil")
	}
	equal(t, "writes", e.writes(), []string(nil))
}

func TestDeletedClaimIsForgotten(t *testing.T) {
	pvc := claim("a", "5Gi", "1Gi")
	e := newEnv(t, &fakeResizer{script: []result{{err: status.Error(codes.Internal, "boom")}}}, objects(pvc, volume(pvc, "1Gi")))
	_, _ = e.sync("a")
	if e.ctrl.memory.size() == 0 {
		t.Fatal("nothing remembered after a failure")
	}
	e.must(e.client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), ns, "a"))
	e.mustSync("a")
	equal(t, "memory entries after delete", e.ctrl.memory.size(), 0)
}

func TestFinalErrorThenUserLowersRequest(t *testing.T) {
	pvc := claim("a", "5Gi", "1Gi")
	e := newEnv(t, &fakeResizer{script: []result{{err: status.Error(codes.Internal, "quota exceeded")}}}, objects(pvc, volume(pvc, "1Gi")))
	if _, err := e.sync("a"); err == nil {
		t.Fatal("want the failure to be retried")
	}
	equal(t, "writes", e.writes(), []string{intentWrite, claimWrite})
	equal(t, "claim after failure", summary(e.claim("a")), "capacity=1Gi allocated=5Gi status=ControllerResizeInProgress conditions=[ControllerResizeError]")
	events := e.events()
	equal(t, "events", len(events), 2)
	equal(t, "warning", events[1], `Warning VolumeResizeFailed expand volume "pv-a" to 5Gi: rpc error: code = Internal desc = quota exceeded; `+
		`retried with backoff, at the request as it is then; to recover, lower the request to between 1Gi (exclusive, the current capacity) and 5Gi (exclusive)`)

	e.setRequest("a", "3Gi")
	e.mustSync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"5Gi", "3Gi"})
	equal(t, "claim", summary(e.claim("a")), "capacity=3Gi allocated=3Gi status=- conditions=[]")
	equal(t, "PV size", pvSize(e.volume("pv-a")), "3Gi")
}

func TestFinalErrorSurvivesRestart(t *testing.T) {
	pvc := claim("a", "5Gi", "1Gi")
	e := newEnv(t, &fakeResizer{script: []result{{err: status.Error(codes.PermissionDenied, "no")}}}, objects(pvc, volume(pvc, "1Gi")))
	_, _ = e.sync("a")
	e.setRequest("a", "3Gi")

	restarted := newEnvWithClient(t, e.client, nil)
	restarted.mustSync("a")
	equal(t, "driver calls after restart", restarted.resizer.targets(), []string{"3Gi"})
	equal(t, "claim", summary(restarted.claim("a")), "capacity=3Gi allocated=3Gi status=- conditions=[]")
}

func TestInfeasibleWithSlowRetry(t *testing.T) {
	pvc := claim("a", "5Gi", "1Gi")
	infeasible := result{err: status.Error(codes.OutOfRange, "too big")}
	e := newEnv(t, &fakeResizer{script: []result{infeasible, infeasible}}, objects(pvc, volume(pvc, "1Gi")))

	after := e.mustSync("a")
	equal(t, "requeue after", after, 5*time.Minute)
	equal(t, "claim", summary(e.claim("a")), "capacity=1Gi allocated=5Gi status=ControllerResizeInfeasible conditions=[ControllerResizeError]")

	// A resync a minute later does not call the driver again.
	e.clock.Step(time.Minute)
	e.clearActions()
	after = e.mustSync("a")
	equal(t, "wait", after, 4*time.Minute)
	equal(t, "writes while waiting", e.writes(), []string(nil))
	equal(t, "driver calls while waiting", len(e.resizer.targets()), 1)

	// Once the slow lane is due, it is tried again.
	e.clock.Step(4 * time.Minute)
	e.mustSync("a")
	equal(t, "driver calls when due", e.resizer.targets(), []string{"5Gi", "5Gi"})

	// The user lowers the request: tried at once, at the new size.
	e.setRequest("a", "3Gi")
	e.mustSync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"5Gi", "5Gi", "3Gi"})
	equal(t, "claim", summary(e.claim("a")), "capacity=3Gi allocated=3Gi status=- conditions=[]")
}

func TestUncertainKeepsRecordedSize(t *testing.T) {
	pvc := claim("a", "5Gi", "1Gi")
	e := newEnv(t, &fakeResizer{script: []result{{err: status.Error(codes.DeadlineExceeded, "slow")}}}, objects(pvc, volume(pvc, "1Gi")))
	if _, err := e.sync("a"); err == nil {
		t.Fatal("want the failure to be retried")
	}
	equal(t, "writes", e.writes(), []string{intentWrite})
	equal(t, "claim", summary(e.claim("a")), "capacity=1Gi allocated=5Gi status=ControllerResizeInProgress conditions=[Resizing]")

	e.setRequest("a", "3Gi")
	e.clearActions()
	e.mustSync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"5Gi", "5Gi"})
	equal(t, "writes", e.writes(), []string{pvWrite, claimWrite})
	equal(t, "claim", summary(e.claim("a")), "capacity=5Gi allocated=5Gi status=- conditions=[]")
}

func TestConflictIsSilent(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "persistentvolumeclaims"}, "a", nil)
	tests := []struct {
		name      string
		verb, res string
		wantCalls []string
	}{
		{name: "conflict recording intent", verb: "patch", res: "persistentvolumeclaims", wantCalls: []string{"2Gi"}},
		{name: "conflict writing the PV: the writes only are retried", verb: "patch", res: "persistentvolumes", wantCalls: []string{"2Gi"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi")
			e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")))
			e.failRequest(tc.verb, tc.res, 1, conflict)
			_, err := e.sync("a")
			if !apierrors.IsConflict(err) {
				t.Fatalf("want a conflict to requeue, got %v", err)
			}
			for _, ev := range e.events() {
				if ev[:7] == "Warning" {
					t.Errorf("warning event on a conflict: %s", ev)
				}
			}
			e.mustSync("a")
			equal(t, "driver calls", e.resizer.targets(), tc.wantCalls)
			equal(t, "claim", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
		})
	}
}

func TestServerTimeoutIsRetried(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")))
	e.failRequest("patch", "persistentvolumes", 1, apierrors.NewServerTimeout(schema.GroupResource{Resource: "persistentvolumes"}, "patch", 1))
	if _, err := e.sync("a"); err == nil {
		t.Fatal("want a retry")
	}
	events := e.events()
	equal(t, "events", len(events), 2)
	equal(t, "claim after timeout", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=ControllerResizeInProgress conditions=[Resizing]")
	e.mustSync("a")
	equal(t, "claim", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
}

func TestDriverCapacityAnswers(t *testing.T) {
	tests := []struct {
		name      string
		answer    string
		wantErr   bool
		wantClaim string
		wantPV    string
	}{
		{name: "capacity 0 means not reported", answer: "0", wantClaim: "capacity=2Gi allocated=2Gi status=- conditions=[]", wantPV: "2Gi"},
		{name: "capacity smaller than target is what the driver gave", answer: "1536Mi", wantClaim: "capacity=1536Mi allocated=1536Mi status=- conditions=[ControllerResizeError]", wantPV: "1536Mi"},
		{name: "capacity larger than target is recorded, and charged as allocated", answer: "3Gi", wantClaim: "capacity=3Gi allocated=3Gi status=- conditions=[]", wantPV: "3Gi"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi")
			e := newEnv(t, &fakeResizer{script: []result{{size: tc.answer}}}, objects(pvc, volume(pvc, "1Gi")))
			_, err := e.sync("a")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			equal(t, "claim", summary(e.claim("a")), tc.wantClaim)
			equal(t, "PV size", pvSize(e.volume("pv-a")), tc.wantPV)
		})
	}
}

func TestRestartMidResize(t *testing.T) {
	tests := []struct {
		name       string
		failRes    string
		failNth    int
		wantWrites []string
	}{
		{name: "killed after recording intent", failRes: "persistentvolumes", failNth: 1, wantWrites: []string{pvWrite, claimWrite}},
		{name: "killed after growing the PV", failRes: "persistentvolumeclaims", failNth: 2, wantWrites: []string{claimWrite}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "5Gi", "1Gi")
			first := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")))
			// The process dies at this write: it never happens.
			first.failRequest("patch", tc.failRes, tc.failNth, apierrors.NewServiceUnavailable("resizer killed"))
			_, _ = first.sync("a")
			// The user changes the request while the resizer is down.
			first.setRequest("a", "3Gi")

			restarted := newEnvWithClient(t, first.client, nil)
			restarted.client.ReactionChain = restarted.client.ReactionChain[1:]
			restarted.clearActions()
			restarted.mustSync("a")
			equal(t, "driver calls after restart", restarted.resizer.targets(), []string{"5Gi"})
			equal(t, "writes after restart", restarted.writes(), tc.wantWrites)
			equal(t, "claim", summary(restarted.claim("a")), "capacity=5Gi allocated=5Gi status=- conditions=[]")
			equal(t, "PV size", pvSize(restarted.volume("pv-a")), "5Gi")
		})
	}
}
