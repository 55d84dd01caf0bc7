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
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/pkg/plugin"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestNodeDeployment runs a node-local driver as a DaemonSet runs it, on
// two real Nodes (two kubelets on this machine): on each node the driver's
// own process (one driver name; each process knows its node's volumes and
// is registered with its node's kubelet) and beside it a resizer with
// --node-deployment, under the RBAC of rbac.yaml and
// rbac-node-deployment.yaml. A claim is handled by the instance of the one
// node its PV's node affinity pins it to, and by no other; a volume that
// both nodes can use, or any node, by none.
func TestNodeDeployment(t *testing.T) {
	if tools.TestDriver == "" {
		t.Skip("E2E_TEST_DRIVER names no csi-test-driver binary") // make test-e2e builds it
	}
	d := newNodeDeployment(t)
	a, b := d.a, d.b
	// Each step goes on from the claims as the one before left them.
	step := func(name string, f func(*testing.T)) {
		t.Helper()
		ok := t.Run(name, func(t *testing.T) {
			d.t = t
			f(t)
		})
		if !ok {
			t.FailNow()
		}
		d.t = t
	}
	for _, l := range []*localNode{a, b} {
		d.pinnedVolume(l.claim, pinnedTo(l.name))
	}

	// Each instance expands its node's claim through its node's driver;
	// neither driver sees the other node's claim (checkCalls).
	step("expand", func(t *testing.T) {
		d.grow(a.claim, "2Gi")
		d.grow(b.claim, "2Gi")
		for _, l := range []*localNode{a, b} {
			d.waitClaim(l.claim, "the expansion by the instance of "+l.name, finished("2Gi"))
		}
		for _, l := range []*localNode{a, b} {
			d.checkCalls(l, csidriver.MethodExpand, l.claim+":2Gi")
		}
	})

	// The same for a change of VolumeAttributesClass.
	step("modify", func(t *testing.T) {
		gold := d.ns + "-gold"
		params := map[string]string{"tier": "gold"}
		must(t, framework.CreateAttributesClass(d.ctx, cluster.Admin, gold, d.driverName, params))
		for _, l := range []*localNode{a, b} {
			must(t, framework.SetAttributesClass(d.ctx, cluster.Admin, d.ns, l.claim, gold))
		}
		for _, l := range []*localNode{a, b} {
			d.waitClaim(l.claim, "the modification by the instance of "+l.name, modified(gold))
		}
		for _, l := range []*localNode{a, b} {
			calls := d.checkCalls(l, csidriver.MethodModify, l.claim)
			if !maps.Equal(calls[0].Parameters, params) {
				t.Errorf("ControllerModifyVolume of %s sent %v, want %v", l.claim, calls[0].Parameters, params)
			}
		}
	})

	// A volume both nodes can use (the zone both Nodes carry) and one any
	// node can use (no affinity) are no instance's.
	step("refused", func(t *testing.T) {
		d.pinnedVolume(unpinnedClaim, nil)
		d.pinnedVolume(sharedClaim, framework.RequiredAffinity(in(v1.LabelTopologyZone, d.zone)))
		// In this order: when both instances have refused the shared claim
		// (each one's warning), they have seen the unpinned one grown.
		d.grow(unpinnedClaim, "2Gi")
		d.grow(sharedClaim, "2Gi")
		d.waitConflicts(map[string]int{a.name: 1, b.name: 1})
		for _, l := range []*localNode{a, b} {
			d.waitLog(l, "the line on volumes without affinity", unpinnedLine, `pv="`+d.pvName(unpinnedClaim)+`"`)
		}
		d.checkUntouched(unpinnedClaim, "1Gi")
		d.checkUntouched(sharedClaim, "1Gi")
		if ev := d.events(unpinnedClaim); ev != "" {
			t.Errorf("the claim without node affinity got events:\n%s", ev)
		}
		for _, l := range []*localNode{a, b} {
			d.checkCalls(l, csidriver.MethodExpand, l.claim+":2Gi")
		}
	})

	// While node a has no resizer, its claims wait and node b's go on; the
	// instance started again takes the waiting claim.
	step("resizer down", func(t *testing.T) {
		a.resizer.Kill()
		d.grow(a.claim, "3Gi")
		d.grow(b.claim, "3Gi")
		d.waitClaim(b.claim, "the expansion on node b while node a's resizer is down", finished("3Gi"))
		d.checkUntouched(a.claim, "2Gi")
		d.checkCalls(a, csidriver.MethodExpand, a.claim+":2Gi")

		d.startResizer(a)
		d.waitClaim(a.claim, "the expansion by node a's restarted resizer", finished("3Gi"))
		calls := d.checkCalls(a, csidriver.MethodExpand, a.claim+":2Gi", a.claim+":3Gi")
		if restarted := a.resizer.Pid(); calls[1].Pid != restarted {
			t.Errorf("the expansion to 3Gi came from pid %d, not from the restarted resizer (pid %d)", calls[1].Pid, restarted)
		}
		d.checkCalls(b, csidriver.MethodExpand, b.claim+":2Gi", b.claim+":3Gi")
	})

	// A volume pinned by a label whose value is the node's name moves with
	// the label: in when node a gets it, out when it loses it.
	step("labels", func(t *testing.T) {
		const local, unlabelled = "local", "unlabelled"
		d.pinnedVolume(local, framework.RequiredAffinity(in(localNodeLabel, a.name)))
		d.grow(local, "2Gi")
		d.growProbe(a, "4Gi")
		d.checkUntouched(local, "1Gi")

		must(t, framework.LabelNode(d.ctx, cluster.Admin, a.name, localNodeLabel, a.name))
		d.waitClaim(local, "the expansion once node a has the label", finished("2Gi"))

		// Pinned to node a only while it lacks the label: it comes in when
		// the label goes, which tells that node a's resizer has seen that.
		d.pinnedVolume(unlabelled, framework.RequiredAffinity(in(v1.LabelHostname, a.name),
			v1.NodeSelectorRequirement{Key: localNodeLabel, Operator: v1.NodeSelectorOpDoesNotExist}))
		d.grow(unlabelled, "2Gi")
		d.growProbe(a, "5Gi")
		d.checkUntouched(unlabelled, "1Gi")

		must(t, framework.LabelNode(d.ctx, cluster.Admin, a.name, localNodeLabel, ""))
		d.waitClaim(unlabelled, "the expansion once node a has lost the label", finished("2Gi"))
		d.grow(local, "3Gi")
		d.growProbe(a, "6Gi")
		d.checkUntouched(local, "2Gi")
		d.checkCalls(a, csidriver.MethodExpand, a.claim+":2Gi", a.claim+":3Gi", a.claim+":4Gi", local+":2Gi", a.claim+":5Gi", unlabelled+":2Gi", a.claim+":6Gi")
		d.checkCalls(b, csidriver.MethodExpand, b.claim+":2Gi", b.claim+":3Gi")
	})

	// explain and list name the node whose instance handles a claim, tell
	// from its node Lease whether it runs, and why no instance handles the
	// refused claims. Node b's resizer stops as a DaemonSet pod is stopped
	// (SIGTERM): it deletes its Lease, and a claim grown then is nobody's.
	step("explain", func(t *testing.T) {
		bindExplainer(t)
		must(t, errBindExplainer)
		for claim, why := range map[string]string{
			sharedClaim:   "no instance handles it",
			unpinnedClaim: "the volume has no required node affinity: it is pinned to no node, so no instance handles it",
		} {
			if x := d.explained(claim); x.Owner.Handled || !strings.Contains(x.Owner.Why, why) {
				t.Errorf("explain %s: owner %+v, want not handled: ...%s", claim, x.Owner, why)
			}
		}
		if x := d.explained(a.claim); x.Owner.Node != a.name || x.Resizer == nil || x.Resizer.Node != a.name || x.Resizer.Status != plugin.ResizerRunning {
			t.Errorf("explain %s: owner %+v, resizer %+v; want node %s's instance, running", a.claim, x.Owner, x.Resizer, a.name)
		}
		must(t, b.resizer.Stop(30*time.Second))
		d.grow(b.claim, "4Gi")
		// As an instance leaves a claim it stopped in the middle of: the
		// expansion to 4Gi recorded, the driver not yet answered.
		recorded := `{"status":{"allocatedResources":{"storage":"4Gi"},"allocatedResourceStatuses":{"storage":"ControllerResizeInProgress"}}}`
		_, err := cluster.Admin.CoreV1().PersistentVolumeClaims(d.ns).Patch(d.ctx, b.claim, types.MergePatchType, []byte(recorded), metav1.PatchOptions{}, "status")
		must(t, err)
		x := d.explained(b.claim)
		if x.Owner.Node != b.name || x.Resizer == nil || x.Resizer.Node != b.name || x.Resizer.Status != plugin.ResizerNotRunning ||
			!strings.Contains(x.Resizer.Summary, "no resizer runs on node "+b.name) {
			t.Fatalf("explain %s after node b's resizer stopped: owner %+v, resizer %+v", b.claim, x.Owner, x.Resizer)
		}
		if op := x.Operations[0]; op.NextStepBy != plugin.ByNobody {
			t.Errorf("explain %s: the expansion's next step is %s's (%s), want nobody's", b.claim, op.NextStepBy, op.Next)
		}
		out, stderr, code := runExplain(t, "list", "-n", d.ns, "-o", "json")
		var r plugin.Result
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("list -o json exited with %d (%v): %s%s", code, err, stderr, out)
		}
		i := slices.IndexFunc(r.Items, func(it plugin.Item) bool { return it.Name == b.claim })
		if i < 0 || r.Items[i].Node != b.name || r.Items[i].NextStepBy != plugin.ByNobody {
			t.Errorf("list: %+v, want %s on node %s, nobody's", r.Items, b.claim, b.name)
		}
	})

	// Each run of each instance whose node the zone selects warned once, and
	// said once that volumes without affinity are no instance's; the refused
	// claims are still as they were, and no driver was called for them (the
	// last step checked every expansion of both drivers, this every
	// modification).
	d.waitConflicts(map[string]int{a.name: len(a.runs), b.name: len(b.runs)})
	d.checkUntouched(sharedClaim, "1Gi")
	d.checkUntouched(unpinnedClaim, "1Gi")
	for _, l := range []*localNode{a, b} {
		d.checkCalls(l, csidriver.MethodModify, l.claim)
		for _, p := range l.runs {
			if n := strings.Count(readLog(t, p), unpinnedLine); n != 1 {
				t.Errorf("%s says %d times that volumes without node affinity are no instance's, want once", p.Log, n)
			}
		}
	}
}

// explained explains claim as JSON through the plugin, as the explain
// identity (explain-rbac.yaml), and logs the text an operator sees.
func (d *nodeDeployment) explained(claim string) plugin.Explanation {
	d.t.Helper()
	text, _, _ := runExplain(d.t, "explain", "-n", d.ns, claim)
	d.t.Logf("kubectl csi-resizer explain -n %s %s\n%s", d.ns, claim, text)
	out, stderr, code := runExplain(d.t, "explain", "-n", d.ns, claim, "-o", "json")
	var x plugin.Explanation
	if err := json.Unmarshal([]byte(out), &x); code != 0 || err != nil {
		d.t.Fatalf("explain -o json %s exited with %d (%v): %s%s", claim, code, err, stderr, out)
	}
	return x
}

// The claims of TestNodeDeployment besides each node's own (localNode.claim).
const (
	sharedClaim   = "zonal"
	unpinnedClaim = "anywhere"
	// localNodeLabel is a label whose value on a node is the node's name,
	// as a node-local driver's topology key.
	localNodeLabel = "example.com/local-node"
	// unpinnedLine begins the line by which an instance says that volumes
	// without node affinity are no instance's.
	unpinnedLine = `"Volumes of the driver without node affinity are no --node-deployment instance's`
)

// nodeDeployment is a namespace, a node-local driver's name, the two nodes
// it runs on, and the ServiceAccount of its resizers.
type nodeDeployment struct {
	// env's t is the test or step running; root the test, whose cleanup
	// stops the processes. env has no driver nor resizer of its own.
	*env
	root *testing.T
	zone string
	a, b *localNode
}

// localNode is one Node: a real kubelet, the driver's process on it, and
// the --node-deployment resizer beside it.
type localNode struct {
	name string
	dir  string
	// claim is the node's claim of TestNodeDeployment, pinned to it by its
	// hostname; its volume's handle is its name, as the others'.
	claim   string
	driver  *framework.Driver
	resizer *framework.Process
	// runs are the resizer's runs so far, resizer the last.
	runs []*framework.Process
}

// resizerServiceAccount is the ServiceAccount that rbac.yaml and
// rbac-node-deployment.yaml bind.
const resizerServiceAccount = "csi-resizer"

func newNodeDeployment(t *testing.T) *nodeDeployment {
	t.Helper()
	d := &nodeDeployment{env: newNamespace(t, ""), root: t}
	ctx := d.ctx
	var err error
	d.zone = d.ns + "-zone"
	for _, f := range []string{rbacFile(), filepath.Join("..", "..", "deploy", "kubernetes", "rbac-node-deployment.yaml")} {
		must(t, framework.BindRBAC(ctx, cluster.Admin, f, d.ns))
	}
	d.kubeconfig, err = cluster.ServiceAccountKubeconfig(ctx, d.ns, resizerServiceAccount)
	must(t, err)

	d.a = d.startNode("a", "mine-a", "local", "unlabelled")
	d.b = d.startNode("b", "mine-b")
	for _, l := range []*localNode{d.a, d.b} {
		must(t, framework.LabelNode(ctx, cluster.Admin, l.name, v1.LabelTopologyZone, d.zone))
	}
	for _, l := range []*localNode{d.a, d.b} {
		d.startResizer(l)
	}
	return d
}

// startNode starts the driver's process for the node <namespace>-<suffix>,
// knowing volumes of 1Gi (the first is the node's claim), then the node's
// kubelet, and registers the driver with it.
func (d *nodeDeployment) startNode(suffix string, volumes ...string) *localNode {
	d.t.Helper()
	l := &localNode{name: d.ns + "-" + suffix, dir: filepath.Join(d.dir, suffix), claim: volumes[0]}
	sizes := map[string]int64{}
	for _, v := range volumes {
		sizes[v] = bytes("1Gi")
	}
	driverDir := filepath.Join(l.dir, "driver")
	must(d.t, os.MkdirAll(driverDir, 0o750))
	var err error
	l.driver, err = framework.StartDriver(d.ctx, tools, driverDir, framework.DriverOptions{Scripted: true, Volumes: sizes, Name: d.driverName, Modify: true, NodeID: l.name})
	must(d.t, err)
	d.root.Cleanup(l.driver.Stop)
	startNode(d.t, d.ctx, filepath.Join(l.dir, "node"), l.name, d.driverName, l.driver.Socket)
	return l
}

// startResizer starts (again) the resizer of l's node.
func (d *nodeDeployment) startResizer(l *localNode) {
	d.t.Helper()
	p, err := framework.StartNodeResizer(tools, l.dir, fmt.Sprintf("resizer-%d", len(l.runs)+1), l.name, d.kubeconfig, l.driver.Socket,
		"--node-deployment", "--leader-election=false", "--leader-election-namespace="+d.ns,
		"--retry-interval-start=100ms", "--retry-interval-max=3s", "--v=4")
	must(d.t, err)
	// SIGTERM, as kubelet stops a pod: the resizer deletes its node Lease.
	d.root.Cleanup(func() { _ = p.Stop(30 * time.Second) })
	l.resizer = p
	l.runs = append(l.runs, p)
}

// volume creates a bound claim of 1Gi on the volume whose handle is its
// name, with the PV's node affinity.
func (d *nodeDeployment) pinnedVolume(claim string, affinity *v1.VolumeNodeAffinity) {
	d.t.Helper()
	_, err := framework.CreateBound(d.ctx, cluster.Admin, framework.Volume{Namespace: d.ns, Claim: claim, Class: d.class,
		Driver: d.driverName, Handle: claim, Size: "1Gi", NodeAffinity: affinity})
	must(d.t, err)
}

func (d *nodeDeployment) pvName(claim string) string {
	return framework.Volume{Namespace: d.ns, Claim: claim}.PVName()
}

// growProbe grows l's claim to size and waits until it is finished: once it
// is, l's resizer has seen every claim grown before, in order, and decided
// about it.
func (d *nodeDeployment) growProbe(l *localNode, size string) {
	d.t.Helper()
	d.grow(l.claim, size)
	d.waitClaim(l.claim, "the expansion of "+l.claim+" grown after the claim that waits", finished(size))
}

// checkUntouched reports an error unless the claim is still at capacity,
// with no resize recorded.
func (d *nodeDeployment) checkUntouched(claim, capacity string) {
	d.t.Helper()
	pvc, err := cluster.Admin.CoreV1().PersistentVolumeClaims(d.ns).Get(d.ctx, claim, metav1.GetOptions{})
	must(d.t, err)
	if framework.Capacity(pvc) != capacity || framework.ResizeStatus(pvc) != "" || len(pvc.Status.Conditions) != 0 {
		d.t.Errorf("claim %s was touched, want it waiting at %s: %s", claim, capacity, framework.Describe(pvc))
	}
}

// checkCalls reports an error unless l's driver received exactly the calls
// of method want, in order, each "<volume>[:<size>]", every one from a run
// of l's resizer; it returns them.
func (d *nodeDeployment) checkCalls(l *localNode, method string, want ...string) []csidriver.LoggedCall {
	d.t.Helper()
	all, err := l.driver.ControllerCalls()
	must(d.t, err)
	pids := map[int]bool{}
	for _, p := range l.runs {
		pids[p.Pid()] = true
	}
	var calls []csidriver.LoggedCall
	var got []string
	for _, c := range all {
		if !pids[c.Pid] {
			d.t.Errorf("the driver of %s got %s of %s from pid %d, no run of the node's resizer", l.name, c.Method, c.VolumeID, c.Pid)
		}
		if c.Method != method {
			continue
		}
		s := c.VolumeID
		if method == csidriver.MethodExpand {
			s += ":" + quantityOf(c.RequiredBytes)
		}
		calls, got = append(calls, c), append(got, s)
	}
	if !slices.Equal(got, want) {
		d.t.Fatalf("%s calls of the driver of %s = %v, want %v", method, l.name, got, want)
	}
	return calls
}

func quantityOf(b int64) string {
	return fmt.Sprintf("%dGi", b>>30)
}

// waitLog waits until the current run of l's resizer has logged a line
// holding every one of texts.
func (d *nodeDeployment) waitLog(l *localNode, what string, texts ...string) {
	d.t.Helper()
	err := wait.PollUntilContextTimeout(d.ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		for line := range strings.Lines(readLog(d.t, l.resizer)) {
			if !slices.ContainsFunc(texts, func(s string) bool { return !strings.Contains(line, s) }) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		d.t.Fatalf("waiting for %s in %s: %v", what, l.resizer.Log, err)
	}
}

// waitConflicts waits until the shared claim has the NodeAffinityConflict
// warnings want counts by the node each names, and reports an error if it
// has more.
func (d *nodeDeployment) waitConflicts(want map[string]int) {
	d.t.Helper()
	var got map[string]int
	err := wait.PollUntilContextTimeout(d.ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := cluster.Admin.CoreV1().Events(d.ns).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.name=" + sharedClaim + ",reason=NodeAffinityConflict"})
		if err != nil {
			return false, err
		}
		got = map[string]int{}
		for _, e := range list.Items {
			if e.Type != v1.EventTypeWarning {
				d.t.Errorf("NodeAffinityConflict event of type %s: %s", e.Type, e.Message)
			}
			for node := range want {
				if strings.Contains(e.Message, "node "+node+" ") {
					got[node] += int(max(e.Count, 1))
				}
			}
		}
		return maps.Equal(got, want), nil
	})
	if err != nil {
		d.t.Errorf("NodeAffinityConflict warnings on %s by node = %v, want %v; events:\n%s", sharedClaim, got, want, d.events(sharedClaim))
	}
}

// pinnedTo is the node affinity of a volume of node alone, by its
// hostname, as a node-local driver's provisioner writes it.
func pinnedTo(node string) *v1.VolumeNodeAffinity {
	return framework.RequiredAffinity(in(v1.LabelHostname, node))
}

func in(key, value string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}}
}
