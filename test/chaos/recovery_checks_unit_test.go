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
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestJudgeRecovery checks the recovery's final checks on a recovered
// claim, one raised after, one whose refusal was dropped, one that broke
// the promises, and a claim infeasible with no refusal.
func TestJudgeRecovery(t *testing.T) {
	kubelet := func(pid int) bool { return pid == 10 }
	nev := func(volume string, bytes int64, end float64, code string) csidriver.LoggedCall {
		return csidriver.LoggedCall{Method: csidriver.MethodNodeExpand, Pid: 10, VolumeID: volume, RequiredBytes: bytes, Start: sec(end - 0.1), End: sec(end), Code: code}
	}
	cev := func(volume string, bytes int64) csidriver.LoggedCall {
		return csidriver.LoggedCall{Method: csidriver.MethodExpand, Pid: 20, VolumeID: volume, RequiredBytes: bytes, Code: "OK"}
	}
	low, up, dropped, bad := claim{"chaos", "low"}, claim{"chaos", "up"}, claim{"chaos", "dropped"}, claim{"chaos", "bad"}
	refused := func(lowered int64) recovering {
		return recovering{infeasible: sec(10), capacity: gi(2), refused: gi(3), lowered: lowered, loweredAt: sec(11)}
	}
	raised := refused(2560 * mi)
	raised.raised, raised.raisedAt, raised.within = 2816*mi, sec(20), true
	records := map[claim]recovering{low: refused(2560 * mi), up: raised, dropped: {}, bad: refused(2560 * mi)}
	l := &listing{pvs: map[string]*v1.PersistentVolume{}}
	for _, p := range []*v1.PersistentVolumeClaim{
		pvcAt("low", 2560*mi, 2560*mi, 2560*mi, ""),
		pvcAt("up", 2816*mi, 2816*mi, 2816*mi, ""),
		pvcAt("dropped", gi(3), gi(3), gi(3), ""),
		pvcAt("bad", 2560*mi, gi(2), 2560*mi, v1.PersistentVolumeClaimNodeResizePending),
	} {
		l.pvcs = append(l.pvcs, *p)
	}
	var nodeCalls []csidriver.LoggedCall
	for _, cl := range []claim{low, up, bad} {
		nodeCalls = append(nodeCalls, nev(cl.handle(), gi(3), 9, "OutOfRange"), nev(cl.handle(), 2560*mi, 11.5, "OK"))
	}
	nodeCalls = append(nodeCalls, nev(up.handle(), 2816*mi, 21.5, "OK"), nev(dropped.handle(), gi(3), 9, "OK"))
	expands := []csidriver.LoggedCall{cev(low.handle(), gi(3)), cev(up.handle(), gi(3)), cev(bad.handle(), gi(3)), cev(bad.handle(), 2560*mi)}
	sizes := sizeFigures{
		infeasible: []sighting{{claim: low, what: "low"}, {claim: up, what: "up"}, {claim: bad, what: "bad"}, {claim: claim{"chaos", "other"}, what: "other"}},
		reached: map[claim]map[int64]time.Time{
			low:     {gi(2): sec(1), 2560 * mi: sec(12)},
			up:      {gi(2): sec(1), 2560 * mi: sec(12), 2816 * mi: sec(22)},
			dropped: {gi(2): sec(1), gi(3): sec(10)},
			bad:     {gi(2): sec(1), 2560 * mi: sec(13)},
		},
	}
	o := judgeRecovery(records, l, expands, nodeCalls, sizes, kubelet)
	if !slices.Equal(o.unexpected, []string{"other"}) {
		t.Errorf("unexpected = %q, want other", o.unexpected)
	}
	if o.refused != 3 || o.infeasible != 3 || o.lowered != 3 || o.atLowered != 1 || o.raised != 1 || o.raisedDone != 1 || o.within != 1 {
		t.Errorf("refused %d, infeasible %d, lowered %d, at lowered %d, raised %d, done %d, within %d; want 3, 3, 3, 1, 1, 1, 1",
			o.refused, o.infeasible, o.lowered, o.atLowered, o.raised, o.raisedDone, o.within)
	}
	if len(o.problems) != 2 || !strings.Contains(o.problems[0], "bad: 1 ControllerExpandVolume") || !strings.Contains(o.problems[1], "bad: not at rest") {
		t.Errorf("problems = %q, want bad's driver call and its status", o.problems)
	}
	if !slices.Equal(o.toLowered, []time.Duration{2 * time.Second, 2 * time.Second, 3 * time.Second}) || !slices.Equal(o.raiseTook, []time.Duration{2 * time.Second}) {
		t.Errorf("toLowered %v, raiseTook %v", o.toLowered, o.raiseTook)
	}
}

// TestJudgeRecoveryBroken checks the promises that fail before a claim's
// end state is read.
func TestJudgeRecoveryBroken(t *testing.T) {
	kubelet := func(pid int) bool { return pid == 10 }
	outOfRange := func(cl claim, bytes int64) csidriver.LoggedCall {
		return csidriver.LoggedCall{Method: csidriver.MethodNodeExpand, Pid: 10, VolumeID: cl.handle(), RequiredBytes: bytes, Start: sec(1), End: sec(2), Code: "OutOfRange"}
	}
	unseen, unrefused, notLowered, wrongSize := claim{"chaos", "a"}, claim{"chaos", "b"}, claim{"chaos", "c"}, claim{"chaos", "d"}
	unrecorded := claim{"chaos", "e"}
	records := map[claim]recovering{
		unseen:     {},
		unrecorded: {},
		unrefused:  {infeasible: sec(3), capacity: gi(2), refused: gi(3)},
		notLowered: {infeasible: sec(3), capacity: gi(2), refused: gi(3), problem: "no size"},
		wrongSize:  {infeasible: sec(3), capacity: gi(2), refused: gi(4), lowered: gi(3), loweredAt: sec(4)},
	}
	expanded := csidriver.LoggedCall{Method: csidriver.MethodNodeExpand, Pid: 10, VolumeID: unrecorded.handle(), RequiredBytes: gi(3), Start: sec(3), End: sec(4), Code: "OK"}
	// a: the next expansion, at another size, does not count.
	again := csidriver.LoggedCall{Method: csidriver.MethodNodeExpand, Pid: 10, VolumeID: unseen.handle(), RequiredBytes: gi(2), Start: sec(3), End: sec(4), Code: "OK"}
	nodeCalls := []csidriver.LoggedCall{outOfRange(unseen, gi(3)), outOfRange(notLowered, gi(3)), outOfRange(wrongSize, gi(3)),
		outOfRange(unrecorded, gi(3)), expanded, again}
	o := judgeRecovery(records, &listing{}, nil, nodeCalls, sizeFigures{}, kubelet)
	if o.unrecorded != 1 || o.refused != 2 {
		t.Errorf("unrecorded %d, refused %d; want 1 (e), 2 (c, d)", o.unrecorded, o.refused)
	}
	want := []string{"a: NodeExpandVolume refused", "b: NodeResizeInfeasible with no", "c: request not lowered: no size",
		"d: NodeResizeInfeasible with allocatedResources", "d: never seen at the lowered size", "d: not at rest"}
	if len(o.problems) != len(want) {
		t.Fatalf("problems = %q, want %d", o.problems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(o.problems[i], w) {
			t.Errorf("problem %d = %q, want it to start %q", i, o.problems[i], w)
		}
	}
}

func TestBelowPV(t *testing.T) {
	l := &listing{pvs: map[string]*v1.PersistentVolume{}}
	for _, tc := range []struct {
		name         string
		capacity, pv int64
	}{{"lowered", 2560 * mi, gi(3)}, {"even", gi(3), gi(3)}, {"no-pv", gi(1), 0}} {
		l.pvcs = append(l.pvcs, *pvcAt(tc.name, tc.capacity, tc.capacity, tc.capacity, ""))
		if tc.pv > 0 {
			pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: claim{"chaos", tc.name}.pv()}}
			pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: *resource.NewQuantity(tc.pv, resource.BinarySI)}
			l.pvs[pv.Name] = pv
		}
	}
	if got := belowPV(l); len(got) != 1 || !got[claim{"chaos", "lowered"}] {
		t.Errorf("belowPV = %v, want the lowered claim alone", got)
	}
}

func TestWritesAtRest(t *testing.T) {
	event := func(name, verb, subresource, agent string, at float64) framework.AuditEvent {
		var e framework.AuditEvent
		e.Verb, e.UserAgent, e.Received = verb, agent, sec(at)
		e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name, e.ObjectRef.Subresource = "persistentvolumeclaims", "chaos", name, subresource
		return e
	}
	const kubelet = "kubelet/v1.36.4 (linux/amd64) kubernetes/abc"
	events := []framework.AuditEvent{
		event("data-a", "patch", "status", kubelet, 5),  // before it was at rest
		event("data-a", "patch", "status", kubelet, 12), // counted
		event("data-a", "get", "", kubelet, 13),
		event("data-a", "patch", "status", "csi-resizer/v0.1", 14),
		event("data-a", "patch", "", kubelet, 15), // not the status
		event("data-a", "patch", "status", kubelet, 31),
		event("data-b", "patch", "status", kubelet, 20), // not at rest
	}
	got := writesAtRest(events, map[claim]time.Time{{"chaos", "data-a"}: sec(10)}, sec(30))
	if len(got) != 1 || got[claim{"chaos", "data-a"}] != 1 {
		t.Errorf("writesAtRest = %v, want data-a once", got)
	}
}

// TestSizeProblemsLowered checks that the size check takes a lowered claim
// at its request, its PV and backend at the largest size it asked for.
func TestSizeProblemsLowered(t *testing.T) {
	cl := claim{"chaos", "data-a"}
	cs := &claims{list: []claim{cl}, want: map[claim]int64{cl: gi(2)}, highest: map[claim]int64{cl: gi(2)}, raised: map[claim]int{}}
	cs.mu.Lock()
	cs.setLocked(cl, gi(3))
	cs.setLocked(cl, 2560*mi)
	cs.mu.Unlock()
	if cs.growths() != 1 || cs.lowers() != 1 || cs.raisesOf([]claim{cl}) != 1 {
		t.Errorf("growths %d, lowers %d, raises %d; want 1 each", cs.growths(), cs.lowers(), cs.raisesOf([]claim{cl}))
	}
	listing := func(pvSize int64) *listing {
		pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: cl.pv()}}
		pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: *resource.NewQuantity(pvSize, resource.BinarySI)}
		return &listing{pvcs: []v1.PersistentVolumeClaim{*pvcAt(cl.name, 2560*mi, 2560*mi, 2560*mi, "")}, pvs: map[string]*v1.PersistentVolume{cl.pv(): pv}}
	}
	if p := cs.sizeProblems(listing(gi(3)), map[string]int64{cl.handle(): gi(3)}); len(p) != 0 {
		t.Errorf("sizeProblems = %q, want none", p)
	}
	if p := cs.sizeProblems(listing(2560*mi), nil); len(p) != 1 {
		t.Errorf("sizeProblems with the PV written down = %q, want one", p)
	}
	if p := cs.sizeProblems(listing(gi(3)), map[string]int64{cl.handle(): 2560 * mi}); len(p) != 1 {
		t.Errorf("sizeProblems with the backend shrunk = %q, want one", p)
	}
}
