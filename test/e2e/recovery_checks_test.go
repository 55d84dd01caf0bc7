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
	"maps"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// infeasible is the controller's status after an infeasible failure.
const infeasible = v1.PersistentVolumeClaimControllerResizeInfeasible

// callOf is a call as "size:code".
func callOf(c framework.Call) string {
	return fmt.Sprintf("%s:%s", sizeOf(c.RequiredBytes), c.Code)
}

func sizeOf(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }

// matchRuns tells whether calls, collapsed into runs of equal calls, are
// the runs of want, in order: an entry "3Gi:Internal" is one call, with a
// "+" suffix two or more, with "*" one or more.
func matchRuns(calls, want []string) bool {
	var runs []string
	var counts []int
	for _, c := range calls {
		if n := len(runs); n > 0 && runs[n-1] == c {
			counts[n-1]++
			continue
		}
		runs, counts = append(runs, c), append(counts, 1)
	}
	if len(runs) != len(want) {
		return false
	}
	for i, w := range want {
		base := strings.TrimRight(w, "+*")
		switch {
		case base != runs[i]:
			return false
		case strings.HasSuffix(w, "+") && counts[i] < 2:
			return false
		case !strings.HasSuffix(w, "+") && !strings.HasSuffix(w, "*") && counts[i] != 1:
			return false
		}
	}
	return true
}

// sameCalls tells whether calls are, in any order and any number, the
// calls of want (whose suffixes are ignored).
func sameCalls(calls, want []string) bool {
	got, exp := map[string]bool{}, map[string]bool{}
	for _, c := range calls {
		got[c] = true
	}
	for _, w := range want {
		exp[strings.TrimRight(w, "+*")] = true
	}
	return maps.Equal(got, exp)
}

// nodeInfeasibleAt: kubelet found the size allocated for it infeasible.
func nodeInfeasibleAt(size string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizeInfeasible && allocatedOf(pvc) == size
	}
}

// nodeRetrying: kubelet failed the size allocated for it and retries.
func nodeRetrying(size string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.HasCondition(pvc, v1.PersistentVolumeClaimNodeResizeError) && allocatedOf(pvc) == size &&
			framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizeInProgress
	}
}

// controllerFailing: the driver's controller failed size and the claim
// says so, with status (ControllerResizeInProgress when empty).
func controllerFailing(size string, status v1.ClaimResourceStatus) func(*v1.PersistentVolumeClaim) bool {
	if status == "" {
		status = v1.PersistentVolumeClaimControllerResizeInProgress
	}
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == status && allocatedOf(pvc) == size &&
			framework.HasCondition(pvc, v1.PersistentVolumeClaimControllerResizeError)
	}
}

// controllerRetrying: the resizer expands the volume to size, or waits to
// try again after the driver failed it.
func controllerRetrying(size string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		status := framework.ResizeStatus(pvc)
		return (status == v1.PersistentVolumeClaimControllerResizeInProgress || status == infeasible) && allocatedOf(pvc) == size
	}
}

// controllerTrying: the resizer is expanding the volume to size.
func controllerTrying(size string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimControllerResizeInProgress && allocatedOf(pvc) == size
	}
}

// claimAt: nothing is in progress, the claim's request, capacity and
// allocatedResources are these, and it has no resize condition.
func claimAt(request, capacity, alloc string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return requestOf(pvc) == request && framework.Capacity(pvc) == capacity && allocatedOf(pvc) == alloc &&
			framework.ResizeStatus(pvc) == "" && len(pvc.Status.Conditions) == 0
	}
}

// shortAt: the driver answered short, the claim records what it gave and
// says why the request is not reached (ControllerResizeError of reason
// BelowTarget), and nothing
// is in progress.
func shortAt(request, gave string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return requestOf(pvc) == request && framework.Capacity(pvc) == gave && allocatedOf(pvc) == gave &&
			framework.ResizeStatus(pvc) == "" && len(pvc.Status.Conditions) == 1 &&
			conditionReason(pvc, v1.PersistentVolumeClaimControllerResizeError) == "BelowTarget"
	}
}

// shortRetried: as shortAt, or trying request again on the slow lane.
func shortRetried(request, gave string) func(*v1.PersistentVolumeClaim) bool {
	short, trying := shortAt(request, gave), controllerTrying(request)
	return func(pvc *v1.PersistentVolumeClaim) bool {
		return short(pvc) || (trying(pvc) && requestOf(pvc) == request && framework.Capacity(pvc) == gave)
	}
}

func allocatedOf(pvc *v1.PersistentVolumeClaim) string {
	q := pvc.Status.AllocatedResources[v1.ResourceStorage]
	return q.String()
}

func requestOf(pvc *v1.PersistentVolumeClaim) string {
	q := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	return q.String()
}

// checkSlowLane: a size refused as infeasible, or answered short, is asked
// for again only after the slow lane's wait (slowLane).
func checkSlowLane(t *testing.T, calls []framework.Call) {
	t.Helper()
	for i := 1; i < len(calls); i++ {
		prev, c := calls[i-1], calls[i]
		slow := prev.Code == "OutOfRange" || (prev.Code == "OK" && prev.CapacityBytes < prev.RequiredBytes)
		if slow && c.RequiredBytes == prev.RequiredBytes && c.Start.Sub(prev.End) < slowLane-100*time.Millisecond {
			t.Errorf("call %s came %s after %s: the slow lane waits %s", expandCallOf(c), c.Start.Sub(prev.End), expandCallOf(prev), slowLane)
		}
	}
}

// checkAtOnce: the driver was asked for size within atOnceBound of the
// request's change at since.
func checkAtOnce(t *testing.T, calls []framework.Call, size string, since time.Time) {
	t.Helper()
	for _, c := range calls {
		if c.RequiredBytes == bytes(size) && !c.Start.Before(since) {
			if d := c.Start.Sub(since); d > atOnceBound {
				t.Errorf("the driver was asked for %s %s after the request changed, want at most %s", size, d, atOnceBound)
			}
			return
		}
	}
	t.Errorf("the driver was never asked for %s", size)
}
