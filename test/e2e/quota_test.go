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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// allocationUnit is the test driver's: 2Gi asked for gives 2304Mi.
const allocationUnit = 768 << 20

// quotaEnv is a namespace with a ResourceQuota on requests.storage, a
// csi-test-driver process that allocates whole units, and a resizer.
type quotaEnv struct {
	t      *testing.T
	ctx    context.Context
	ns     string
	class  string
	dir    string
	driver *framework.TestDriver
}

func newQuotaEnv(t *testing.T, hard string, nodeStep bool) *quotaEnv {
	t.Helper()
	bin, err := framework.TestDriverBinary()
	if err != nil {
		t.Skip(err) // make test-e2e builds it; a bare go test may not have it
	}
	n := counter.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir, err := os.MkdirTemp("", "e2e-")
	must(t, err)
	e := &quotaEnv{t: t, ctx: ctx, ns: fmt.Sprintf("e2e-%d", n), class: fmt.Sprintf("e2e-%d", n), dir: dir}
	name := fmt.Sprintf("e2e-%d.csi.example.com", n)
	must(t, framework.CreateNamespace(ctx, cluster.Admin, e.ns))
	must(t, framework.CreateClass(ctx, cluster.Admin, e.class, name, nil))
	must(t, framework.CreateStorageQuota(ctx, cluster.Admin, e.ns, "storage", hard))
	e.driver, err = framework.StartTestDriver(ctx, bin, dir, framework.TestDriverOptions{Name: name,
		NodeExpansionRequired: nodeStep, NodeExpand: nodeStep, AllocationUnit: allocationUnit}, map[string]int64{"vol-data": bytes("1Gi"), "vol-probe": bytes("1Gi")})
	must(t, err)
	resizer, err := framework.StartResizer(tools, dir, "resizer", kubeconfig, e.driver.Socket, "--retry-interval-start=100ms", "--retry-interval-max=3s", "--v=4")
	must(t, err)
	t.Cleanup(func() {
		_ = resizer.Stop(30 * time.Second)
		e.driver.Stop()
		if t.Failed() {
			t.Logf("logs kept in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	return e
}

func (e *quotaEnv) volume(claim string) framework.Volume {
	e.t.Helper()
	v := framework.Volume{Namespace: e.ns, Claim: claim, Class: e.class, Driver: e.driver.Name, Handle: "vol-" + claim, Size: "1Gi"}
	_, err := framework.CreateBound(e.ctx, cluster.Admin, v)
	must(e.t, err)
	return v
}

func (e *quotaEnv) waitClaim(claim, what string, cond func(*v1.PersistentVolumeClaim) bool) *v1.PersistentVolumeClaim {
	e.t.Helper()
	pvc, err := framework.WaitForClaim(e.ctx, cluster.Admin, e.ns, claim, time.Minute, cond)
	if err != nil {
		e.t.Fatalf("waiting for %s: %v", what, err)
	}
	return pvc
}

// waitUsed waits until the quota charges want for requests.storage.
func (e *quotaEnv) waitUsed(want, when string) {
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
func (e *quotaEnv) callsFor(volumeID string) int {
	e.t.Helper()
	calls, err := e.driver.Calls()
	must(e.t, err)
	n := 0
	for _, c := range calls {
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
			e.volume("data")
			e.waitUsed("1Gi", "after the claim's creation")
			must(t, framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "2Gi"))

			if nodeStep {
				e.waitClaim("data", "the node step", func(pvc *v1.PersistentVolumeClaim) bool {
					return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending && allocated("2Gi")(pvc)
				})
				e.waitUsed("2Gi", "while node expansion is pending")
				e.runPodOnNode("data")
			}
			pvc := e.waitClaim("data", "the resize to finish", func(pvc *v1.PersistentVolumeClaim) bool {
				return finished("2304Mi")(pvc) && allocated("2304Mi")(pvc)
			})
			e.waitUsed("2304Mi", "after the resize")

			// A request within the driver's capacity: nothing to do. Another
			// claim resized after it shows that the resizer has seen it.
			must(t, framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "2200Mi"))
			e.volume("probe")
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

// runPodOnNode starts a real kubelet with the test driver and a pod there
// that mounts claim.
func (e *quotaEnv) runPodOnNode(claim string) {
	e.t.Helper()
	node := startNode(e.t, e.ctx, filepath.Join(e.dir, "node"), e.ns+"-node", e.driver.Name, e.driver.Socket)
	if _, err := framework.RunPod(e.ctx, cluster.Admin, e.ns, "app", node.Name, claim); err != nil {
		e.t.Fatalf("%v (kubelet log: %s)", err, node.Kubelet.Log)
	}
}

// TestQuotaChargesBeyondItsHardLimit: the driver's capacity is above the
// quota's hard limit. kube-apiserver admits the claim's status write
// anyway (the quota admission checks the hard limit on writes of claims,
// not of their status) and charges it: the claim finishes with the real
// size allocated, and the quota's usage goes beyond its hard limit.
func TestQuotaChargesBeyondItsHardLimit(t *testing.T) {
	e := newQuotaEnv(t, "2Gi", false)
	e.volume("data")
	must(t, framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "2Gi"))
	e.waitClaim("data", "the resize to finish", func(pvc *v1.PersistentVolumeClaim) bool {
		return finished("2304Mi")(pvc) && allocated("2304Mi")(pvc)
	})
	e.waitUsed("2304Mi", "after the resize")
	evs, err := framework.Events(e.ctx, cluster.Admin, e.ns, "data")
	must(t, err)
	if all := strings.Join(evs, "\n"); strings.Contains(all, "VolumeResizeFailed") || strings.Contains(all, "QuotaExceeded") {
		t.Errorf("events:\n%s", all)
	}
	// Growing it further is now refused by the quota, as for any claim.
	if err := framework.Grow(e.ctx, cluster.Admin, e.ns, "data", "3Gi"); err == nil || !strings.Contains(err.Error(), "exceeded quota") {
		t.Errorf("growing beyond the quota: %v, want the quota's refusal", err)
	}
}
