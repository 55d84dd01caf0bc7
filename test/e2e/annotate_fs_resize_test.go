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
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// annPreResizeCapacity is the PV annotation of the feature AnnotateFsResize.
const annPreResizeCapacity = "volume.alpha.kubernetes.io/pre-resize-capacity"

// TestAnnotateFsResizeThroughKubelet: with AnnotateFsResize, the PV keeps
// the claim's capacity before the resize while the node step waits (no pod
// mounts the claim yet), written once, and loses it once kubelet has grown
// the file system and the claim's capacity reaches the PV's. A second
// resize, with the pod running, ends without it too.
func TestAnnotateFsResizeThroughKubelet(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{NodeExpansionRequired: true}, "--feature-gates=AnnotateFsResize=true", "--resync-period=0")
	node := e.startNode("node")
	v := e.volume("data", "1Gi")
	e.grow("data", "2Gi")
	e.waitClaim("data", "the node step to wait for a pod", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending
	})
	e.waitPVAnnotation(v, "1Gi")
	rv := e.pv(v).ResourceVersion
	e.holdClaim("data", "the node step to keep waiting", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending
	})
	if got := e.pv(v).ResourceVersion; got != rv {
		t.Errorf("the PV was written again while the node step waited (resourceVersion %s, then %s)", rv, got)
	}

	e.runPod(node, "app", "data")
	e.waitClaim("data", "kubelet to finish at 2Gi", finished("2Gi"))
	e.waitPVAnnotation(v, "")

	e.grow("data", "3Gi")
	e.waitClaim("data", "kubelet to finish at 3Gi", finished("3Gi"))
	e.waitPVAnnotation(v, "")
	if n := len(e.nodeCalls(csidriver.MethodNodeExpand, v.Handle)); n != 2 {
		t.Errorf("NodeExpandVolume calls = %d, want 2", n)
	}
}

// waitPVAnnotation waits until the PV's pre-resize-capacity annotation is
// want ("": absent).
func (e *env) waitPVAnnotation(v framework.Volume, want string) {
	e.t.Helper()
	var got map[string]string
	err := wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		got = e.pv(v).Annotations
		value, ok := got[annPreResizeCapacity]
		return value == want && ok == (want != ""), nil
	})
	if err != nil {
		e.t.Fatalf("PV %s annotation %s: want %q, annotations %v", v.PVName(), annPreResizeCapacity, want, got)
	}
}
