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

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestKubeletExpandsMountedVolume grows a claim a running pod mounts: the
// resizer expands the volume and hands it to kubelet, and the real kubelet
// calls NodeExpandVolume and finishes the claim.
func TestKubeletExpandsMountedVolume(t *testing.T) {
	e := newEnv(t, framework.DriverOptions{NodeExpansionRequired: true})
	node := e.startNode()
	v := e.volume("data", "1Gi")
	e.runPod(node, "app", "data")
	e.grow("data", "2Gi")

	e.waitClaim("data", "kubelet to finish the resize", finished("2Gi"))
	calls := e.nodeCalls(framework.MethodNodeExpand, v.Handle)
	if len(calls) != 1 || calls[0].RequiredBytes != bytes("2Gi") || calls[0].Code != "OK" {
		t.Errorf("NodeExpandVolume calls = %+v, want one of 2Gi", calls)
	}
	e.waitEvent("data", "FileSystemResizeSuccessful")
}
