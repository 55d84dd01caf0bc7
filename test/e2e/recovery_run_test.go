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
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// recoveryRow is a row of docs/design.md's "Recovery cases".
type recoveryRow struct {
	row string
	// script is the driver's answers for the row's volume.
	script []framework.Answer
	// steps are the requests the user sets, from 1Gi, each with the state
	// the claim must reach before the next.
	steps []recoveryStep
	// controller and node are the ControllerExpandVolume and
	// NodeExpandVolume calls of the volume, as runs of equal calls (see
	// matchRuns); nodeRWX, when set, the NodeExpandVolume calls of the RWX
	// volume, in any order (its two kubelets call in turn).
	controller, node, nodeRWX []string
	// pv is the PV's capacity at the end.
	pv string
	// event, when set, is one of the claim's events.
	event fact
}

// recoveryStep is a request and the state it must lead to.
type recoveryStep struct {
	request string
	want    func(*v1.PersistentVolumeClaim) bool
	// call, when set, is a ControllerExpandVolume call ("3Gi:Internal")
	// that must have ended before the next step.
	call string
	// hold checks that the state lasts: nothing else happens. stays, when
	// set, is the state that must last, when want is a moment of it (a
	// retried failure shows its error between the attempts only).
	hold  bool
	stays func(*v1.PersistentVolumeClaim) bool
	// atOnce: the driver is asked for the request within atOnceBound of
	// the change, not after a backoff or the slow lane.
	atOnce bool
	// explained, when set, is what explain must say of the resize once
	// the step's state is reached: "state/next step by", as in
	// "node_infeasible/user"; alternatives separated by "|".
	explained string
}

// lasting is the state the step's hold checks.
func (s recoveryStep) lasting() func(*v1.PersistentVolumeClaim) bool {
	if s.stays != nil {
		return s.stays
	}
	return s.want
}

// slowLane is the matrix resizer's --retry-interval-max: how long a size
// refused as infeasible, or answered short, waits before it is asked for
// again. It is shorter than a hold (quietWindow/2), so that a row sees
// the retry of a short answer while it holds.
const slowLane = 4 * time.Second

// atOnceBound is what "at once" allows: under the slow lane's wait, with a
// second to spare for a loaded machine (make test-compat runs three
// suites at a time).
const atOnceBound = slowLane - time.Second

// refusals is how many times a script refuses a size: more than the calls
// a row makes of it.
const refusals = 40

// refuse scripts the refusal of each size with code, refusals times over.
func refuse(method, code string, sizes ...string) []framework.Answer {
	var out []framework.Answer
	for _, size := range sizes {
		out = append(out, repeat(refusals, framework.Answer{Method: method, Size: size, Code: code, Message: "refused: at most 2560Mi"})...)
	}
	return out
}

func repeat(n int, a framework.Answer) []framework.Answer {
	out := make([]framework.Answer, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// matrixCase is a row on one claim: RWO, on node a; RWX, on nodes a and b.
type matrixCase struct {
	recoveryRow
	claim string
	rwx   bool
	v     framework.Volume
}

// runMatrix runs the rows of a driver at once, each on an RWO claim and an
// RWX claim of its own, with one resizer and two kubelets.
func runMatrix(t *testing.T, driver framework.DriverOptions, rows []recoveryRow) {
	// The rows' claims change at once: the resizer gets the API rate of
	// a busy cluster's, so that "at once" is not a wait for its client's
	// rate limiter (5 requests a second by default). Its Lease tells
	// explain that it runs.
	e := newEnv(t, driver, append(withLease, "--resync-period=0", "--kube-api-qps=200", "--kube-api-burst=400",
		"--retry-interval-max="+slowLane.String())...)
	bindExplainer(t)
	nodes := []*framework.Node{e.startNode("a"), e.startNode("b")}
	var cases []*matrixCase
	var script []framework.Answer
	for _, r := range rows {
		for _, rwx := range []bool{false, true} {
			c := &matrixCase{recoveryRow: r, rwx: rwx, claim: strings.ToLower(r.row) + "-rwo"}
			if rwx {
				c.claim = strings.ToLower(r.row) + "-rwx"
			}
			c.v = e.volume(c.claim, "1Gi", func(v *framework.Volume) {
				if rwx {
					v.AccessModes = []v1.PersistentVolumeAccessMode{v1.ReadWriteMany}
				}
			})
			for _, a := range r.script {
				a.VolumeID = c.v.Handle
				script = append(script, a)
			}
			cases = append(cases, c)
		}
	}
	must(t, e.driver.Script(script...))
	e.runMatrixPods(cases, nodes)
	for _, c := range cases {
		t.Run(c.claim, func(t *testing.T) {
			t.Parallel()
			ce := *e
			ce.t = t
			ce.runRow(c)
		})
	}
}

// runMatrixPods starts the pods of the cases: an RWO claim's on the first
// node, an RWX claim's on every node.
func (e *env) runMatrixPods(cases []*matrixCase, nodes []*framework.Node) {
	type pod struct{ claim, node string }
	var pods []pod
	for _, c := range cases {
		for i, n := range nodes {
			if i == 0 || c.rwx {
				pods = append(pods, pod{c.claim, n.Name})
			}
		}
	}
	err := framework.Parallel(e.ctx, len(pods), len(pods), func(ctx context.Context, i int) error {
		p := pods[i]
		_, err := framework.RunPod(ctx, cluster.Admin, e.ns, fmt.Sprintf("%s-%d", p.claim, i), p.node, p.claim)
		return err
	}, nil)
	must(e.t, err)
}

func (e *env) runRow(c *matrixCase) {
	t := e.t
	var pvc *v1.PersistentVolumeClaim
	changed := make([]time.Time, len(c.steps))
	for n, s := range c.steps {
		changed[n] = time.Now()
		e.grow(c.claim, s.request)
		what := fmt.Sprintf("step %d (request %s)", n+1, s.request)
		pvc = e.waitClaim(c.claim, what, s.want)
		if s.call != "" {
			e.waitFor(fmt.Sprintf("%s: the driver to answer %s", what, s.call), func() bool {
				return slices.Contains(callsOf(e.volumeCalls(c.v), expandCallOf), s.call)
			})
		}
		if s.explained != "" {
			e.checkResizeExplained(c.claim, what, s.explained)
		}
		if s.hold {
			e.holdClaim(c.claim, what+" to last", s.lasting())
		}
	}
	if got := e.pvSize(c.v); got != c.pv {
		t.Errorf("PV size = %s, want %s (claim %s)", got, c.pv, framework.Describe(pvc))
	}
	controller := e.volumeCalls(c.v)
	if got := callsOf(controller, expandCallOf); !matchRuns(got, c.controller) {
		t.Errorf("ControllerExpandVolume calls = %v, want %v", got, c.controller)
	}
	checkSlowLane(t, controller)
	for n, s := range c.steps {
		if s.atOnce {
			checkAtOnce(t, controller, s.request, changed[n])
		}
	}
	node := callsOf(e.nodeCalls(csidriver.MethodNodeExpand, c.v.Handle), callOf)
	switch {
	case !c.rwx && !matchRuns(node, c.node):
		t.Errorf("NodeExpandVolume calls = %v, want %v", node, c.node)
	case c.rwx && !sameCalls(node, c.nodeOfRWX()):
		t.Errorf("NodeExpandVolume calls of both nodes = %v, want these in any order: %v", node, c.nodeOfRWX())
	}
	if c.event.reason != "" {
		e.waitFact(c.claim, c.event)
	}
}

// checkResizeExplained checks explain's state and next step owner of the
// claim's resize against want ("state/owner", alternatives split by "|").
func (e *env) checkResizeExplained(claim, what, want string) {
	e.t.Helper()
	x := e.explain(claim)
	for _, o := range x.Operations {
		if o.Operation != "resize" {
			continue
		}
		if got := o.State + "/" + o.NextStepBy; !slices.Contains(strings.Split(want, "|"), got) {
			e.t.Errorf("%s: explain says %s (%s; next: %s; decision %+v), want %s", what, got, o.Summary, o.Next, o.Decision, want)
		}
		return
	}
	e.t.Errorf("%s: explain has no resize: %+v", what, x.Operations)
}

func (c *matrixCase) nodeOfRWX() []string {
	if c.nodeRWX != nil {
		return c.nodeRWX
	}
	return c.node
}

// volumeCalls are the ControllerExpandVolume calls of v.
func (e *env) volumeCalls(v framework.Volume) []framework.Call {
	var out []framework.Call
	for _, c := range e.calls() {
		if c.VolumeID == v.Handle {
			out = append(out, c)
		}
	}
	return out
}

func callsOf(calls []framework.Call, format func(framework.Call) string) []string {
	out := make([]string, 0, len(calls))
	for _, c := range calls {
		out = append(out, format(c))
	}
	return out
}

// expandCallOf is a ControllerExpandVolume call as "size:code", with
// "=capacity" when it answered another size than it was asked for.
func expandCallOf(c framework.Call) string {
	s := callOf(c)
	if c.Code == "OK" && c.CapacityBytes != c.RequiredBytes {
		s += "=" + sizeOf(c.CapacityBytes)
	}
	return s
}
