//go:build e2e

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

package e2e

import (
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// recoveryCase is a row of docs/design.md's "Recovery cases" that fails on
// the node, run through a real kubelet.
type recoveryCase struct {
	row    string
	driver framework.DriverOptions
	// node are the codes of NodeExpandVolume's first answers; OK after.
	node []string
	// steps are the requests the user sets, from 1Gi, each with the state
	// the claim must reach before the next.
	steps []recoveryStep
	// nodeCalls are the NodeExpandVolume calls, as "size:code"; nil when
	// kubelet's retries make their number vary (the last is then checked).
	nodeCalls      []string
	lastNodeCall   string
	controllerCall []string
	pv             string
}

// recoveryStep is a request and the state it must lead to.
type recoveryStep struct {
	request, what string
	want          func(*v1.PersistentVolumeClaim) bool
	// hold checks that the state lasts: nothing else happens.
	hold bool
}

// TestRecoveryMatrix runs the rows of the recovery table in docs/design.md
// whose failure is on the node (R11–R14, R16), each through a real kubelet
// with the resizer at --resync-period=0, so that nothing passes by waiting
// for a resync: only the watch events of the user's and kubelet's writes
// move the claim. After each row's failure, a later feasible request is
// followed to the node and finished there.
func TestRecoveryMatrix(t *testing.T) {
	controllerAndNode := framework.DriverOptions{NodeExpansionRequired: true}
	nodeOnly := framework.DriverOptions{NodeOnly: true, NodeExpansionRequired: true}
	lowered := []recoveryStep{
		{request: "3Gi", what: "kubelet to find 3Gi infeasible", want: nodeInfeasibleAt("3Gi")},
		{request: "2Gi", what: "the recovery at 2Gi, through kubelet", want: finished("2Gi")},
		{request: "2Gi", what: "kubelet's 2Gi to stay the claim's", want: finished("2Gi"), hold: true},
		{request: "2560Mi", what: "a raise within the volume, through kubelet", want: finished("2560Mi")},
	}
	tests := []recoveryCase{
		{row: "R11", driver: controllerAndNode, node: []string{"OutOfRange"},
			steps:     []recoveryStep{{request: "3Gi", what: "kubelet to find 3Gi infeasible, and nothing after", want: nodeInfeasibleAt("3Gi"), hold: true}},
			nodeCalls: []string{"3Gi:OutOfRange"}, controllerCall: []string{"3Gi"}, pv: "3Gi"},
		{row: "R12", driver: controllerAndNode, node: []string{"OutOfRange"}, steps: lowered,
			nodeCalls: []string{"3Gi:OutOfRange", "2Gi:OK", "2560Mi:OK"}, controllerCall: []string{"3Gi"}, pv: "3Gi"},
		{row: "R13", driver: nodeOnly, node: []string{"OutOfRange"}, steps: lowered,
			nodeCalls: []string{"3Gi:OutOfRange", "2Gi:OK", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R14", driver: controllerAndNode, node: []string{"OutOfRange", "OutOfRange"},
			steps: []recoveryStep{
				{request: "3Gi", what: "kubelet to find 3Gi infeasible", want: nodeInfeasibleAt("3Gi")},
				{request: "4Gi", what: "kubelet to find 4Gi infeasible", want: nodeInfeasibleAt("4Gi")},
				{request: "2560Mi", what: "the recovery at 2560Mi, through kubelet", want: finished("2560Mi")},
			},
			nodeCalls: []string{"3Gi:OutOfRange", "4Gi:OutOfRange", "2560Mi:OK"}, controllerCall: []string{"3Gi", "4Gi"}, pv: "4Gi"},
		// Four failures: kubelet retries after 0.5, 1, 2 s, so the request
		// is lowered while it still fails 3Gi.
		{row: "R16", driver: controllerAndNode, node: []string{"Internal", "Internal", "Internal", "Internal"},
			steps: []recoveryStep{
				{request: "3Gi", what: "kubelet to fail 3Gi and retry", want: nodeRetrying("3Gi")},
				// kubelet's next failure, the request now lowered, is
				// NodeResizeInfeasible: that write alone wakes the
				// resizer, which hands kubelet 2Gi; the failures left
				// in the script fail 2Gi a few times too, until kubelet
				// gets through.
				{request: "2Gi", what: "the recovery at 2Gi after kubelet's final failures", want: finished("2Gi")},
				{request: "2560Mi", what: "a raise within the volume, through kubelet", want: finished("2560Mi")},
			},
			lastNodeCall: "2560Mi:OK", controllerCall: []string{"3Gi"}, pv: "3Gi"},
	}
	for _, tc := range tests {
		t.Run(tc.row, func(t *testing.T) { runRecoveryCase(t, tc) })
	}
}

func runRecoveryCase(t *testing.T, tc recoveryCase) {
	e := newEnv(t, tc.driver, "--resync-period=0")
	node := e.startNode("node")
	v := e.volume("data", "1Gi")
	e.runPod(node, "app", "data")
	var answers []framework.Answer
	for _, code := range tc.node {
		answers = append(answers, framework.Answer{Method: framework.MethodNodeExpand, VolumeID: v.Handle, Code: code, Message: "the node refuses this size"})
	}
	must(t, e.driver.Script(answers...))

	var pvc *v1.PersistentVolumeClaim
	for _, s := range tc.steps {
		e.grow("data", s.request)
		pvc = e.waitClaim("data", s.what, s.want)
		if s.hold {
			e.holdClaim("data", s.what, s.want)
		}
	}
	if got := e.pvSize(v); got != tc.pv {
		t.Errorf("PV size = %s, want %s (claim %s)", got, tc.pv, framework.Describe(pvc))
	}
	if tc.nodeCalls != nil {
		e.checkNodeExpansions(v, pvc, tc.nodeCalls...)
	}
	if tc.lastNodeCall != "" {
		calls := e.nodeCalls(framework.MethodNodeExpand, v.Handle)
		if n := len(calls); n == 0 || callOf(calls[n-1]) != tc.lastNodeCall {
			t.Errorf("NodeExpandVolume calls end with %v, want %s", calls, tc.lastNodeCall)
		}
	}
	var controller []string
	for _, c := range e.calls() {
		controller = append(controller, resource.NewQuantity(c.RequiredBytes, resource.BinarySI).String())
	}
	if !slices.Equal(controller, tc.controllerCall) {
		t.Errorf("ControllerExpandVolume calls = %v, want %v", controller, tc.controllerCall)
	}
}

// callOf is a call as "size:code".
func callOf(c framework.Call) string {
	return fmt.Sprintf("%s:%s", resource.NewQuantity(c.RequiredBytes, resource.BinarySI).String(), c.Code)
}

// nodeInfeasibleAt: kubelet found the size allocated for it infeasible.
func nodeInfeasibleAt(size string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		a := pvc.Status.AllocatedResources[v1.ResourceStorage]
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizeInfeasible && a.String() == size
	}
}

// nodeRetrying: kubelet failed the size allocated for it and retries.
func nodeRetrying(size string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		a := pvc.Status.AllocatedResources[v1.ResourceStorage]
		return framework.HasCondition(pvc, v1.PersistentVolumeClaimNodeResizeError) && a.String() == size &&
			framework.ResizeStatus(pvc) != v1.PersistentVolumeClaimNodeResizeInfeasible
	}
}
