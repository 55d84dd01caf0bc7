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

	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

func TestResizeOf(t *testing.T) {
	const (
		ctrlProgress   = v1.PersistentVolumeClaimControllerResizeInProgress
		ctrlInfeasible = v1.PersistentVolumeClaimControllerResizeInfeasible
		nodePending    = v1.PersistentVolumeClaimNodeResizePending
		nodeProgress   = v1.PersistentVolumeClaimNodeResizeInProgress
		nodeInfeasible = v1.PersistentVolumeClaimNodeResizeInfeasible
	)
	var none Entry
	tests := []struct {
		name     string
		claim    *slim.Claim
		heldBack HeldBack
		want     Entry
	}{
		// The controller's states.
		{name: "controller in progress since Resizing",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlProgress), condition(resizing, t1)),
			want:  entry(OpResize, ControllerInProgress, t1, resizing)},
		{name: "controller in progress without a condition: since unknown",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlProgress)),
			want:  entry(OpResize, ControllerInProgress, time.Time{}, "")},
		{name: "controller in progress with a Resizing of no time: since unknown",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlProgress), condition(resizing, time.Time{})),
			want:  entry(OpResize, ControllerInProgress, time.Time{}, "")},
		{name: "controller error since ControllerResizeError, not Resizing",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlProgress), condition(resizing, t1), condition(controllerError, t2)),
			want:  entry(OpResize, ControllerError, t2, controllerError)},
		{name: "a ControllerResizeError that is not True is no error",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlProgress), condition(resizing, t1), conditionWith(controllerError, v1.ConditionFalse, t2)),
			want:  entry(OpResize, ControllerInProgress, t1, resizing)},
		{name: "controller infeasible since ControllerResizeError",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlInfeasible), condition(resizing, t1), condition(controllerError, t2)),
			want:  entry(OpResize, ControllerInfeasible, t2, controllerError)},
		{name: "controller infeasible without an error condition: since Resizing",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlInfeasible), condition(resizing, t1)),
			want:  entry(OpResize, ControllerInfeasible, t1, resizing)},
		{name: "controller infeasible without conditions: since unknown",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlInfeasible)),
			want:  entry(OpResize, ControllerInfeasible, time.Time{}, "")},

		// Kubelet's states.
		{name: "node pending since FileSystemResizePending",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(nodePending), condition(fileSystemResizing, t1)),
			want:  entry(OpResize, NodePending, t1, fileSystemResizing)},
		{name: "node pending without a condition: since unknown",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(nodePending)),
			want:  entry(OpResize, NodePending, time.Time{}, "")},
		{name: "node in progress since the hand-over to kubelet",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(nodeProgress), condition(fileSystemResizing, t1)),
			want:  entry(OpResize, NodeInProgress, t1, fileSystemResizing)},
		{name: "node in progress after a node error kubelet retries: still since the hand-over",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(nodeProgress), condition(fileSystemResizing, t1), condition(nodeError, t2)),
			want:  entry(OpResize, NodeInProgress, t1, fileSystemResizing)},
		{name: "node infeasible since kubelet's NodeResizeError",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(nodeInfeasible), condition(fileSystemResizing, t1), condition(nodeError, t2)),
			want:  entry(OpResize, NodeInfeasible, t2, nodeError)},
		{name: "node infeasible without NodeResizeError: since FileSystemResizePending",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(nodeInfeasible), condition(fileSystemResizing, t1)),
			want:  entry(OpResize, NodeInfeasible, t1, fileSystemResizing)},

		// API servers that drop allocatedResourceStatuses.
		{name: "no status, ControllerResizeError: controller error",
			claim: claim(request("2Gi"), condition(controllerError, t2)),
			want:  entry(OpResize, ControllerError, t2, controllerError)},
		{name: "no status, Resizing: controller in progress",
			claim: claim(request("2Gi"), condition(resizing, t1)),
			want:  entry(OpResize, ControllerInProgress, t1, resizing)},
		{name: "no status, FileSystemResizePending: node pending",
			claim: claim(condition(fileSystemResizing, t1)),
			want:  entry(OpResize, NodePending, t1, fileSystemResizing)},
		{name: "empty status, Resizing: controller in progress",
			claim: claim(request("2Gi"), withStatus(""), condition(resizing, t1)),
			want:  entry(OpResize, ControllerInProgress, t1, resizing)},

		// Held back by a pod (the caller's answer: the controller's
		// decision, see controller.HeldBackByPods).
		{name: "a first request held back: waiting in use, since unknown",
			claim: claim(request("2Gi")), heldBack: always,
			want: entry(OpResize, WaitingInUse, time.Time{}, "")},
		{name: "an unfinished attempt held back: since Resizing",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlProgress), condition(resizing, t1)), heldBack: always,
			want: entry(OpResize, WaitingInUse, t1, resizing)},
		{name: "a retry after an error held back: since ControllerResizeError",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlProgress), condition(controllerError, t2)), heldBack: always,
			want: entry(OpResize, WaitingInUse, t2, controllerError)},
		{name: "a node-infeasible size the user changed, held back: since unknown",
			claim: claim(request("3Gi"), allocated("5Gi"), withStatus(nodeInfeasible), condition(nodeError, t2)), heldBack: always,
			want: entry(OpResize, WaitingInUse, time.Time{}, "")},
		{name: "an unfinished attempt not held back",
			claim: claim(request("2Gi"), allocated("2Gi"), withStatus(ctrlProgress), condition(resizing, t1)), heldBack: never,
			want: entry(OpResize, ControllerInProgress, t1, resizing)},

		// In no state.
		{name: "idle claim", claim: claim(), want: none},
		{name: "a first request no pod holds back: not recorded yet", claim: claim(request("2Gi")), heldBack: never, want: none},
		{name: "a first request without the question", claim: claim(request("2Gi")), want: none},
		{name: "a status this package does not know", claim: claim(withStatus("SomethingNew"), condition(resizing, t1)), want: none},
		{name: "kubelet's NodeResizeError alone", claim: claim(condition(nodeError, t2)), want: none},
		{name: "resize conditions that are not True",
			claim: claim(conditionWith(resizing, v1.ConditionFalse, t1), conditionWith(fileSystemResizing, v1.ConditionUnknown, t1)), want: none},
		{name: "only modify conditions", claim: claim(condition(modifying, t1), condition(modifyError, t2)), want: none},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := UnfinishedResize(tc.claim, tc.heldBack)
			if ok != (tc.want != none) || got != tc.want {
				t.Errorf("ResizeOf = %+v, %v; want %+v, %v", got, ok, tc.want, tc.want != none)
			}
		})
	}
}
