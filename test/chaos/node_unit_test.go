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
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// managed is a managedFields entry of manager on the status subresource.
func managed(manager, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

func TestCapacityManagers(t *testing.T) {
	const (
		capacity  = `{"f:status":{"f:capacity":{".":{},"f:storage":{}}}}`
		allocated = `{"f:status":{"f:allocatedResources":{"f:storage":{}},"f:capacity":{".":{}}}}`
	)
	for _, tc := range []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		want    []string
	}{
		{name: "kubelet wrote it", entries: []metav1.ManagedFieldsEntry{managed("chaos.test", allocated), managed("kubelet", capacity)}, want: []string{"kubelet"}},
		{name: "the resizer wrote it", entries: []metav1.ManagedFieldsEntry{managed("csi-resizer", capacity), managed("kubelet", allocated)}, want: []string{"csi-resizer"}},
		{name: "owned twice", entries: []metav1.ManagedFieldsEntry{managed("kubelet", capacity), managed("csi-resizer", capacity)}, want: []string{"csi-resizer", "kubelet"}},
		{name: "the map but not the size", entries: []metav1.ManagedFieldsEntry{managed("kubelet", allocated)}},
		{name: "malformed", entries: []metav1.ManagedFieldsEntry{managed("kubelet", `{"f:status":`)}},
		{name: "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pvc := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{ManagedFields: tc.entries}}
			if got := capacityManagers(pvc); !slices.Equal(got, tc.want) {
				t.Errorf("capacityManagers = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNodeExpandedBefore(t *testing.T) {
	expand := func(pid int, volume string, bytes int64, end float64, code string) csidriver.LoggedCall {
		return csidriver.LoggedCall{Method: csidriver.MethodNodeExpand, Pid: pid, VolumeID: volume, RequiredBytes: bytes,
			Start: sec(end - 0.1), End: sec(end), Code: code}
	}
	kubelet := func(pid int) bool { return pid == 10 }
	for _, tc := range []struct {
		name  string
		calls []csidriver.LoggedCall
		want  bool
	}{
		{name: "expanded before", calls: []csidriver.LoggedCall{expand(10, "vol-1", gi(3), 4, "OK")}, want: true},
		{name: "expanded after", calls: []csidriver.LoggedCall{expand(10, "vol-1", gi(3), 6, "OK")}},
		{name: "failed", calls: []csidriver.LoggedCall{expand(10, "vol-1", gi(3), 4, "Internal")}},
		{name: "another size", calls: []csidriver.LoggedCall{expand(10, "vol-1", gi(2), 4, "OK")}},
		{name: "another volume", calls: []csidriver.LoggedCall{expand(10, "vol-2", gi(3), 4, "OK")}},
		{name: "not kubelet", calls: []csidriver.LoggedCall{expand(11, "vol-1", gi(3), 4, "OK")}},
		{name: "still running", calls: []csidriver.LoggedCall{{Method: csidriver.MethodNodeExpand, Pid: 10, VolumeID: "vol-1", RequiredBytes: gi(3), Start: sec(4)}}},
		{name: "a stage call", calls: []csidriver.LoggedCall{{Method: csidriver.MethodNodeStage, Pid: 10, VolumeID: "vol-1", RequiredBytes: gi(3), Start: sec(3), End: sec(4), Code: "OK"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, got := nodeExpandedBefore(tc.calls, "vol-1", gi(3), sec(5), kubelet); got != tc.want {
				t.Errorf("nodeExpandedBefore = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadRates(t *testing.T) {
	get := func(name string, at float64, agent, subresource string) framework.AuditEvent {
		var e framework.AuditEvent
		e.Verb, e.UserAgent, e.Received = "get", agent, sec(at)
		e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name, e.ObjectRef.Subresource = "persistentvolumeclaims", "chaos", name, subresource
		return e
	}
	const kubelet = "kubelet/v1.36.4 (linux/amd64) kubernetes/abc"
	a, b, c := claim{"chaos", "data-a"}, claim{"chaos", "data-b"}, claim{"chaos", "data-c"}
	var events []framework.AuditEvent
	for i := range 40 {
		events = append(events, get("data-a", 10+float64(i)*0.5, kubelet, "")) // 2/s from 10s to 30s
	}
	events = append(events,
		get("data-a", 5, kubelet, ""),             // before it was at rest
		get("data-a", 12, "csi-resizer/v0.1", ""), // not kubelet
		get("data-a", 13, kubelet, "status"),      // a subresource
		get("data-b", 15, kubelet, ""), get("data-b", 25, kubelet, ""),
		get("data-c", 29, kubelet, ""))
	rested := map[claim]time.Time{a: sec(10), b: sec(10), c: sec(25)}
	rates := readRates(events, rested, sec(30), 10*time.Second)
	if len(rates) != 2 || rates[a] != 2 || rates[b] != 0.1 {
		t.Errorf("readRates = %v, want data-a 2/s, data-b 0.1/s and data-c left out (at rest 5s)", rates)
	}
}

func TestNodeSteps(t *testing.T) {
	a, b := claim{"chaos", "data-a"}, claim{"chaos", "data-b"}
	pvs := map[string]map[int64]time.Time{
		a.pv(): {gi(1): sec(0), gi(2): sec(10), gi(3): sec(20)},
		b.pv(): {gi(1): sec(0), gi(2): sec(11)},
	}
	claims := map[claim]map[int64]time.Time{
		a: {gi(1): sec(0), gi(2): sec(15), gi(3): sec(27)},
		b: {gi(1): sec(0), gi(2): sec(12), gi(4): sec(30)}, // no PV at 4Gi seen
	}
	got := nodeSteps([]claim{a, b}, pvs, claims)
	want := []time.Duration{time.Second, 5 * time.Second, 7 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("nodeSteps = %v, want %v", got, want)
	}
}

func TestSizeWatch(t *testing.T) {
	w := newSizeWatch()
	var now time.Time
	w.now = func() time.Time { return now }
	pvc := func(capacity string, status v1.ClaimResourceStatus, conditions ...v1.PersistentVolumeClaimConditionType) *v1.PersistentVolumeClaim {
		p := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "chaos", Name: "data-000"}}
		if capacity != "" {
			p.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(capacity)}
		}
		if status != "" {
			p.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: status}
		}
		for _, c := range conditions {
			p.Status.Conditions = append(p.Status.Conditions, v1.PersistentVolumeClaimCondition{Type: c, Status: v1.ConditionTrue})
		}
		return p
	}
	for i, p := range []*v1.PersistentVolumeClaim{
		pvc("", ""), // created, no status yet
		pvc("1Gi", ""),
		pvc("1Gi", v1.PersistentVolumeClaimNodeResizePending),
		pvc("1Gi", v1.PersistentVolumeClaimNodeResizeInProgress, v1.PersistentVolumeClaimNodeResizeError),
		pvc("2Gi", ""),
		pvc("2Gi", v1.PersistentVolumeClaimNodeResizeInfeasible),
		pvc("1Gi", ""),
	} {
		now = sec(float64(i))
		w.see(p)
	}
	f := w.figures()
	cl := claim{"chaos", "data-000"}
	if len(f.decreases) != 1 || len(f.infeasible) != 1 || f.events != 7 {
		t.Errorf("decreases %q, infeasible %q, %d events; want one each, 7 events", f.decreases, f.infeasible, f.events)
	}
	if got := f.reached[cl]; len(got) != 2 || !got[gi(1)].Equal(sec(1)) || !got[gi(2)].Equal(sec(4)) {
		t.Errorf("reached = %v, want 1Gi at 1s and 2Gi at 4s", got)
	}
	if f.statuses["NodeResizePending"] != 1 || f.statuses["NodeResizeInfeasible"] != 1 || f.conditions["NodeResizeError"] != 1 {
		t.Errorf("statuses %v, conditions %v", f.statuses, f.conditions)
	}
}

func TestNodeSchedule(t *testing.T) {
	s := schedule{window: time.Minute, resizerKills: 3, driverKills: 1, waves: 2, nodeResizerKills: 2, nodeDriverKills: 1, kubeletRestarts: 3}
	before := s.plan(rand.New(rand.NewPCG(1, 1)))
	steps := mergeSteps(s.plan(rand.New(rand.NewPCG(1, 1))), s.planNode(rand.New(rand.NewPCG(1, 2))))
	counts := map[action]int{}
	var others []step
	for i, st := range steps {
		counts[st.what]++
		if i > 0 && st.at < steps[i-1].at {
			t.Errorf("step %d at %s comes after one at %s", i, st.at, steps[i-1].at)
		}
		if st.at < 0 || st.at > s.window {
			t.Errorf("step %s at %s, outside the window", st.what, st.at)
		}
		switch st.what {
		case killNodeResizer, killNodeDriver, restartKubelet:
		default:
			others = append(others, st)
		}
	}
	if counts[killNodeResizer] != 2 || counts[killNodeDriver] != 1 || counts[restartKubelet] != 3 {
		t.Errorf("node steps %v", counts)
	}
	if !slices.Equal(others, before) {
		t.Errorf("the node share changed the other steps:\n%v\nwant\n%v", others, before)
	}
}

func TestPickNodeShare(t *testing.T) {
	for _, tc := range []struct{ n, k, want int }{{200, 50, 50}, {10, 0, 0}, {10, -1, 0}, {10, 20, 10}} {
		got := pickNodeShare(rand.New(rand.NewPCG(7, 7)), tc.n, tc.k)
		if len(got) != tc.want {
			t.Errorf("pickNodeShare(%d, %d) picked %d, want %d", tc.n, tc.k, len(got), tc.want)
		}
		for i := range got {
			if i < 0 || i >= tc.n {
				t.Errorf("pickNodeShare(%d, %d) picked %d", tc.n, tc.k, i)
			}
		}
	}
}
