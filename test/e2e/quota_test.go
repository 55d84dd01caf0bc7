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
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// allocationUnit is the test driver's: 2Gi asked for gives 2304Mi.
const allocationUnit = 768 << 20

// newQuotaEnv is a namespace with a ResourceQuota on requests.storage, a
// scripted driver that allocates whole units, with the volumes vol-data
// and vol-probe, and a resizer.
func newQuotaEnv(t *testing.T, hard string, nodeStep bool) *env {
	t.Helper()
	e := newEnv(t, framework.DriverOptions{Scripted: true, Volumes: scriptedVolumes("data", "probe"),
		NodeExpansionRequired: nodeStep, NodeExpand: nodeStep, AllocationUnit: allocationUnit})
	must(t, framework.CreateStorageQuota(e.ctx, cluster.Admin, e.ns, "storage", hard))
	return e
}

// waitUsed waits until the quota charges want for requests.storage.
func (e *env) waitUsed(want, when string) {
	e.t.Helper()
	var used resource.Quantity
	err := wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		used, err = framework.StorageUsed(ctx, cluster.Admin, e.ns, "storage")
		return err == nil && used.Cmp(resource.MustParse(want)) == 0, nil
	})
	if err != nil {
		e.t.Fatalf("%s: quota status.used[requests.storage] = %s, want %s", when, used.String(), want)
	}
}

// callsFor is how many ControllerExpandVolume calls volumeID got.
func (e *env) callsFor(volumeID string) int {
	e.t.Helper()
	n := 0
	for _, c := range e.calls() {
		if c.VolumeID == volumeID && c.Ended() {
			n++
		}
	}
	return n
}

func allocated(size string) func(*v1.PersistentVolumeClaim) bool {
	return func(pvc *v1.PersistentVolumeClaim) bool {
		a := pvc.Status.AllocatedResources[v1.ResourceStorage]
		return a.String() == size
	}
}

// TestQuotaChargesDriverCapacity grows a claim from 1Gi to 2Gi against a
// driver that allocates whole units of 768Mi, so 2304Mi, and the
// namespace's ResourceQuota charges what is recorded in allocatedResources.
// Without a node step, the status write that finishes the claim records
// 2304Mi. With one, the claim is handed to a real kubelet at 2Gi (kubelet
// grows the file system to allocatedResources, and finds a second node
// failure infeasible when that is not the request), so the quota charges
// 2Gi while kubelet works, and 2304Mi once it has finished. The claim then
// stays finished: a request within 2304Mi changes nothing, a larger one is
// expanded to.
func TestQuotaChargesDriverCapacity(t *testing.T) {
	for _, nodeStep := range []bool{false, true} {
		t.Run(map[bool]string{false: "controller only", true: "through kubelet"}[nodeStep], func(t *testing.T) {
			e := newQuotaEnv(t, "10Gi", nodeStep)
			e.volume("data", "1Gi")
			e.waitUsed("1Gi", "after the claim's creation")
			must(t, framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "2Gi"))

			if nodeStep {
				e.waitClaim("data", "the node step", func(pvc *v1.PersistentVolumeClaim) bool {
					return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending && allocated("2Gi")(pvc)
				})
				e.waitUsed("2Gi", "while node expansion is pending")
				e.runPod(e.startNode("node"), "app", "data")
			}
			pvc := e.waitClaim("data", "the resize to finish", func(pvc *v1.PersistentVolumeClaim) bool {
				return finished("2304Mi")(pvc) && allocated("2304Mi")(pvc)
			})
			e.waitUsed("2304Mi", "after the resize")

			// A request within the driver's capacity: nothing to do. Another
			// claim resized after it shows that the resizer has seen it.
			must(t, framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "2200Mi"))
			e.volume("probe", "1Gi")
			must(t, framework.Grow(e.ctx, cluster.Admin, e.ns, "probe", "1536Mi"))
			e.waitClaim("probe", "the probe's resize", func(pvc *v1.PersistentVolumeClaim) bool {
				return allocated("1536Mi")(pvc) && framework.ResizeStatus(pvc) != v1.PersistentVolumeClaimControllerResizeInProgress
			})
			pvc = e.waitClaim("data", "the claim within its capacity", finished("2304Mi"))
			if n := e.callsFor("vol-data"); n != 1 {
				t.Errorf("ControllerExpandVolume calls for vol-data = %d, want 1 (claim: %s)", n, framework.Describe(pvc))
			}
			e.waitUsed("3840Mi", "with the probe") // 2304Mi + 1536Mi

			// A request above it: expanded as usual, online by kubelet.
			must(t, framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "3Gi"))
			e.waitClaim("data", "the second resize", func(pvc *v1.PersistentVolumeClaim) bool {
				return finished("3Gi")(pvc) && allocated("3Gi")(pvc)
			})
			e.waitUsed("4608Mi", "after the second resize") // 3Gi + 1536Mi
		})
	}
}

// TestQuotaChargesBeyondItsHardLimit: the driver's capacity is above the
// quota's hard limit. kube-apiserver admits the claim's status write
// anyway (the quota admission checks the hard limit on writes of claims,
// not of their status) and charges it: the claim finishes with the real
// size allocated, and the quota's usage goes beyond its hard limit.
func TestQuotaChargesBeyondItsHardLimit(t *testing.T) {
	e := newQuotaEnv(t, "2Gi", false)
	e.volume("data", "1Gi")
	must(t, framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "2Gi"))
	e.waitClaim("data", "the resize to finish", func(pvc *v1.PersistentVolumeClaim) bool {
		return finished("2304Mi")(pvc) && allocated("2304Mi")(pvc)
	})
	e.waitUsed("2304Mi", "after the resize")
	for _, ev := range e.claimEvents("data") {
		if ev.Type != v1.EventTypeNormal || ev.Reason == events.ReasonResizeFailed || ev.Reason == "QuotaExceeded" {
			t.Errorf("event %s %s: %s", ev.Type, ev.Reason, ev.Message)
		}
	}
	// Growing it further is now refused by the quota, as for any claim.
	if err := framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "3Gi"); err == nil || !strings.Contains(err.Error(), "exceeded quota") {
		t.Errorf("growing beyond the quota: %v, want the quota's refusal", err)
	}
}
