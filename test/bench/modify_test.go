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

package main

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

func TestIsModified(t *testing.T) {
	claim := func(current string, status *v1.ModifyVolumeStatus, conditions ...v1.PersistentVolumeClaimConditionType) *v1.PersistentVolumeClaim {
		pvc := &v1.PersistentVolumeClaim{}
		if current != "" {
			pvc.Status.CurrentVolumeAttributesClassName = ptr.To(current)
		}
		pvc.Status.ModifyVolumeStatus = status
		for _, c := range conditions {
			pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{Type: c, Status: v1.ConditionTrue})
		}
		return pvc
	}
	inProgress := &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "fast", Status: v1.PersistentVolumeClaimModifyVolumeInProgress}
	tests := []struct {
		name        string
		pvc         *v1.PersistentVolumeClaim
		want, error bool
	}{
		{name: "no class", pvc: claim("", nil)},
		{name: "still the old class", pvc: claim("standard", nil)},
		{name: "intent recorded", pvc: claim("standard", inProgress, v1.PersistentVolumeClaimVolumeModifyingVolume)},
		{name: "failed", pvc: claim("standard", inProgress, v1.PersistentVolumeClaimVolumeModifyingVolume, v1.PersistentVolumeClaimVolumeModifyVolumeError), error: true},
		{name: "new class with the status left", pvc: claim("fast", inProgress)},
		{name: "new class with a condition left", pvc: claim("fast", nil, v1.PersistentVolumeClaimVolumeModifyingVolume)},
		{name: "new class with an error left", pvc: claim("fast", nil, v1.PersistentVolumeClaimVolumeModifyVolumeError), error: true},
		{name: "modified", pvc: claim("fast", nil), want: true},
		{name: "modified, a resize condition does not matter", pvc: claim("fast", nil, v1.PersistentVolumeClaimResizing), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := isModified(tc.pvc, "fast"); got != tc.want {
				t.Errorf("isModified = %v, want %v", got, tc.want)
			}
			if got := modifyErrored(tc.pvc); got != tc.error {
				t.Errorf("modifyErrored = %v, want %v", got, tc.error)
			}
		})
	}
}

func TestWrongParameters(t *testing.T) {
	want := map[string]string{"iops": "16000"}
	calls := []framework.Call{
		{Parameters: map[string]string{"iops": "16000"}},
		{Parameters: map[string]string{"iops": "3000"}},
		{Parameters: map[string]string{"iops": "16000", "csi.storage.k8s.io/pvc/name": "x"}},
		{},
	}
	if got := wrongParameters(calls, want); got != 3 {
		t.Errorf("wrongParameters = %d, want 3", got)
	}
}

// modifyRequests are the resizer's requests in a modify run: claim status
// patches, PV patches, event writes and GETs of classes as given, plus a
// start-up discovery GET and two watches.
func modifyRequests(statusPatches, pvPatches, events, vacGets int) tally {
	var reqs []request
	reqs = append(reqs, repeat(request{requestKey: requestKey{"patch", "persistentvolumeclaims", "status"}, Code: 200}, statusPatches)...)
	reqs = append(reqs, repeat(request{requestKey: requestKey{"patch", "persistentvolumes", ""}, Code: 200}, pvPatches)...)
	reqs = append(reqs, repeat(request{requestKey: requestKey{"create", "events", ""}, Code: 201}, events)...)
	reqs = append(reqs, repeat(request{requestKey: requestKey{"get", "volumeattributesclasses.storage.k8s.io", ""}, Code: 200}, vacGets)...)
	reqs = append(reqs,
		request{requestKey: requestKey{"get", "/apis/storage.k8s.io/v1", ""}, Code: 200},
		request{requestKey: requestKey{"watch", "persistentvolumeclaims", ""}, Code: 200},
		request{requestKey: requestKey{"watch", "volumeattributesclasses.storage.k8s.io", ""}, Code: 200})
	return count(reqs)
}

func TestOtherWrites(t *testing.T) {
	tl := modifyRequests(1000, 500, 1000, 0)
	if got := otherWrites(tl); got != 0 {
		t.Errorf("otherWrites = %d, want 0", got)
	}
	tl.ByKey[requestKey{"update", "persistentvolumeclaims", ""}] += 7
	tl.ByClass[classWrite] += 7
	if got := otherWrites(tl); got != 7 {
		t.Errorf("otherWrites = %d, want 7", got)
	}
}

func TestModifyTargets(t *testing.T) {
	run := func(s string, wall time.Duration, req tally, pvs, calls int) *modifyResult {
		return &modifyResult{throughputResult: throughputResult{Setting: knownSettings[s], N: 500, Wall: wall, Requests: req,
			DriverCalls: calls, Volumes: calls}, From: modifyFrom, To: modifyTo, PVsAtTarget: pvs}
	}
	r := &results{Modify: []*modifyResult{
		run("default", 299*time.Second, modifyRequests(1000, 500, 1000, 0), 500, 500),
		run("fast", 14*time.Second, modifyRequests(1001, 500, 1000, 2), 499, 500),
	}}
	got := map[string]target{}
	for _, tg := range r.targets() {
		got[tg.Goal] = tg
	}
	want := map[string]bool{
		"Writes per modify, events excluded, at default: 3.0":                              true,
		"Writes per modify, events excluded, at fast: 3.0":                                 false,
		"No GET of objects the informers hold, modify at default":                          true,
		"No GET of objects the informers hold, modify at fast":                             false,
		"Every PV at its claim's new class, one driver call per volume, modify at default": true,
		"Every PV at its claim's new class, one driver call per volume, modify at fast":    false,
		"Modify throughput at defaults ≥ 0.95 × (5 QPS ÷ 3 writes) = 1.583 modifies/s":     true,
	}
	for goal, met := range want {
		if g, ok := got[goal]; !ok || g.Met != met {
			t.Errorf("%q: met=%v (present: %v), want met=%v", goal, g.Met, ok, met)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d targets, want %d: %v", len(got), len(want), got)
	}
	if m := got["No GET of objects the informers hold, modify at default"].Measured; !strings.Contains(m, "1 × `get /apis/storage.k8s.io/v1`") {
		t.Errorf("the discovery GET is not named: %s", m)
	}
}

func TestModifyTables(t *testing.T) {
	m := &modifyResult{throughputResult: throughputResult{Setting: knownSettings["fast"], N: 500, Wall: 13 * time.Second,
		Requests: modifyRequests(1000, 500, 1000, 0), DriverCalls: 500, Volumes: 500, CPU: 2 * time.Second},
		From: modifyFrom, To: modifyTo, PVsAtTarget: 500}
	var b strings.Builder
	(&results{Modify: []*modifyResult{m}}).writeMarkdown(&b)
	out := b.String()
	for _, want := range []string{
		"### Modify: N claims change VolumeAttributesClass at once",
		"| QPS 100 / burst 200 / 50 workers | 500 | 13.00 s | 13.00 s | 38.46 |",
		"| 3.00 | 2.00 | 0.00 | 1.00 | 500 of 500 |",
		"| QPS 100 / burst 200 / 50 workers | 2.00 | 1.00 | 2.00 | 0.00 | 3.00 |",
		"| `patch persistentvolumeclaims/status` | write | 1000 | 2.00 |",
		"| `watch volumeattributesclasses.storage.k8s.io` | list/watch | 1 | – |",
		"ControllerModifyVolume calls: 500 for 500 volumes.",
		"| 4.0 ms |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "### Throughput") {
		t.Error("a report of modify runs only has a throughput section")
	}
}
