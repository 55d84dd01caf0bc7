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
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics/testutil"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// nodeState is a state in which kubelet owns the volume: the resizer has
// expanded it and leaves the claim alone, so it makes no write for it
// (pkg/resize's kubeletOwns and nodeInfeasibleUnchanged).
type nodeState struct {
	Status v1.ClaimResourceStatus
	State  decide.Stage // what csi_resizer_claims counts it as
	// Condition is the claim's condition in it: the resizer's
	// FileSystemResizePending when it hands the volume over (kubelet keeps
	// it while it grows the file system), kubelet's NodeResizeError when it
	// finds the size infeasible (it replaces the others).
	Condition v1.PersistentVolumeClaimConditionType
}

// nodeStates are the states the claims in a state take in turn.
var nodeStates = []nodeState{
	{v1.PersistentVolumeClaimNodeResizePending, decide.NodePending, v1.PersistentVolumeClaimFileSystemResizePending},
	{v1.PersistentVolumeClaimNodeResizeInProgress, decide.NodeInProgress, v1.PersistentVolumeClaimFileSystemResizePending},
	{v1.PersistentVolumeClaimNodeResizeInfeasible, decide.NodeInfeasible, v1.PersistentVolumeClaimNodeResizeError},
}

// stateOf returns the state the i-th claim is put in; false for the nine
// claims in ten left as they were bound.
func stateOf(i int) (nodeState, bool) {
	if i%scrapeEvery != 0 {
		return nodeState{}, false
	}
	return nodeStates[(i/scrapeEvery)%len(nodeStates)], true
}

// expectedStates counts the claims 0 to n-1 by the state they are put in.
func expectedStates(n int) map[decide.Stage]int {
	want := map[decide.Stage]int{}
	for i := range n {
		if st, ok := stateOf(i); ok {
			want[st.State]++
		}
	}
	return want
}

// setNodeState puts pvc, bound at scrapeGrown (request and PV), in st as
// the resizer and kubelet leave it: the controller step done
// (allocatedResources at the PV's size), the file system still at
// scrapeSize (status.capacity), and st's condition since since.
func setNodeState(pvc *v1.PersistentVolumeClaim, st nodeState, since time.Time) {
	grown := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	pvc.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(scrapeSize)}
	pvc.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: grown}
	pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: st.Status}
	pvc.Status.Conditions = []v1.PersistentVolumeClaimCondition{{
		Type: st.Condition, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(since),
		Message: fmt.Sprintf("bench: %s since %s", st.Status, since.UTC().Format(time.RFC3339)),
	}}
}

// createScrapePairs creates the bound pairs first to n-1. A claim put in a
// state is bound at scrapeGrown from the start (its request and its PV, so
// no spec change has to wait for the PV), then one status update as admin
// puts it in its state.
func createScrapePairs(ctx context.Context, c kubernetes.Interface, first, n, goroutines int, since time.Time) error {
	return framework.Parallel(ctx, n-first, goroutines, func(ctx context.Context, j int) error {
		i := first + j
		st, stated := stateOf(i)
		size := scrapeSize
		if stated {
			size = scrapeGrown
		}
		pvc, err := framework.CreateBound(ctx, c, benchVolume(i, size, fmt.Sprintf("made-up-%d", i)))
		if err != nil || !stated {
			return err
		}
		setNodeState(pvc, st, since)
		if _, err := c.CoreV1().PersistentVolumeClaims(benchNamespace).UpdateStatus(ctx, pvc, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("put claim %s in %s: %w", pvc.Name, st.Status, err)
		}
		return nil
	}, progress("bound PVC+PV pairs", n-first))
}

// checkClaims scrapes once and checks csi_resizer_claims against want: a
// measurement of a collector that counted nothing would be of nothing. It
// returns the number of series.
func (r *rig) checkClaims(ctx context.Context, want map[decide.Stage]int) (int, error) {
	_, _, text, err := r.scrape(ctx)
	if err != nil {
		return 0, err
	}
	m, err := framework.ParseMetrics(string(text))
	if err != nil {
		return 0, err
	}
	samples := m[claimsMetric]
	if err := checkCounts(samples, driverName, want); err != nil {
		return 0, err
	}
	say("  %s counts %s", claimsMetric, describeCounts(resizeCounts(want)))
	return len(samples), nil
}

// checkCounts checks the csi_resizer_claims samples: all of driver, each
// resize state at its count in want, every other state at 0, so their sum
// is the number of claims put in a state.
func checkCounts(samples testutil.Samples, driver string, want map[decide.Stage]int) error {
	if len(samples) == 0 {
		return fmt.Errorf("no %s in /metrics: the collector reports nothing", claimsMetric)
	}
	got := map[string]int{}
	sum := 0
	for _, s := range samples {
		if d := string(s.Metric["driver_name"]); d != driver {
			return fmt.Errorf("%s has a series of driver %q, want only %q", claimsMetric, d, driver)
		}
		got[string(s.Metric["operation"])+"/"+string(s.Metric["state"])] += int(s.Value)
		sum += int(s.Value)
	}
	wanted := resizeCounts(want)
	ok := sum == total(want)
	for key, n := range wanted {
		ok = ok && got[key] == n
	}
	if !ok {
		return fmt.Errorf("%s counts %d claims in a state (%s), want %d (%s)",
			claimsMetric, sum, describeCounts(got), total(want), describeCounts(wanted))
	}
	return nil
}

// resizeCounts keys want as the series' operation/state.
func resizeCounts(want map[decide.Stage]int) map[string]int {
	out := map[string]int{}
	for st, n := range want {
		out[string(decide.OpResize)+"/"+string(st)] = n
	}
	return out
}

// describeCounts lists the non-zero counts, sorted: "resize/node_pending 334, ...".
func describeCounts(m map[string]int) string {
	m = maps.Clone(m)
	maps.DeleteFunc(m, func(_ string, n int) bool { return n == 0 })
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(counts(m, "%[2]s %[1]d"), ", ")
}

// total is the sum of the counts.
func total[K comparable](counts map[K]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
