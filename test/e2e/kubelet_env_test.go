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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// startNode starts a real kubelet for this test as the Node
// <namespace>-<name>, registers the test's driver with it and stops it when
// the test ends.
func (e *env) startNode(name string) *framework.Node {
	e.t.Helper()
	return startNode(e.t, e.ctx, filepath.Join(e.dir, name), fmt.Sprintf("%s-%s", e.ns, name), e.driver.Name, e.driver.Socket)
}

// startNode starts a real kubelet in dir as the Node name, registers the
// driver serving socket with it and stops it when the test ends. Without
// root, kubelet cannot run: the test is skipped, saying so, unless CI runs
// it (CI is root, and a skip there would hide the node half of every
// resize).
func startNode(t *testing.T, ctx context.Context, dir, name, driver, socket string) *framework.Node {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o750))
	node, err := framework.StartNode(ctx, tools, cluster, dir, name)
	if errors.Is(err, framework.ErrNotRoot) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	must(t, err)
	t.Cleanup(node.Stop)
	must(t, node.RegisterDriver(ctx, driver, socket))
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
	calls, err := e.driver.Calls(method)
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
	var calls []framework.Call
	err := wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		calls = e.nodeCalls(method, volume)
		return len(calls) >= n, nil
	})
	if err != nil {
		e.t.Fatalf("%s of %s: %d calls, want %d: %+v", method, volume, len(calls), n, calls)
	}
	return calls
}

// watchStatuses records every allocatedResourceStatuses[storage] the claim
// shows from now on, and returns a function that lists them.
func (e *env) watchStatuses(claim string) func() []v1.ClaimResourceStatus {
	e.t.Helper()
	w, err := cluster.Admin.CoreV1().PersistentVolumeClaims(e.ns).Watch(e.ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + claim})
	must(e.t, err)
	e.t.Cleanup(w.Stop)
	var (
		mu   sync.Mutex
		seen []v1.ClaimResourceStatus
	)
	go func() {
		for ev := range w.ResultChan() {
			if pvc, ok := ev.Object.(*v1.PersistentVolumeClaim); ok {
				mu.Lock()
				seen = append(seen, framework.ResizeStatus(pvc))
				mu.Unlock()
			}
		}
	}()
	return func() []v1.ClaimResourceStatus {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// quietWindow is how long a finished claim is watched for kubelet's
// requests, and quietGets how many GETs of it one kubelet may make
// meanwhile: its pod syncs, every 5 to 6 s here, and the one read that may
// trail the finish (the window opens when the claim is seen finished, and
// kubelet's last read can come 20 ms later: it made a v1.36 compat run
// count 3). A claim kubelet still thinks unfinished is read about ten times
// a second, a hundred in the window.
const (
	quietWindow = 10 * time.Second
	quietGets   = 4
)

// checkKubeletQuiet counts kubelet's GETs of the claim during quietWindow
// from now, from the API server's audit log. All kubelets run as one
// identity, so kubelets says how many may read it.
func (e *env) checkKubeletQuiet(claim string, kubelets ...*framework.Node) {
	e.t.Helper()
	from := time.Now()
	// A window of time, not a condition: what is measured is how little
	// happens in it.
	select {
	case <-time.After(quietWindow):
	case <-e.ctx.Done():
		e.t.Fatal(e.ctx.Err())
	}
	gets, err := cluster.AuditEvents(from, time.Now(), func(a framework.AuditEvent) bool {
		return a.FromKubelet() && a.Verb == "get" && a.ObjectRef.Resource == "persistentvolumeclaims" &&
			a.ObjectRef.Namespace == e.ns && a.ObjectRef.Name == claim
	})
	must(e.t, err)
	if allowed := quietGets * max(1, len(kubelets)); len(gets) > allowed {
		e.t.Errorf("kubelet read finished claim %s %d times in %s, want at most %d", claim, len(gets), quietWindow, allowed)
	}
}

// holdClaim checks that cond stays true of the claim for half of
// quietWindow: a window of time, as in checkKubeletQuiet, since what is
// checked is that nothing changes it.
func (e *env) holdClaim(claim, what string, cond func(*v1.PersistentVolumeClaim) bool) {
	e.t.Helper()
	end := time.Now().Add(quietWindow / 2)
	for time.Now().Before(end) {
		pvc, err := cluster.Admin.CoreV1().PersistentVolumeClaims(e.ns).Get(e.ctx, claim, metav1.GetOptions{})
		must(e.t, err)
		if !cond(pvc) {
			e.t.Fatalf("%s: claim %s/%s changed to %s", what, e.ns, claim, framework.Describe(pvc))
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-e.ctx.Done():
			e.t.Fatal(e.ctx.Err())
		}
	}
}
