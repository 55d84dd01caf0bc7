//go:build chaos

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

package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// nodeName is the Node of the run's kubelet, and the node ID its driver
// answers; claimsPerPod is how many of the node share's claims a pod mounts.
const (
	nodeName     = "chaos-node"
	claimsPerPod = 5
)

// nodeShare is the part of the run that goes through a real kubelet: claims
// whose volumes are of nodeDriver, which answers node_expansion_required,
// mounted by pods on the node, where kubelet expands them online with
// NodeExpandVolume and records the capacity; the driver's own resizer; and
// the node's faults, drawn from rnd: kubelet restarts, and NodeExpandVolume
// answers scripted in each wave.
type nodeShare struct {
	e      *env
	rnd    *rand.Rand
	claims []claim
	member map[claim]bool
	// opts are the driver's options from the window on (its first run,
	// before, mounts the volumes without faults).
	opts    framework.DriverOptions
	driver  *framework.Driver
	resizer *framework.Supervisor
	node    *framework.Node
	pods    int
	// podsUp is how long the pods took to run, every volume staged and
	// published.
	podsUp time.Duration
	// kubelets are the runs of kubelet, for the pids of the node calls.
	kubelets []framework.Lifetime
	// armed counts the NodeExpandVolume answers scripted, by kind.
	armed map[string]int
	// recovery is the recovery from refusals on the node.
	recovery *recovery
}

// nodeFaultRate is the share of the node share's claims grown in a wave
// whose next NodeExpandVolume gets one of nodeFaults.
const nodeFaultRate = 0.3

// nodeFaults are the scripted answers of NodeExpandVolume, drawn evenly. An
// Internal error is final: kubelet adds the condition NodeResizeError and
// tries again after its backoff. Unavailable is not final: kubelet tries
// again. A slow call succeeds after 4s, unless kubelet dies first (the call
// is then cut, and the next kubelet expands again). None of them lets
// kubelet (v1.36) find a size infeasible, which it does on a final failure
// when the volume failed finally before and the request has moved beyond
// the size it expands to: a wave scripts at most one answer per volume,
// for the expansion that wave asks for, and a restarted driver gets an
// empty script (it would replay the answers already taken). The refusals
// of the recovery are the only infeasible sizes, on purpose (see
// recovery); their claims get none of these answers.
var nodeFaults = []struct {
	kind   string
	answer framework.Answer
}{
	{"Internal", framework.Answer{Code: codes.Internal.String(), Message: "injected: resize2fs failed"}},
	{"Unavailable", framework.Answer{Code: codes.Unavailable.String(), Message: "injected: node plugin busy"}},
	{"slow", framework.Answer{Code: codes.OK.String(), Delay: "4s"}},
}

// nodeFaultKinds names the kinds of nodeFaults, in order.
func nodeFaultKinds() []string {
	var kinds []string
	for _, f := range nodeFaults {
		kinds = append(kinds, f.kind)
	}
	return kinds
}

// pickNodeShare draws k of the n claims, by index, for the node share.
func pickNodeShare(rnd *rand.Rand, n, k int) map[int]bool {
	share := map[int]bool{}
	for _, i := range rnd.Perm(n)[:min(max(k, 0), n)] {
		share[i] = true
	}
	return share
}

// startNodeShare starts the node driver with the claims' volumes, a kubelet
// that knows it, and pods that mount the claims, claimsPerPod each; it
// returns once every pod runs. The driver gets o's faults from begin on;
// recov is fed by the claim watch.
func (e *env) startNodeShare(o framework.DriverOptions, claims []claim, rnd *rand.Rand, recov *recovery) *nodeShare {
	t := e.t
	t.Helper()
	s := &nodeShare{e: e, rnd: rnd, claims: claims, member: map[claim]bool{}, opts: o, armed: map[string]int{}, recovery: recov}
	for _, cl := range claims {
		s.member[cl] = true
	}
	dir := filepath.Join(e.dir, "node-driver")
	must(t, os.MkdirAll(dir, 0o750))
	setup := o
	setup.FailRate, setup.HangRate = 0, 0
	s.driver = e.startDriverIn(dir, setup, claims)

	nodeDir := filepath.Join(e.dir, "node")
	must(t, os.MkdirAll(nodeDir, 0o750))
	began := time.Now()
	node, err := framework.StartNode(e.ctx, e.tools, e.cluster, nodeDir, nodeName)
	must(t, err)
	t.Cleanup(node.Stop)
	s.node = node
	s.kubelets = []framework.Lifetime{{Name: "kubelet-1", Pid: node.Kubelet.Pid(), Start: began, Log: node.Kubelet.Log}}
	must(t, node.RegisterDriver(e.ctx, o.Name, s.driver.Socket))

	var groups [][]string
	for i, cl := range claims {
		if i%claimsPerPod == 0 {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], cl.name)
	}
	s.pods = len(groups)
	began = time.Now()
	err = framework.Parallel(e.ctx, len(groups), 4, func(ctx context.Context, i int) error {
		_, err := framework.RunPod(ctx, e.cluster.Admin, claims[0].ns, fmt.Sprintf("app-%02d", i), nodeName, groups[i]...)
		return err
	}, nil)
	if err != nil {
		t.Fatalf("%v (kubelet log: %s)", err, node.Kubelet.Log)
	}
	s.podsUp = time.Since(began)
	return s
}

// begin starts the window for the node share: the driver starts again with
// the run's faults until faultsUntil (its options are read at its start;
// kubelet reaches it again on the same socket), and its resizer starts.
func (s *nodeShare) begin(ctx context.Context, faultsUntil time.Time) error {
	s.driver.Stop()
	s.opts.FaultsUntil = faultsUntil
	s.driver.DriverOptions = s.opts
	if err := s.driver.Start(ctx); err != nil {
		return err
	}
	s.resizer = s.e.superviseResizer("resizer-node", s.driver, chaosResizerArgs...)
	return nil
}

// count is how many of claims are in the node share.
func (s *nodeShare) count(claims []claim) int {
	n := 0
	for _, cl := range claims {
		if s.member[cl] {
			n++
		}
	}
	return n
}

// refusalKind counts the recovery's refusals among the answers scripted.
const refusalKind = "OutOfRange"

// armFaults scripts the next NodeExpandVolume of the claims that p
// refuses, and of a share of the node share's other claims in grown, held
// ones apart, replacing the answers of the wave before, and says how many
// of each kind.
func (s *nodeShare) armFaults(grown []claim, p recoveryPlan) (string, error) {
	var answers []framework.Answer
	counts := map[string]int{}
	for _, cl := range p.refuse {
		a := refusal
		a.Method, a.VolumeID = csidriver.MethodNodeExpand, cl.handle()
		answers = append(answers, a)
		counts[refusalKind]++
		s.armed[refusalKind]++
	}
	for _, cl := range grown {
		if !s.member[cl] || p.held[cl] || slices.Contains(p.refuse, cl) || s.rnd.Float64() >= nodeFaultRate {
			continue
		}
		f := nodeFaults[s.rnd.IntN(len(nodeFaults))]
		a := f.answer
		a.Method, a.VolumeID = csidriver.MethodNodeExpand, cl.handle()
		answers = append(answers, a)
		counts[f.kind]++
		s.armed[f.kind]++
	}
	if err := s.driver.Script(answers...); err != nil {
		return "", fmt.Errorf("script NodeExpandVolume: %w", err)
	}
	var parts []string
	for _, kind := range append([]string{refusalKind}, nodeFaultKinds()...) {
		if counts[kind] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[kind], kind))
		}
	}
	return strings.Join(parts, ", "), nil
}

// restartKubelet kills kubelet with SIGKILL and starts it again at once on
// the same root directory, as a node's kubelet restarts.
func (s *nodeShare) restartKubelet(ctx context.Context) (string, error) {
	last := &s.kubelets[len(s.kubelets)-1]
	began := time.Now()
	if err := s.node.RestartKubelet(ctx); err != nil {
		return "", err
	}
	// Both ends are taken wide, as a Lifetime's are: the old kubelet died
	// within the restart, and the new one started within it.
	last.End, last.Ended = time.Now(), framework.EndedKilled
	next := framework.Lifetime{Name: fmt.Sprintf("kubelet-%d", len(s.kubelets)+1), Pid: s.node.Kubelet.Pid(), Start: began, Log: s.node.Kubelet.Log}
	s.kubelets = append(s.kubelets, next)
	return fmt.Sprintf("pid %d after %s, pid %d started", last.Pid, began.Sub(last.Start).Round(time.Millisecond), next.Pid), nil
}

// kubeletOf is the kubelet run with pid, false when none had it.
func (s *nodeShare) kubeletOf(pid int) (framework.Lifetime, bool) {
	i := slices.IndexFunc(s.kubelets, func(l framework.Lifetime) bool { return l.Pid == pid })
	if i < 0 {
		return framework.Lifetime{}, false
	}
	return s.kubelets[i], true
}
