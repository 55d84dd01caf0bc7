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
	"testing"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestRecoveryMatrix runs every row of the recovery table in docs/design.md
// ("Recovery cases") through real kubelets, on an RWO volume mounted on one
// node and on an RWX volume mounted on two, the resizer at
// --resync-period=0 so that nothing passes by waiting for a resync: only
// the watch events of the user's and kubelet's writes move a claim. The
// rows of a driver share its resizer and its kubelets and run at once, each
// on its own claim; each ends with a later feasible request that finishes
// on the node.
func TestRecoveryMatrix(t *testing.T) {
	groups := []struct {
		name   string
		driver framework.DriverOptions
		rows   []recoveryRow
	}{
		{"controller-and-node", framework.DriverOptions{NodeExpansionRequired: true}, controllerAndNodeRows()},
		{"node-only", framework.DriverOptions{NodeOnly: true, NodeExpansionRequired: true}, nodeOnlyRows()},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			runMatrix(t, g.driver, g.rows)
		})
	}
}

// The scripts of the table's fixture: the failing side refuses any size
// above 2560Mi (3Gi and 4Gi are the sizes asked for), however often it is
// asked; the other side takes any size.
var (
	controllerFinal      = refuse("", "Internal", "3Gi", "4Gi")
	controllerInfeasible = refuse("", "OutOfRange", "3Gi", "4Gi")
	nodeFinal            = refuse(csidriver.MethodNodeExpand, "Internal", "3Gi", "4Gi")
	nodeInfeasible       = refuse(csidriver.MethodNodeExpand, "OutOfRange", "3Gi", "4Gi")
	// controllerUncertain: the backend takes a while, the driver's calls
	// time out four times (each after a second) before 3Gi succeeds.
	controllerUncertain = repeat(4, framework.Answer{Size: "3Gi", Code: "DeadlineExceeded", Delay: "1s", Message: "the backend is still growing the volume"})
	// controllerShort answers 2Gi to every call for 3Gi.
	controllerShort = repeat(refusals, framework.Answer{Size: "3Gi", Capacity: "2Gi"})
	// controllerRounding answers 3Gi to 2200Mi, as a driver that allocates
	// whole GiB does.
	controllerRounding = []framework.Answer{{Size: "2200Mi", Capacity: "3Gi"}}
)

// What explain says of the held states, as "state/next step by": the
// state is the one the metric csi_resizer_claims counts the claim in.
const (
	// A final failure: the resizer retries with backoff (its attempt may be
	// running).
	controllerRetries = "controller_error/resizer|controller_in_progress/resizer|controller_in_progress/driver"
	// An infeasible size: only the user's new request moves it (the slow
	// lane's retry may be running).
	controllerRefused = "controller_infeasible/user|controller_in_progress/resizer|controller_in_progress/driver"
	// A short answer: the claim has what the driver gave; the request
	// waits for the slow lane (whose retry may be running) or the user.
	answeredShort = "controller_error/user|controller_in_progress/driver|controller_in_progress/resizer"
	nodeRefused   = "node_infeasible/user"
	nodeRetries   = "node_in_progress/kubelet"
	done          = "none/none"
)

// controllerAndNodeRows are the rows of a driver that expands in the
// controller and asks for the node step.
func controllerAndNodeRows() []recoveryRow {
	lowered := []recoveryStep{
		{request: "3Gi", want: nodeInfeasibleAt("3Gi")},
		{request: "2Gi", want: finished("2Gi"), hold: true, explained: done},
		{request: "2560Mi", want: finished("2560Mi")},
	}
	return []recoveryRow{
		{row: "R1", script: controllerFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: controllerFailing("3Gi", ""), hold: true, explained: controllerRetries, stays: controllerRetrying("3Gi")},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			controller: []string{"3Gi:Internal+", "2560Mi:OK"}, node: []string{"2560Mi:OK"}, pv: "2560Mi"},
		{row: "R2", script: controllerFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: controllerFailing("3Gi", "")},
				{request: "2Gi", want: finished("2Gi")},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			controller: []string{"3Gi:Internal*", "2Gi:OK", "2560Mi:OK"}, node: []string{"2Gi:OK", "2560Mi:OK"}, pv: "2560Mi"},
		{row: "R3", script: controllerFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: controllerFailing("3Gi", "")},
				{request: "4Gi", want: controllerFailing("4Gi", ""), hold: true, explained: controllerRetries, stays: controllerRetrying("4Gi")},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			controller: []string{"3Gi:Internal*", "4Gi:Internal+", "2560Mi:OK"}, node: []string{"2560Mi:OK"}, pv: "2560Mi"},
		{row: "R4", script: controllerInfeasible,
			steps: []recoveryStep{
				{request: "3Gi", want: controllerFailing("3Gi", infeasible), hold: true, explained: controllerRefused, stays: controllerRetrying("3Gi")},
				{request: "2560Mi", want: finished("2560Mi"), atOnce: true},
			},
			controller: []string{"3Gi:OutOfRange*", "2560Mi:OK"}, node: []string{"2560Mi:OK"}, pv: "2560Mi"},
		{row: "R5", script: controllerInfeasible,
			steps: []recoveryStep{
				{request: "3Gi", want: controllerFailing("3Gi", infeasible)},
				{request: "2Gi", want: finished("2Gi"), atOnce: true},
				{request: "2560Mi", want: finished("2560Mi"), atOnce: true},
			},
			controller: []string{"3Gi:OutOfRange*", "2Gi:OK", "2560Mi:OK"}, node: []string{"2Gi:OK", "2560Mi:OK"}, pv: "2560Mi"},
		{row: "R6", script: controllerInfeasible,
			steps: []recoveryStep{
				{request: "3Gi", want: controllerFailing("3Gi", infeasible)},
				{request: "4Gi", want: controllerFailing("4Gi", infeasible), atOnce: true, hold: true, explained: controllerRefused, stays: controllerRetrying("4Gi")},
				{request: "2560Mi", want: finished("2560Mi"), atOnce: true},
			},
			controller: []string{"3Gi:OutOfRange*", "4Gi:OutOfRange*", "2560Mi:OK"}, node: []string{"2560Mi:OK"}, pv: "2560Mi"},
		{row: "R7", script: controllerUncertain,
			steps: []recoveryStep{
				{request: "3Gi", want: finished("3Gi")},
				{request: "4Gi", want: finished("4Gi")},
			},
			controller: []string{"3Gi:DeadlineExceeded+", "3Gi:OK", "4Gi:OK"}, node: []string{"3Gi:OK", "4Gi:OK"}, pv: "4Gi"},
		{row: "R8", script: controllerUncertain,
			steps: []recoveryStep{
				{request: "3Gi", want: controllerTrying("3Gi"), call: "3Gi:DeadlineExceeded"},
				{request: "2Gi", want: claimAt("2Gi", "3Gi", "3Gi"), hold: true, explained: done},
				{request: "4Gi", want: finished("4Gi")},
			},
			controller: []string{"3Gi:DeadlineExceeded+", "3Gi:OK", "4Gi:OK"}, node: []string{"3Gi:OK", "4Gi:OK"}, pv: "4Gi"},
		{row: "R9", script: controllerUncertain,
			steps: []recoveryStep{
				{request: "3Gi", want: controllerTrying("3Gi"), call: "3Gi:DeadlineExceeded"},
				{request: "4Gi", want: finished("4Gi")},
			},
			controller: []string{"3Gi:DeadlineExceeded+", "3Gi:OK", "4Gi:OK"}, node: []string{"3Gi:OK", "4Gi:OK"}, pv: "4Gi"},
		{row: "R10", script: controllerShort,
			steps: []recoveryStep{
				{request: "3Gi", want: shortAt("3Gi", "2Gi"), hold: true, explained: answeredShort, stays: shortRetried("3Gi", "2Gi")},
				{request: "2200Mi", want: finished("2200Mi"), atOnce: true},
			},
			controller: []string{"3Gi:OK=2Gi+", "2200Mi:OK"}, node: []string{"2Gi:OK", "2200Mi:OK"}, pv: "2200Mi",
			event: fact{reason: events.ReasonResizeFailed, words: []string{events.AnsweredShort + " 2Gi"}}},
		{row: "R11", script: nodeInfeasible,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeInfeasibleAt("3Gi"), hold: true, explained: nodeRefused},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			controller: []string{"3Gi:OK"}, node: []string{"3Gi:OutOfRange", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R12", script: nodeInfeasible, steps: lowered,
			controller: []string{"3Gi:OK"}, node: []string{"3Gi:OutOfRange", "2Gi:OK", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R14", script: nodeInfeasible,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeInfeasibleAt("3Gi")},
				{request: "4Gi", want: nodeInfeasibleAt("4Gi"), hold: true, explained: nodeRefused},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			controller: []string{"3Gi:OK", "4Gi:OK"}, node: []string{"3Gi:OutOfRange", "4Gi:OutOfRange", "2560Mi:OK"}, pv: "4Gi"},
		{row: "R15", script: nodeFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeRetrying("3Gi"), hold: true, explained: nodeRetries},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			controller: []string{"3Gi:OK"}, node: []string{"3Gi:Internal+", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R16", script: nodeFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeRetrying("3Gi")},
				{request: "2Gi", want: finished("2Gi"), hold: true, explained: done},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			controller: []string{"3Gi:OK"}, node: []string{"3Gi:Internal+", "2Gi:OK", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R17", script: nodeFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeRetrying("3Gi")},
				{request: "4Gi", want: nodeRetrying("4Gi"), hold: true, explained: nodeRetries},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			controller: []string{"3Gi:OK", "4Gi:OK"}, node: []string{"3Gi:Internal+", "4Gi:Internal+", "2560Mi:OK"}, pv: "4Gi"},
		{row: "R18", script: controllerRounding,
			steps: []recoveryStep{
				{request: "2200Mi", want: claimAt("2200Mi", "3Gi", "3Gi"), hold: true, explained: done},
				{request: "4Gi", want: finished("4Gi")},
			},
			controller: []string{"2200Mi:OK=3Gi", "4Gi:OK"}, node: []string{"2200Mi:OK", "4Gi:OK"}, pv: "4Gi",
			nodeRWX: []string{"2200Mi:OK", "3Gi:OK", "4Gi:OK"}},
	}
}

// nodeOnlyRows are the rows of a driver that expands on the node only: the
// resizer writes the PV and hands the claim to kubelet, with no driver call.
func nodeOnlyRows() []recoveryRow {
	return []recoveryRow{
		{row: "R11", script: nodeInfeasible,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeInfeasibleAt("3Gi"), hold: true, explained: nodeRefused},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			node: []string{"3Gi:OutOfRange", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R13", script: nodeInfeasible,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeInfeasibleAt("3Gi")},
				{request: "2Gi", want: finished("2Gi"), hold: true, explained: done},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			node: []string{"3Gi:OutOfRange", "2Gi:OK", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R14", script: nodeInfeasible,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeInfeasibleAt("3Gi")},
				{request: "4Gi", want: nodeInfeasibleAt("4Gi"), hold: true, explained: nodeRefused},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			node: []string{"3Gi:OutOfRange", "4Gi:OutOfRange", "2560Mi:OK"}, pv: "4Gi"},
		{row: "R15", script: nodeFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeRetrying("3Gi"), hold: true, explained: nodeRetries},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			node: []string{"3Gi:Internal+", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R16", script: nodeFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeRetrying("3Gi")},
				{request: "2Gi", want: finished("2Gi"), hold: true, explained: done},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			node: []string{"3Gi:Internal+", "2Gi:OK", "2560Mi:OK"}, pv: "3Gi"},
		{row: "R17", script: nodeFinal,
			steps: []recoveryStep{
				{request: "3Gi", want: nodeRetrying("3Gi")},
				{request: "4Gi", want: nodeRetrying("4Gi"), hold: true, explained: nodeRetries},
				{request: "2560Mi", want: finished("2560Mi")},
			},
			node: []string{"3Gi:Internal+", "4Gi:Internal+", "2560Mi:OK"}, pv: "4Gi"},
	}
}
