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

package plugin

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// want is what an operation must say.
type want struct {
	state, by, action, target string
	// since is the expected Since; zero means none.
	since time.Time
	// says are phrases its summary, next step and advice must hold.
	says []string
}

func checkOperation(t *testing.T, op Operation, w want) {
	t.Helper()
	if op.State != w.state || op.NextStepBy != w.by || op.Decision.Action != w.action {
		t.Errorf("state, next step by, action = %s, %s, %s; want %s, %s, %s\n%s", op.State, op.NextStepBy, op.Decision.Action,
			w.state, w.by, w.action, dump(op))
	}
	if w.target != "" && op.Decision.Target != w.target {
		t.Errorf("decision target = %q, want %q", op.Decision.Target, w.target)
	}
	switch {
	case w.since.IsZero() && op.Since != nil:
		t.Errorf("since = %s, want none", op.Since)
	case !w.since.IsZero() && (op.Since == nil || !op.Since.Equal(w.since)):
		t.Errorf("since = %v, want %s", op.Since, w.since)
	}
	text := dump(op)
	for _, s := range w.says {
		if !strings.Contains(text, s) {
			t.Errorf("explanation lacks %q:\n%s", s, text)
		}
	}
}

func dump(op Operation) string {
	return strings.Join(append([]string{op.Summary, op.Next}, op.UserCan...), "\n")
}

const infeasibleMessage = `expand volume "pv-data" to 10Gi: rpc error: code = OutOfRange desc = at most 5Gi per volume`

func TestExplainResize(t *testing.T) {
	t1 := t0.Add(time.Hour)
	tests := []struct {
		name string
		objs []runtime.Object
		// pv is the volume's size, when not the claim's recorded size.
		pv   string
		want want
	}{{
		name: "nothing to do",
		objs: []runtime.Object{claim("1Gi", "1Gi"), storageClass(true)},
		want: want{state: StateNone, by: ByNone, action: "none", says: []string{"Nothing to do: the claim has 1Gi", "Raise spec.resources.requests.storage"}},
	}, {
		name: "nothing to do, the class does not exist",
		objs: []runtime.Object{claim("1Gi", "1Gi")},
		want: want{state: StateNone, by: ByNone, action: "none", says: []string{"its StorageClass fast does not exist, so the API server refuses a larger request"}},
	}, {
		name: "nothing to do, the class forbids expansion",
		objs: []runtime.Object{claim("1Gi", "1Gi"), storageClass(false)},
		want: want{state: StateNone, by: ByNone, action: "none", says: []string{"its StorageClass fast does not allow volume expansion"}},
	}, {
		name: "a larger request, nothing recorded yet",
		objs: []runtime.Object{claim("2Gi", "1Gi")},
		want: want{state: StateNone, by: ByResizer, action: "expand", target: "2Gi", says: []string{"no expansion is recorded yet", "calls the driver as soon as it sees the claim"}},
	}, {
		name: "controller_in_progress, processed right now",
		objs: []runtime.Object{
			claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress), condition(v1.PersistentVolumeClaimResizing, t1, "")),
			event(events.ReasonResizing, "External resizer is resizing volume pv-data", now.Add(-5*time.Second)),
		},
		want: want{state: "controller_in_progress", by: ByDriver, action: "expand", target: "2Gi", since: t1,
			says: []string{"The driver is expanding the volume to 2Gi: the resizer called it 5s ago (event Resizing)", "Nothing but wait"}},
	}, {
		name: "controller_in_progress after an uncertain failure",
		objs: []runtime.Object{
			claim("3Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress), condition(v1.PersistentVolumeClaimResizing, t1, "")),
			event(events.ReasonResizing, "External resizer is resizing volume pv-data", t1),
			event(events.ReasonResizeFailed, "expand volume \"pv-data\" to 2Gi: rpc error: code = DeadlineExceeded desc = timeout", now.Add(-time.Minute)),
		},
		want: want{state: "controller_in_progress", by: ByResizer, action: "expand", target: "2Gi", since: t1,
			says: []string{"Its last call got no final answer: expand volume", "calls the driver again for 2Gi, which is finished before any other size",
				"--retry-interval-max 5m0s", "Your request of 3Gi is followed once 2Gi is done"}},
	}, {
		name: "controller_error",
		objs: []runtime.Object{
			claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
				resizeError("Internal", t1, "expand volume \"pv-data\" to 10Gi: rpc error: code = Internal desc = backend down")),
		},
		want: want{state: "controller_error", by: ByResizer, action: "expand", target: "10Gi", since: t1,
			says: []string{"was a final failure: expand volume", "backend down", "tries again with backoff", "at the request as it is then: 10Gi now",
				"Lower the request to between 1Gi (exclusive, the current capacity) and 10Gi (exclusive)"}},
	}, {
		name: "a raise within the volume kubelet finished below",
		objs: []runtime.Object{claim("2560Mi", "2Gi", allocated("2Gi", "")), storageClass(true)},
		pv:   "3Gi",
		want: want{state: StateNone, by: ByResizer, action: "node-retry", target: "2560Mi",
			says: []string{"The request 2560Mi exceeds the capacity 2Gi", "the volume already holds 3Gi", "hands the claim to kubelet at 2560Mi", "without calling the driver"}},
	}, {
		name: "controller_error: the driver gave less than asked for",
		objs: []runtime.Object{
			claim("3Gi", "2Gi", allocated("2Gi", ""),
				resizeError(decide.ReasonShort, t1, "expand volume \"pv-data\" to 3Gi: the driver answered success with 2Gi, below the 3Gi asked for")),
		},
		want: want{state: "controller_error", by: ByUser, action: "expand", target: "3Gi", since: t1,
			says: []string{"answered the last expansion with success, but less than asked for", "The claim records 2Gi, what the volume has: the driver gives no more",
				"asks for 3Gi again at most every 5m0s", "Lower the request to 2Gi, what the volume has, to stop asking"}},
	}, {
		name: "controller_infeasible",
		objs: []runtime.Object{
			claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
				resizeError("OutOfRange", t0, infeasibleMessage)),
		},
		want: want{state: "controller_infeasible", by: ByUser, action: "expand", target: "10Gi", since: t0,
			says: []string{"The driver refused 10Gi as infeasible: " + infeasibleMessage,
				"The resizer will retry 10Gi at most every 5m0s unless the request changes (--retry-interval-max; its in-memory backoff is not visible from outside",
				"Lower the request to between 1Gi (exclusive, the current capacity) and 10Gi (exclusive)", "Or raise the request"}},
	}, {
		name: "controller_infeasible, refused by the resizer before the driver",
		objs: []runtime.Object{
			claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
				resizeError("OutOfRange", t0, `expand volume "pv-data" to 10Gi: not sent to the driver (OutOfRange): size 10Gi is too large`)),
		},
		want: want{state: "controller_infeasible", by: ByUser, action: "expand", target: "10Gi", since: t0,
			says: []string{"The resizer refused 10Gi as infeasible: ", "(OutOfRange)", "Lower the request"}},
	}, {
		name: "controller_infeasible, the request lowered since",
		objs: []runtime.Object{
			claim("4Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
				resizeError("OutOfRange", t0, infeasibleMessage)),
		},
		want: want{state: "controller_infeasible", by: ByResizer, action: "expand", target: "4Gi", since: t0,
			says: []string{"The request changed to 4Gi: the resizer tries it at once"}},
	}, {
		name: "controller_infeasible, recovery off",
		objs: []runtime.Object{
			claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
				resizeError("OutOfRange", t0, infeasibleMessage)),
			publishing(freshLease(), func(s *resizeroptions.Published) {
				s.Recovery, s.RetryIntervalMax = false, resizeroptions.Duration(10*time.Minute)
			}),
		},
		want: want{state: "controller_infeasible", by: ByUser, action: "expand", target: "10Gi", since: t0,
			says: []string{"A lower request is not followed: the resizer runs with the feature gate RecoverVolumeExpansionFailure off", "at most every 10m0s"}},
	}, {
		name: "waiting_in_use",
		objs: []runtime.Object{
			claim("2Gi", "1Gi"), runningPod("app"), publishing(freshLease(), func(s *resizeroptions.Published) { s.OfflineOnly = true }),
			event(events.ReasonResizeFailed, "unable to expand apps/data to 2Gi because CSI driver ebs.csi.example.com only supports offline expansion and volume is currently in-use by pod(s) [app]; "+
				"the expansion starts once the pods that use the claim are deleted (a finished pod counts until it is deleted): delete these pods", now.Add(-time.Minute)),
		},
		want: want{state: "waiting_in_use", by: ByUser, action: "expand", target: "2Gi",
			says: []string{"pod(s) app use it: unable to expand", "once the pods that use the claim are deleted", "Delete pod(s) app"}},
	}, {
		name: "a pod uses the claim and the online driver said FailedPrecondition: controller_error, as the metrics count it",
		objs: []runtime.Object{
			claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
				resizeError("FailedPrecondition", t1, "expand volume \"pv-data\" to 2Gi: rpc error: code = FailedPrecondition desc = mounted")),
			runningPod("app"),
			event(events.ReasonResizeFailed, "unable to expand apps/data to 2Gi because CSI driver ebs.csi.example.com answered FailedPrecondition (volume in use) to the last attempt "+
				"and volume is currently in-use by pod(s) [app]; the expansion starts once the pods that use the claim are deleted (a finished pod counts until it is deleted): delete these pods", now.Add(-time.Minute)),
		},
		want: want{state: "controller_error", by: ByResizer, action: "expand", target: "2Gi", since: t1,
			says: []string{"Delete pod(s) app, or scale their workload down: the driver said it cannot expand the volume while a pod uses it."}},
	}, {
		name: "a pod uses the claim but the driver expands online: not waiting",
		objs: []runtime.Object{claim("2Gi", "1Gi"), runningPod("app")},
		want: want{state: StateNone, by: ByResizer, action: "expand", target: "2Gi"},
	}, {
		name: "node_pending, a pod uses the claim",
		objs: []runtime.Object{
			claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizePending), condition(v1.PersistentVolumeClaimFileSystemResizePending, t1, "Waiting for user to (re-)start a pod")),
			runningPod("app"),
		},
		want: want{state: "node_pending", by: ByKubelet, action: "none", since: t1, says: []string{"The volume is expanded to 2Gi", "kubelet grows the file system for pod(s) app"}},
	}, {
		name: "node_pending, no pod",
		objs: []runtime.Object{
			claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizePending), condition(v1.PersistentVolumeClaimFileSystemResizePending, t1, "")),
		},
		want: want{state: "node_pending", by: ByUser, action: "none", since: t1, says: []string{"no pod uses it now", "Start a pod that uses the claim"}},
	}, {
		name: "node_in_progress",
		objs: []runtime.Object{
			claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizeInProgress), condition(v1.PersistentVolumeClaimFileSystemResizePending, t1, "")),
		},
		want: want{state: "node_in_progress", by: ByKubelet, action: "none", since: t1, says: []string{"kubelet is growing the file system"}},
	}, {
		name: "node_infeasible",
		objs: []runtime.Object{
			claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizeInfeasible),
				condition(v1.PersistentVolumeClaimNodeResizeError, t1, "resize2fs: no space")),
		},
		want: want{state: "node_infeasible", by: ByUser, action: "none", since: t1,
			says: []string{"kubelet found 2Gi infeasible on the node: resize2fs: no space", "Nothing, until the request asks for another size",
				"Lower the request to between 1Gi (exclusive, the current capacity) and 2Gi (exclusive): the resizer hands the claim back to kubelet, which grows the file system to that size",
				"Raise the request to a larger size"}},
	}, {
		name: "node_infeasible, request lowered",
		objs: []runtime.Object{
			claim("1500Mi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizeInfeasible),
				condition(v1.PersistentVolumeClaimNodeResizeError, t1, "resize2fs: no space")),
		},
		want: want{state: "node_infeasible", by: ByResizer, action: "node-retry", since: t1,
			says: []string{"The request is lowered to 1500Mi, which the volume holds: the resizer hands the claim back to kubelet at that size"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := append([]runtime.Object{}, tc.objs...)
			pvc := tc.objs[0].(*v1.PersistentVolumeClaim)
			size := sizeOf(pvc.Status.AllocatedResources)
			if s := pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage]; size == "" || s == v1.PersistentVolumeClaimControllerResizeInProgress ||
				s == v1.PersistentVolumeClaimControllerResizeInfeasible {
				size = sizeOf(pvc.Status.Capacity)
			}
			if tc.pv != "" {
				size = tc.pv
			}
			objs = append(objs, volume(pvc, size))
			if !hasLease(objs) {
				objs = append(objs, freshLease())
			}
			x := explainObjects(t, Request{}, objs...)
			if !x.Owner.Handled || x.Owner.Driver != driver {
				t.Fatalf("owner = %+v, want handled by %s", x.Owner, driver)
			}
			checkOperation(t, operation(t, x, "resize"), tc.want)
		})
	}
}

func hasLease(objs []runtime.Object) bool {
	for _, o := range objs {
		if _, ok := o.(interface{ GetName() string }); ok && strings.HasPrefix(o.(interface{ GetName() string }).GetName(), "external-resizer-") {
			return true
		}
	}
	return false
}
