//go:build chaos

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

package chaos

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// classPVC is a version of claim data-109 at resourceVersion rv: at rest
// at current, or on its way to target (status non-empty), of capacity size.
func classPVC(rv int, current string, status v1.PersistentVolumeClaimModifyVolumeStatus, target string, size int64) *v1.PersistentVolumeClaim {
	p := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "chaos", Name: "data-109", ResourceVersion: fmt.Sprint(rv)}}
	if current != "" {
		p.Status.CurrentVolumeAttributesClassName = ptr.To(current)
	}
	if status != "" {
		p.Status.ModifyVolumeStatus = &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: target, Status: status}
	}
	if size > 0 {
		p.Status.Capacity = v1.ResourceList{v1.ResourceStorage: *resource.NewQuantity(size, resource.BinarySI)}
	}
	return p
}

// auditWrite is the audit event of a write of pvc, answered with code at s.
func auditWrite(t *testing.T, pvc *v1.PersistentVolumeClaim, code int, s float64) framework.AuditEvent {
	t.Helper()
	var e framework.AuditEvent
	e.Verb, e.Stage = "patch", "ResponseComplete"
	e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name, e.ObjectRef.Subresource = "persistentvolumeclaims", pvc.Namespace, pvc.Name, "status"
	e.ResponseStatus.Code = code
	e.Received, e.StageTimestamp = sec(s-0.01), sec(s)
	if code == 200 {
		data, err := json.Marshal(pvc)
		if err != nil {
			t.Fatal(err)
		}
		e.ResponseObject = data
	}
	return e
}

// TestClassHistoryGap is the run that failed on a watch gap: the claim
// watch missed data-109 going to silver and back to gold, the audit log did
// not; merged, the claim settled at gold at 44s, not at 17s.
func TestClassHistoryGap(t *testing.T) {
	const gold, silver = "chaos-gold", "chaos-silver"
	ip := v1.PersistentVolumeClaimModifyVolumeInProgress
	versions := []struct {
		at  float64
		pvc *v1.PersistentVolumeClaim
	}{
		{16, classPVC(10, silver, ip, gold, gi(1))},
		{17, classPVC(11, gold, "", "", gi(1))},
		{42, classPVC(20, gold, ip, silver, gi(1))}, // the watch is away
		{43, classPVC(21, silver, "", "", gi(1))},
		{44, classPVC(22, silver, ip, gold, gi(2))},
		{45, classPVC(23, gold, "", "", gi(2))},
	}
	w := newClassWatch()
	var now time.Time
	w.now = func() time.Time { return now }
	var events []framework.AuditEvent
	for i, v := range versions {
		events = append(events, auditWrite(t, v.pvc, 200, v.at))
		if i < 2 {
			now = sec(v.at + 0.1)
			w.see(v.pvc)
		}
	}
	now = sec(50) // the relist after the gap: the last version
	w.see(versions[len(versions)-1].pvc)
	events = append(events, auditWrite(t, classPVC(0, "", "", "", 0), 409, 46)) // a conflict: no version

	writes, err := claimWrites(events)
	if err != nil {
		t.Fatal(err)
	}
	cl := claim{ns: "chaos", name: "data-109"}
	if len(writes[cl]) != len(versions) {
		t.Fatalf("writes %d, want %d", len(writes[cl]), len(versions))
	}
	seen, _ := w.history()
	if at, _ := settledAt(seen[cl], gold); !at.Equal(sec(50)) {
		t.Errorf("the watch alone: settled at gold at %s, want 50s (the relist)", clock(at))
	}
	// Without the relist's version, the watch alone has the claim at gold
	// since 17s: the failure the merge fixes.
	if at, _ := settledAt(seen[cl][:2], gold); !at.Equal(sec(17.1)) {
		t.Errorf("the watch before its relist: settled at gold at %s, want 17.1s", clock(at))
	}
	states, n := mergeHistories(map[claim][]classState{cl: seen[cl][:2]}, auditedStates(writes))
	if at, ok := settledAt(states[cl], gold); !ok || !at.Equal(sec(45)) {
		t.Errorf("merged: settled at gold at %s (%v), want 45s", clock(at), ok)
	}
	if len(states[cl]) != 6 || n.onlyWritten != 4 || n.onlySeen != 0 || n.seenVersions != 2 || n.writtenVersions != 6 {
		t.Errorf("merged %d states (%+v), sources %+v", len(states[cl]), states[cl], n)
	}
	for _, s := range states[cl][:2] {
		if s.at.After(sec(17)) {
			t.Errorf("a version known to both is at the earlier time: %+v", s)
		}
	}
	if p := seenPending(states); len(p) != 0 {
		t.Errorf("seenPending = %v", p)
	}

	// A version the audit log missed (the API server killed after the write)
	// but the watch saw: the merge keeps it.
	states, n = mergeHistories(map[claim][]classState{cl: seen[cl]}, auditedStates(map[claim][]claimWrite{cl: writes[cl][:5]}))
	if at, ok := settledAt(states[cl], gold); !ok || !at.Equal(sec(50)) || n.onlySeen != 1 {
		t.Errorf("audit gap: settled at gold at %s (%v), sources %+v; want 50s from the watch", clock(at), ok, n)
	}

	reached := map[claim]map[int64]time.Time{cl: {gi(1): sec(16.1)}}
	if added := mergeReached(reached, writes); added != 1 || !reached[cl][gi(1)].Equal(sec(16)) || !reached[cl][gi(2)].Equal(sec(44)) {
		t.Errorf("mergeReached added %d: %v", added, reached[cl])
	}
	if d := writtenDecreases(writes); len(d) != 0 {
		t.Errorf("writtenDecreases = %v", d)
	}
	writes[cl] = append(writes[cl], claimWrite{at: sec(47), pvc: classPVC(24, gold, "", "", gi(1))})
	if d := writtenDecreases(writes); len(d) != 1 {
		t.Errorf("writtenDecreases = %v, want the drop to 1Gi", d)
	}
}

// TestMergeStatesOrder checks that versions go by resourceVersion, not by
// time, and that times only go forward.
func TestMergeStatesOrder(t *testing.T) {
	st := func(rv uint64, s float64, class string) classState {
		return classState{rv: rv, at: sec(s), settled: true, class: class}
	}
	// The answer to version 6 was complete before that to version 5.
	merged, n := mergeStates([]classState{st(5, 3, "a")}, []classState{st(6, 2, "b"), st(5, 2.5, "a"), st(4, 1, ""), st(6, 2.2, "b")})
	if len(merged) != 3 || merged[0].class != "" || merged[1].class != "a" || merged[2].class != "b" {
		t.Fatalf("merged %+v", merged)
	}
	// Version 6 twice in the audit log (a no-op patch): one version.
	want := classSources{seenVersions: 1, writtenVersions: 3, onlyWritten: 2}
	if !merged[1].at.Equal(sec(2.5)) || !merged[2].at.Equal(sec(2.5)) || n != want {
		t.Errorf("merged %+v, sources %+v, want %+v", merged, n, want)
	}
}
