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
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func sec(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// TestClassWatch checks the claim watch's record of class states, without
// a cluster.
func TestClassWatch(t *testing.T) {
	w := newClassWatch()
	var now time.Time
	w.now = func() time.Time { return now }
	cl := claim{ns: "chaos", name: "data-000"}
	pvc := func(current string, status v1.PersistentVolumeClaimModifyVolumeStatus, target string) *v1.PersistentVolumeClaim {
		p := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: cl.ns, Name: cl.name}}
		if current != "" {
			p.Status.CurrentVolumeAttributesClassName = ptr.To(current)
		}
		if status != "" {
			p.Status.ModifyVolumeStatus = &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: target, Status: status}
		}
		return p
	}
	for _, step := range []struct {
		at  float64
		pvc *v1.PersistentVolumeClaim
	}{
		{0, pvc("", "", "")},
		{1, pvc("", "", "")}, // a growth: no class change, not recorded
		{2, pvc("", v1.PersistentVolumeClaimModifyVolumePending, "late")},
		{3, pvc("", v1.PersistentVolumeClaimModifyVolumeInProgress, "late")},
		{4, pvc("late", "", "")},
		{5, pvc("late", v1.PersistentVolumeClaimModifyVolumeInProgress, "gold")},
		{6, pvc("late", "", "")}, // canceled: back at rest at late
	} {
		now = sec(step.at)
		w.see(step.pvc)
	}
	seen, events := w.history()
	if events != 7 || len(seen[cl]) != 7 {
		t.Fatalf("events %d, states %+v", events, seen[cl])
	}
	states, _ := mergeHistories(seen, nil)
	if len(states[cl]) != 6 {
		t.Fatalf("merged states %+v, want 6 changes", states[cl])
	}
	if at, ok := settledAt(states[cl], "late"); !ok || !at.Equal(sec(6)) {
		t.Errorf("settledAt(late) = %v, %v; want 6s", at, ok)
	}
	if _, ok := settledAt(states[cl], "gold"); ok {
		t.Errorf("settledAt(gold) found a class the claim is not at")
	}
	if p := seenPending(states); !slices.Equal(p[cl], []string{"late"}) {
		t.Errorf("seenPending = %v", p)
	}
}

// modifyCall is a ControllerModifyVolume span: sent at start, answered at
// end unless the caller left at gone first.
func modifyCall(vol, tier string, start, end, gone float64, code string) span {
	c := csidriver.LoggedCall{Method: csidriver.MethodModify, Pid: 11, VolumeID: vol, Parameters: map[string]string{"tier": tier},
		Start: sec(start), End: sec(end), Deadline: sec(start + 2), Code: code}
	s := span{LoggedCall: c, sent: sec(start), end: sec(end), callerEnd: sec(end)}
	if gone > 0 {
		s.CallerGone, s.callerEnd = sec(gone), sec(gone)
	}
	return s
}

func TestSettledTimes(t *testing.T) {
	a, b, c, d := claim{"n", "a"}, claim{"n", "b"}, claim{"n", "c"}, claim{"n", "d"}
	at := func(settled bool, class string, s float64) classState {
		return classState{at: sec(s), settled: settled, class: class}
	}
	states := map[claim][]classState{
		a: {at(true, "", 0), at(false, "gold", 5), at(true, "gold", 6)},
		b: {at(true, "", 0), at(false, "gold", 5), at(true, "gold", 6), at(false, "silver", 7), at(true, "gold", 8)},
		c: {at(true, "", 0), at(false, "gold", 5)},
		d: {at(true, "", 0)},
	}
	class := map[claim]string{a: "gold", b: "gold", c: "gold"}
	asks := []classAsk{{claim: a, class: "gold", at: sec(4)}, {claim: b, class: "silver", at: sec(6.5)}, {claim: b, class: "gold", at: sec(9)}}
	got := settledTimes([]claim{a, b, c, d}, class, asks, states)
	want := map[string]time.Time{a.handle(): sec(6), b.handle(): sec(9), d.handle(): {}}
	if len(got) != len(want) {
		t.Fatalf("settledTimes = %v, want %v", got, want)
	}
	for v, w := range want {
		if g, ok := got[v]; !ok || !g.Equal(w) {
			t.Errorf("settledTimes[%s] = %v, want %v", v, g, w)
		}
	}
}

func TestCallsAfterSettled(t *testing.T) {
	settled := map[string]time.Time{"v": sec(10), "never": {}}
	expand := span{LoggedCall: csidriver.LoggedCall{Method: csidriver.MethodExpand, VolumeID: "v"}, sent: sec(20)}
	tests := []struct {
		name  string
		calls []span
		bad   int
	}{
		{name: "calls before the record", calls: []span{modifyCall("v", "gold", 5, 6, 0, "OK"), modifyCall("v", "gold", 9, 9.5, 0, "OK")}},
		{name: "a hang sent before and answered after", calls: []span{modifyCall("v", "gold", 8, 13, 10, "OK")}},
		{name: "a call after the record", calls: []span{modifyCall("v", "gold", 11, 11.5, 0, "OK")}, bad: 1},
		{name: "expand calls do not count", calls: []span{expand}},
		{name: "a claim that never asked for a class", calls: []span{modifyCall("never", "gold", 1, 2, 0, "OK")}, bad: 1},
		{name: "an unfinished claim is not judged here", calls: []span{modifyCall("other", "gold", 30, 31, 0, "OK")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if bad := callsAfterSettled(tc.calls, settled); len(bad) != tc.bad {
				t.Errorf("callsAfterSettled = %q, want %d", bad, tc.bad)
			}
		})
	}
}

func TestBackendParams(t *testing.T) {
	gold, silver := map[string]string{"tier": "gold"}, map[string]string{"tier": "silver"}
	settled := map[string]time.Time{"v": sec(10), "none": {}}
	want := map[string]map[string]string{"v": gold, "none": nil}
	tests := []struct {
		name      string
		applied   map[string]map[string]string
		calls     []span
		bad, late int
	}{
		{name: "at the class", applied: map[string]map[string]string{"v": gold}},
		{name: "never modified, never asked", applied: map[string]map[string]string{"v": gold, "none": nil}},
		{name: "at another class", applied: map[string]map[string]string{"v": silver}, calls: []span{modifyCall("v", "silver", 1, 2, 0, "OK")}, bad: 1},
		{name: "modified without asking", applied: map[string]map[string]string{"v": gold, "none": silver}, bad: 1},
		{name: "a hang nobody waited for landed after the record", applied: map[string]map[string]string{"v": silver},
			calls: []span{modifyCall("v", "silver", 7, 12, 9, "OK"), modifyCall("v", "gold", 9.5, 9.6, 0, "OK")}, late: 1},
		{name: "a landing the caller waited for is no excuse", applied: map[string]map[string]string{"v": silver},
			calls: []span{modifyCall("v", "gold", 9.5, 9.6, 0, "OK"), modifyCall("v", "silver", 11, 12, 0, "OK")}, bad: 1},
		{name: "a late landing before the record is no excuse", applied: map[string]map[string]string{"v": silver},
			calls: []span{modifyCall("v", "gold", 3, 3.5, 0, "OK"), modifyCall("v", "silver", 2, 8, 4, "OK")}, bad: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad, late := backendParams(want, tc.applied, tc.calls, settled)
			if len(bad) != tc.bad || len(late) != tc.late {
				t.Errorf("backendParams = %q, late %q; want %d and %d", bad, late, tc.bad, tc.late)
			}
		})
	}
}

func TestFinishTimes(t *testing.T) {
	a, b, c := claim{"n", "a"}, claim{"n", "b"}, claim{"n", "c"}
	at := func(settled bool, class string, s float64) classState {
		return classState{at: sec(s), settled: settled, class: class}
	}
	states := map[claim][]classState{
		// a: gold at 1, done at 3; silver at 5, asked again (bronze) at 6
		// before it settled; bronze done at 9.
		a: {at(true, "", 0), at(false, "gold", 2), at(true, "gold", 3), at(false, "silver", 5.5), at(false, "bronze", 7), at(true, "bronze", 9)},
		// b: gold at 1, never done.
		b: {at(true, "", 0), at(false, "gold", 2)},
		// c: gold at 1 while still at rest at gold (never left): at once.
		c: {at(true, "gold", 0)},
	}
	asks := []classAsk{
		{claim: a, class: "gold", at: sec(1)}, {claim: a, class: "silver", at: sec(5)}, {claim: a, class: "bronze", at: sec(6)},
		{claim: b, class: "gold", at: sec(1)}, {claim: c, class: "gold", at: sec(1)},
	}
	took, superseded, never := finishTimes(asks, states)
	if want := []time.Duration{0, 2 * time.Second, 3 * time.Second}; !slices.Equal(took, want) || superseded != 1 || never != 1 {
		t.Errorf("finishTimes = %v, %d superseded, %d never; want %v, 1, 1", took, superseded, never, want)
	}
	if p := percentile(took, 0.5); p != 2*time.Second {
		t.Errorf("median = %s", p)
	}
}

// TestOverlapMix checks that expand and modify calls on one volume count
// together, by methods.
func TestOverlapMix(t *testing.T) {
	resizers := []framework.Lifetime{{Pid: 11, Start: sec(0), End: sec(100)}}
	call := func(method string, start, end float64) csidriver.LoggedCall {
		return csidriver.LoggedCall{Driver: 1, Method: method, Pid: 11, VolumeID: "v", Start: sec(start), End: sec(end), Deadline: sec(start + 2), Code: "OK"}
	}
	tests := []struct {
		name  string
		calls []csidriver.LoggedCall
		want  []overlapMix
	}{
		{name: "modify after expand", calls: []csidriver.LoggedCall{call(csidriver.MethodExpand, 1, 1.5), call(csidriver.MethodModify, 2, 2.5)}},
		{name: "modify during expand", calls: []csidriver.LoggedCall{call(csidriver.MethodExpand, 1, 1.5), call(csidriver.MethodModify, 1.2, 2)}, want: []overlapMix{expandModify}},
		{name: "two modifies", calls: []csidriver.LoggedCall{call(csidriver.MethodModify, 1, 1.5), call(csidriver.MethodModify, 1.2, 2)}, want: []overlapMix{modifyModify}},
		{name: "an old log without methods", calls: []csidriver.LoggedCall{call("", 1, 1.5), call("", 1.2, 2)}, want: []overlapMix{expandExpand}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			known, _ := spans(tc.calls, resizers, nil, 2*time.Second, sec(200))
			var got []overlapMix
			for _, o := range overlaps(known) {
				if o.kind != bothWaiting {
					t.Errorf("kind = %s, want two callers waiting", o.kind)
				}
				got = append(got, o.mix())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("mixes = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLateAtRest(t *testing.T) {
	a, b, c, d := claim{"n", "a"}, claim{"n", "b"}, claim{"n", "c"}, claim{"n", "d"}
	at := func(settled bool, class string, s float64) classState {
		return classState{at: sec(s), settled: settled, class: class}
	}
	pending := func(s float64) classState {
		return classState{at: sec(s), class: "late", status: v1.PersistentVolumeClaimModifyVolumePending}
	}
	states := map[claim][]classState{
		a: {at(true, "", 0), pending(2), at(false, "late", 10.5), at(true, "late", 11)}, // created at 10, at rest 1s later
		b: {at(true, "", 0), pending(2), at(false, "gold", 6), at(true, "gold", 7)},     // asked for gold at 5: superseded
		c: {at(true, "", 0), pending(2)},                                                // stuck
		d: {at(true, "", 0), at(false, "late", 21), at(true, "late", 22)},               // asked after the creation: not followed
	}
	asks := []classAsk{
		{claim: a, class: "late", at: sec(1)},
		{claim: b, class: "late", at: sec(1)}, {claim: b, class: "gold", at: sec(5)},
		{claim: c, class: "late", at: sec(1)},
		{claim: d, class: "late", at: sec(20)},
	}
	took, superseded, stuck := lateAtRest(asks, states, "late", sec(10))
	if !slices.Equal(took, []time.Duration{time.Second}) || superseded != 1 || len(stuck) != 1 {
		t.Errorf("lateAtRest = %v, %d superseded, stuck %q; want [1s], 1, one stuck", took, superseded, stuck)
	}
}

// TestClassProblems checks the final class check, and that the size check
// leaves the modify conditions to it.
func TestClassProblems(t *testing.T) {
	classed, plain := claim{ns: "chaos", name: "data-000"}, claim{ns: "chaos", name: "data-001"}
	cs := &claims{list: []claim{classed, plain}, want: map[claim]int64{classed: gi(1), plain: gi(1)}, highest: map[claim]int64{classed: gi(1), plain: gi(1)}, class: map[claim]string{classed: "gold"}}
	type state struct {
		spec, current, pv string
		status            *v1.ModifyVolumeStatus
		conds             []v1.PersistentVolumeClaimConditionType
	}
	build := func(s, other state) *listing {
		l := &listing{pvs: map[string]*v1.PersistentVolume{}}
		for cl, st := range map[claim]state{classed: s, plain: other} {
			pvc := v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: cl.ns, Name: cl.name}}
			pvc.Spec.Resources.Requests = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
			pvc.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
			pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: cl.pv()}}
			pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
			if st.spec != "" {
				pvc.Spec.VolumeAttributesClassName = ptr.To(st.spec)
			}
			if st.current != "" {
				pvc.Status.CurrentVolumeAttributesClassName = ptr.To(st.current)
			}
			if st.pv != "" {
				pv.Spec.VolumeAttributesClassName = ptr.To(st.pv)
			}
			pvc.Status.ModifyVolumeStatus = st.status
			for _, c := range st.conds {
				pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{Type: c, Status: v1.ConditionTrue})
			}
			l.pvcs = append(l.pvcs, pvc)
			l.pvs[cl.pv()] = pv
		}
		return l
	}
	done := state{spec: "gold", current: "gold", pv: "gold"}
	tests := []struct {
		name       string
		classed    state
		plain      state
		sizes, bad int
	}{
		{name: "at the class", classed: done},
		{name: "status not there yet", classed: state{spec: "gold", pv: "gold"}, bad: 1},
		{name: "in progress", classed: state{spec: "gold", current: "silver", pv: "silver",
			status: &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "gold", Status: v1.PersistentVolumeClaimModifyVolumeInProgress}}, bad: 1},
		{name: "a modify condition left", classed: state{spec: "gold", current: "gold", pv: "gold",
			conds: []v1.PersistentVolumeClaimConditionType{v1.PersistentVolumeClaimVolumeModifyVolumeError}}, bad: 1},
		{name: "PV behind", classed: state{spec: "gold", current: "gold", pv: "silver"}, bad: 1},
		{name: "spec not the last ask", classed: state{spec: "silver", current: "silver", pv: "silver"}, bad: 1},
		{name: "a class on a claim that never asked", classed: done, plain: state{current: "gold"}, bad: 1},
		{name: "a resize condition is the size check's", classed: state{spec: "gold", current: "gold", pv: "gold",
			conds: []v1.PersistentVolumeClaimConditionType{v1.PersistentVolumeClaimResizing}}, sizes: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := build(tc.classed, tc.plain)
			if p := cs.classProblems(l); len(p) != tc.bad {
				t.Errorf("classProblems = %q, want %d", p, tc.bad)
			}
			if p := cs.sizeProblems(l, nil); len(p) != tc.sizes {
				t.Errorf("sizeProblems = %q, want %d", p, tc.sizes)
			}
		})
	}
}
