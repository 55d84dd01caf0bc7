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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// startNode starts a real kubelet for this test, registers the test's
// driver with it and stops it when the test ends. Without root, kubelet
// cannot run: the test is skipped, saying so, unless CI runs it (CI is
// root, and a skip there would hide the node half of every resize).
func (e *env) startNode() *framework.Node {
	e.t.Helper()
	name := fmt.Sprintf("node-%s", e.ns)
	dir := filepath.Join(e.dir, "node")
	must(e.t, os.MkdirAll(dir, 0o750))
	node, err := framework.StartNode(e.ctx, tools, cluster, dir, name)
	if errors.Is(err, framework.ErrNotRoot) && os.Getenv("CI") == "" {
		e.t.Skip(err)
	}
	must(e.t, err)
	e.t.Cleanup(node.Stop)
	must(e.t, node.RegisterDriver(e.ctx, e.driver.Name, e.driver.Socket))
	return node
}

// runPod starts a pod on node that mounts claims, and waits until it runs.
func (e *env) runPod(node *framework.Node, pod string, claims ...string) {
	e.t.Helper()
	_, err := framework.RunPod(e.ctx, cluster.Admin, e.ns, pod, node.Name, claims...)
	if err != nil {
		e.t.Fatalf("%v (kubelet log: %s)", err, node.Kubelet.Log)
	}
}

// nodeCalls returns the driver's calls of a node method on volume.
func (e *env) nodeCalls(method, volume string) []framework.Call {
	e.t.Helper()
	calls, err := e.driver.NodeCalls(method)
	must(e.t, err)
	var out []framework.Call
	for _, c := range calls {
		if c.VolumeID == volume {
			out = append(out, c)
		}
	}
	return out
}

// waitNodeCalls waits until volume has received n calls of the node method.
func (e *env) waitNodeCalls(method, volume string, n int) []framework.Call {
	e.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		calls := e.nodeCalls(method, volume)
		if len(calls) >= n {
			return calls
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s of %s: %d calls, want %d: %+v", method, volume, len(calls), n, calls)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
