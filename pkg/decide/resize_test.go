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

package decide

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func q(s string) resource.Quantity { return resource.MustParse(s) }

func qp(s string) *resource.Quantity {
	v := q(s)
	return &v
}

func failedResize(c Class, target string, ago time.Duration) *ResizeFailure {
	return &ResizeFailure{Class: c, Target: q(target), At: t0.Add(-ago)}
}

// short is a remembered short answer to target.
func short(target string, ago time.Duration) *ResizeFailure {
	return &ResizeFailure{Class: Infeasible, Reason: ReasonShort, Target: q(target), At: t0.Add(-ago)}
}

// failedInUse is a remembered FailedPrecondition: the volume is in use.
func failedInUse(target string, ago time.Duration) *ResizeFailure {
	return &ResizeFailure{Class: Final, Reason: "FailedPrecondition", Target: q(target), At: t0.Add(-ago)}
}

const (
	ctrlProgress   = v1.PersistentVolumeClaimControllerResizeInProgress
	ctrlInfeasible = v1.PersistentVolumeClaimControllerResizeInfeasible
	nodePending    = v1.PersistentVolumeClaimNodeResizePending
	nodeProgress   = v1.PersistentVolumeClaimNodeResizeInProgress
	nodeInfeasible = v1.PersistentVolumeClaimNodeResizeInfeasible
)

func TestDecideResize(t *testing.T) {
	tests := []struct {
		name       string
		state      ResizeState
		wantAction ResizeAction
		wantTarget string
		wantIntent bool
		wantAfter  time.Duration
	}{
		// Nothing recorded.
		{name: "request equals capacity: nothing", state: ResizeState{Request: q("1Gi"), Capacity: q("1Gi"), PVSize: q("1Gi")}, wantAction: ResizeNone},
		// kubelet finished at the recorded size; the driver allocated more.
		{name: "kubelet finished below the volume's size the driver gave for it: settle at the volume's size",
			state: ResizeState{Request: q("1500Mi"), Capacity: q("1500Mi"), PVSize: q("2Gi"), Allocated: qp("1500Mi"),
				Rounded: &Rounding{Target: q("1500Mi"), Size: q("2Gi")}},
			wantAction: RecordVolumeSize, wantTarget: "2Gi"},
		{name: "kubelet finished below the volume's size, and the resizer restarted since: kubelet's size stands",
			state:      ResizeState{Request: q("1500Mi"), Capacity: q("1500Mi"), PVSize: q("2Gi"), Allocated: qp("1500Mi")},
			wantAction: ResizeNone},
		{name: "kubelet finished at a lowered request after refusing a larger target: kubelet's size stands",
			state: ResizeState{Request: q("2Gi"), Capacity: q("2Gi"), PVSize: q("3Gi"), Allocated: qp("2Gi"), Recovery: true,
				Rounded: &Rounding{Target: q("3Gi"), Size: q("3Gi")}},
			wantAction: ResizeNone},
		{name: "kubelet finished below the volume's size, the request raised within it: to kubelet at the request",
			state:      ResizeState{Request: q("2560Mi"), Capacity: q("2Gi"), PVSize: q("3Gi"), Allocated: qp("2Gi"), Recovery: true},
			wantAction: NodeRetry, wantTarget: "2560Mi"},
		{name: "kubelet finished below the volume's size, the request raised beyond it: expand to the request",
			state:      ResizeState{Request: q("4Gi"), Capacity: q("2Gi"), PVSize: q("3Gi"), Allocated: qp("2Gi"), Recovery: true},
			wantAction: Expand, wantTarget: "4Gi", wantIntent: true},
		{name: "AnnotateFsResize: the claim has the volume's size, the PV its annotation: drop it",
			state:      ResizeState{Request: q("2Gi"), Capacity: q("2Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), PreResizeAnnotated: true},
			wantAction: DropPreResizeCapacity, wantTarget: "0"},
		{name: "AnnotateFsResize: kubelet has not finished: the annotation stays",
			state:      ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), Status: nodePending, PreResizeAnnotated: true},
			wantAction: ResizeNone},
		{name: "AnnotateFsResize: kubelet finished below the volume: the annotation stays, as upstream's",
			state:      ResizeState{Request: q("2Gi"), Capacity: q("2Gi"), PVSize: q("3Gi"), Allocated: qp("2Gi"), PreResizeAnnotated: true},
			wantAction: ResizeNone},
		{name: "the driver's larger size was for another target: kubelet's size stands",
			state: ResizeState{Request: q("1500Mi"), Capacity: q("1500Mi"), PVSize: q("3Gi"), Allocated: qp("1500Mi"),
				Rounded: &Rounding{Target: q("1500Mi"), Size: q("2Gi")}},
			wantAction: ResizeNone},
		{name: "settled: nothing",
			state:      ResizeState{Request: q("1500Mi"), Capacity: q("2Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi")},
			wantAction: ResizeNone},
		{name: "kubelet has not finished: nothing yet",
			state:      ResizeState{Request: q("1500Mi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("1500Mi"), Status: nodePending},
			wantAction: ResizeNone},
		{name: "no size recorded (an older resizer, or a bigger PV bound): not ours to settle",
			state:      ResizeState{Request: q("1Gi"), Capacity: q("1Gi"), PVSize: q("2Gi")},
			wantAction: ResizeNone},
		{name: "capacity not the recorded size: not a finish of ours",
			state:      ResizeState{Request: q("1Gi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("1500Mi")},
			wantAction: ResizeNone},
		{name: "kubelet found the request infeasible, the volume holds more: nothing until the request changes",
			state:      ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2560Mi"), Allocated: qp("2Gi"), Status: nodeInfeasible},
			wantAction: ResizeNone},
		{name: "kubelet found the size infeasible, the request lowered within the volume: back to kubelet at the request",
			state:      ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("3Gi"), Allocated: qp("3Gi"), Status: nodeInfeasible, Recovery: true},
			wantAction: NodeRetry, wantTarget: "2Gi"},
		{name: "the same without recovery: nothing",
			state:      ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("3Gi"), Allocated: qp("3Gi"), Status: nodeInfeasible},
			wantAction: ResizeNone},
		{name: "kubelet found the size infeasible, the request raised beyond it: expand",
			state:      ResizeState{Request: q("4Gi"), Capacity: q("1Gi"), PVSize: q("3Gi"), Allocated: qp("3Gi"), Status: nodeInfeasible, Recovery: true},
			wantAction: Expand, wantTarget: "4Gi", wantIntent: true},
		{name: "a larger request after kubelet finished: expand, not settle",
			state:      ResizeState{Request: q("3Gi"), Capacity: q("1500Mi"), PVSize: q("2Gi"), Allocated: qp("1500Mi")},
			wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
		{name: "request below capacity: never shrink", state: ResizeState{Request: q("1Gi"), Capacity: q("2Gi"), PVSize: q("2Gi")}, wantAction: ResizeNone},
		{name: "request above capacity: expand to request", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("1Gi")}, wantAction: Expand, wantTarget: "2Gi", wantIntent: true},
		{name: "no status capacity yet: expand", state: ResizeState{Request: q("2Gi"), PVSize: q("1Gi")}, wantAction: Expand, wantTarget: "2Gi", wantIntent: true},
		{name: "PV already grown, status not: expand (idempotent) to request", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2Gi")}, wantAction: Expand, wantTarget: "2Gi", wantIntent: true},
		{name: "PV larger than request: target never below PV", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("3Gi")}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
		{name: "finished earlier, request raised again", state: ResizeState{Request: q("3Gi"), Capacity: q("2Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi")}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},

		// ControllerResizeInProgress: an unfinished controller step.
		{name: "in progress, intent recorded: retry without a write", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("2Gi"), Status: ctrlProgress}, wantAction: Expand, wantTarget: "2Gi"},
		{name: "in progress after restart, PV already grown: finish", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), Status: ctrlProgress}, wantAction: Expand, wantTarget: "2Gi"},
		{name: "in progress with request equal to capacity: still finish the step", state: ResizeState{Request: q("1Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("2Gi"), Status: ctrlProgress}, wantAction: Expand, wantTarget: "2Gi"},
		{name: "uncertain remembered, user lowered request: keep recorded size", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlProgress, LastFailure: failedResize(Uncertain, "5Gi", time.Second)}, wantAction: Expand, wantTarget: "5Gi"},
		{name: "uncertain remembered, user raised request: keep recorded size", state: ResizeState{Request: q("9Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlProgress, LastFailure: failedResize(Uncertain, "5Gi", time.Second)}, wantAction: Expand, wantTarget: "5Gi"},
		{name: "uncertain remembered beats a stale error condition", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlProgress, ErrorRecorded: true, LastFailure: failedResize(Uncertain, "5Gi", time.Second)}, wantAction: Expand, wantTarget: "5Gi", wantIntent: true},
		{name: "final remembered, user lowered request: expand to request", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlProgress, ErrorRecorded: true, LastFailure: failedResize(Final, "5Gi", time.Second), Recovery: true}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
		{name: "final remembered, request unchanged: retry and clear the error", state: ResizeState{Request: q("5Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlProgress, ErrorRecorded: true, LastFailure: failedResize(Final, "5Gi", time.Second), Recovery: true}, wantAction: Expand, wantTarget: "5Gi", wantIntent: true},
		{name: "final recorded, memory lost by restart, user lowered: expand to request", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlProgress, ErrorRecorded: true, Recovery: true}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
		{name: "final remembered, recovery off: lowered request does not replace recorded size", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlProgress, ErrorRecorded: true, LastFailure: failedResize(Final, "5Gi", time.Second)}, wantAction: Expand, wantTarget: "5Gi", wantIntent: true},
		{name: "in-use remembered counts as final: user lowered request", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlProgress, LastFailure: failedInUse("5Gi", time.Second), Recovery: true}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},

		// ControllerResizeInfeasible: slow lane.
		{name: "infeasible remembered, same size, not due: wait", state: ResizeState{Request: q("5Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlInfeasible, ErrorRecorded: true, LastFailure: failedResize(Infeasible, "5Gi", time.Minute), Recovery: true}, wantAction: ResizeWait, wantTarget: "5Gi", wantAfter: 4 * time.Minute},
		{name: "infeasible remembered, same size, due: retry", state: ResizeState{Request: q("5Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlInfeasible, ErrorRecorded: true, LastFailure: failedResize(Infeasible, "5Gi", retry), Recovery: true}, wantAction: Expand, wantTarget: "5Gi", wantIntent: true},
		{name: "infeasible remembered, user lowered request: expand now", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlInfeasible, ErrorRecorded: true, LastFailure: failedResize(Infeasible, "5Gi", time.Second), Recovery: true}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
		{name: "short answer remembered, kubelet finished at it and cleared the condition: record it again", state: ResizeState{Request: q("3Gi"), Capacity: q("2Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), LastFailure: short("3Gi", time.Second), Recovery: true}, wantAction: RecordShort, wantTarget: "3Gi"},
		{name: "short answer remembered and recorded: wait for the slow lane", state: ResizeState{Request: q("3Gi"), Capacity: q("2Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), ErrorRecorded: true, LastFailure: short("3Gi", time.Second), Recovery: true}, wantAction: ResizeWait, wantTarget: "3Gi", wantAfter: retry - time.Second},
		{name: "short answer remembered, kubelet still at work: kubelet owns it", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), Status: v1.PersistentVolumeClaimNodeResizePending, ErrorRecorded: true, LastFailure: short("3Gi", time.Second), Recovery: true}, wantAction: ResizeNone},
		{name: "short answer remembered, the request changed: expand now", state: ResizeState{Request: q("4Gi"), Capacity: q("2Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), LastFailure: short("3Gi", time.Second), Recovery: true}, wantAction: Expand, wantTarget: "4Gi", wantIntent: true},
		{name: "infeasible recorded, memory lost by restart: retry once now", state: ResizeState{Request: q("5Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlInfeasible, ErrorRecorded: true, Recovery: true}, wantAction: Expand, wantTarget: "5Gi", wantIntent: true},
		{name: "infeasible, request lowered back to capacity: nothing", state: ResizeState{Request: q("1Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("5Gi"), Status: ctrlInfeasible, ErrorRecorded: true, Recovery: true}, wantAction: ResizeNone},

		// Node steps: kubelet owns the volume once the PV holds the size.
		{name: "node pending, PV holds allocated: kubelet owns it", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), Status: nodePending}, wantAction: ResizeNone},
		{name: "node in progress, PV holds allocated: kubelet owns it", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), Status: nodeProgress}, wantAction: ResizeNone},
		{name: "node pending, request raised meanwhile: kubelet finishes first", state: ResizeState{Request: q("4Gi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("2Gi"), Status: nodePending}, wantAction: ResizeNone},
		{name: "node pending, PV below allocated: finish controller part", state: ResizeState{Request: q("4Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Allocated: qp("2Gi"), Status: nodePending}, wantAction: Expand, wantTarget: "2Gi", wantIntent: true},
		{name: "node pending without allocated: expand to request", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("1Gi"), Status: nodePending}, wantAction: Expand, wantTarget: "2Gi", wantIntent: true},
		{name: "node infeasible at the size just handed back: hand it back once more", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("4Gi"), Allocated: qp("2Gi"), Status: nodeInfeasible, HandedBack: &HandBack{Target: q("2Gi")}, Recovery: true}, wantAction: NodeRetry, wantTarget: "2Gi"},
		{name: "node infeasible at the size handed back twice: wait for the user", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("4Gi"), Allocated: qp("2Gi"), Status: nodeInfeasible, HandedBack: &HandBack{Target: q("2Gi"), Again: true}, Recovery: true}, wantAction: ResizeNone},
		{name: "node infeasible at another size than the one handed back: wait for the user", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("4Gi"), Allocated: qp("3Gi"), Status: nodeInfeasible, HandedBack: &HandBack{Target: q("2Gi")}, Recovery: true}, wantAction: ResizeNone},
		{name: "node infeasible at the size handed back, recovery off: wait for the user", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("4Gi"), Allocated: qp("2Gi"), Status: nodeInfeasible, HandedBack: &HandBack{Target: q("2Gi")}}, wantAction: ResizeNone},
		{name: "node infeasible, request unchanged: wait for the user", state: ResizeState{Request: q("5Gi"), Capacity: q("1Gi"), PVSize: q("5Gi"), Allocated: qp("5Gi"), Status: nodeInfeasible, Recovery: true}, wantAction: ResizeNone},
		{name: "node infeasible, user lowered request above PV: expand to request", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("2Gi"), Allocated: qp("5Gi"), Status: nodeInfeasible, Recovery: true}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
		{name: "node infeasible, request lowered below PV: back to kubelet at the request", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("4Gi"), Allocated: qp("4Gi"), Status: nodeInfeasible, Recovery: true}, wantAction: NodeRetry, wantTarget: "2Gi"},
		{name: "node infeasible, PV grown past the recorded size, request lowered: back to kubelet at the request", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("5Gi"), Allocated: qp("4Gi"), Status: nodeInfeasible, Recovery: true}, wantAction: NodeRetry, wantTarget: "2Gi"},

		// The driver allocated more than asked for (2560Mi for 2Gi): the
		// claim records that capacity as allocated, above its request.
		{name: "driver's larger capacity, finished: nothing", state: ResizeState{Request: q("2Gi"), Capacity: q("2560Mi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Recovery: true}, wantAction: ResizeNone},
		{name: "driver's larger capacity, finished, recovery off: nothing", state: ResizeState{Request: q("2Gi"), Capacity: q("2560Mi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi")}, wantAction: ResizeNone},
		{name: "driver's larger capacity, request raised within it: nothing", state: ResizeState{Request: q("2300Mi"), Capacity: q("2560Mi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Recovery: true}, wantAction: ResizeNone},
		{name: "driver's larger capacity, request raised to it: nothing", state: ResizeState{Request: q("2560Mi"), Capacity: q("2560Mi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Recovery: true}, wantAction: ResizeNone},
		{name: "driver's larger capacity, request raised above it: expand to request", state: ResizeState{Request: q("3Gi"), Capacity: q("2560Mi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Recovery: true}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
		{name: "driver's larger capacity, request raised above it, recovery off: expand to request", state: ResizeState{Request: q("3Gi"), Capacity: q("2560Mi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi")}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
		{name: "driver's larger capacity, node pending: kubelet owns it", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Status: nodePending, Recovery: true}, wantAction: ResizeNone},
		{name: "driver's larger capacity, node in progress: kubelet owns it", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Status: nodeProgress, Recovery: true}, wantAction: ResizeNone},
		{name: "driver's larger capacity, node pending, request raised above it: kubelet finishes first", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Status: nodePending, Recovery: true}, wantAction: ResizeNone},
		{name: "driver's larger capacity recorded for kubelet (before kubelet's rule was known), node infeasible: back to kubelet at the request", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Status: nodeInfeasible, Recovery: true}, wantAction: NodeRetry, wantTarget: "2Gi"},
		{name: "driver's larger capacity, node infeasible, recovery off: wait for the user", state: ResizeState{Request: q("2Gi"), Capacity: q("1Gi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Status: nodeInfeasible}, wantAction: ResizeNone},
		{name: "driver's larger capacity, node infeasible, request raised above it: expand to request", state: ResizeState{Request: q("3Gi"), Capacity: q("1Gi"), PVSize: q("2560Mi"), Allocated: qp("2560Mi"), Status: nodeInfeasible, Recovery: true}, wantAction: Expand, wantTarget: "3Gi", wantIntent: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DecideResize(tc.state, t0, retry)
			if got.Action != tc.wantAction {
				t.Fatalf("action = %s, want %s (reason %q)", got.Action, tc.wantAction, got.Reason)
			}
			if got.Reason == "" {
				t.Errorf("empty reason")
			}
			if tc.wantAction == ResizeNone {
				return
			}
			if want := q(tc.wantTarget); got.Target.Cmp(want) != 0 {
				t.Errorf("target = %s, want %s", got.Target.String(), want.String())
			}
			if got.RecordIntent != tc.wantIntent {
				t.Errorf("record intent = %v, want %v", got.RecordIntent, tc.wantIntent)
			}
			if got.RetryAfter != tc.wantAfter {
				t.Errorf("retry after = %s, want %s", got.RetryAfter, tc.wantAfter)
			}
		})
	}
}

func TestDecideNeverBelowPVSize(t *testing.T) {
	sizes := []string{"1", "1Gi", "2Gi", "3Gi", "10Ti"}
	statuses := []v1.ClaimResourceStatus{"", ctrlProgress, ctrlInfeasible, nodePending, nodeProgress, nodeInfeasible}
	classes := []*ResizeFailure{nil, failedResize(Uncertain, "2Gi", 0), failedResize(Final, "2Gi", 0), failedResize(Infeasible, "3Gi", 0), failedInUse("2Gi", 0)}
	for _, req := range sizes {
		for _, pv := range sizes {
			for _, alloc := range append(sizes, "") {
				for _, st := range statuses {
					for _, f := range classes {
						s := ResizeState{Request: q(req), Capacity: q("1Gi"), PVSize: q(pv), Status: st, LastFailure: f, Recovery: true}
						if alloc != "" {
							s.Allocated = qp(alloc)
						}
						d := DecideResize(s, t0, retry)
						// A size handed back to kubelet is a file system's, not the
						// volume's: the driver is not called.
						if d.Action != ResizeNone && d.Action != NodeRetry && d.Target.Cmp(s.PVSize) < 0 {
							t.Errorf("%+v: target %s below PV size %s", s, d.Target.String(), pv)
						}
					}
				}
			}
		}
	}
}
