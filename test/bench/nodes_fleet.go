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

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// instance is one resizer process of a fleet.
type instance struct {
	// node is the instance's node with --node-deployment, "" for a
	// resizer of the whole cluster.
	node string
	id   framework.Identity
	proc *framework.Process
	addr string
	// started is when the process was started, ready when its /readyz
	// first answered 200.
	started, ready time.Time
}

// fleet is the resizers of one scenario: one for the whole cluster, or one
// per node.
type fleet struct {
	instances []*instance
}

// startCentral starts one resizer of the whole cluster with the rig's
// identity, at s.
func startCentral(r *rig, s setting, extra []string) (*fleet, error) {
	in := &instance{id: r.resizerID}
	port, err := framework.FreePort()
	if err != nil {
		return nil, err
	}
	in.addr = "127.0.0.1:" + strconv.Itoa(port)
	args := append(s.args(), "--http-endpoint="+in.addr)
	in.started = time.Now()
	if in.proc, err = framework.StartResizer(r.tools, r.dir, "csi-resizer-central", r.kubeconfig, r.driver.Socket, append(args, extra...)...); err != nil {
		return nil, err
	}
	return &fleet{instances: []*instance{in}}, nil
}

// nodeArgs are the flags of the resizer on a node: --node-deployment,
// without leader election, its node Lease in the namespace of the
// resizer's RBAC.
func nodeArgs() []string {
	return []string{"--" + options.FlagNodeDeployment, "--leader-election=false", "--leader-election-namespace=" + resizerNamespace}
}

// startPerNode starts one resizer per node of nodes, all at once as a
// DaemonSet's pods start, the i-th with identity ids[i] (whose token the
// API server knows), its own kubeconfig and NODE_NAME, at s; all use the
// rig's driver socket.
func startPerNode(r *rig, s setting, nodes []string, ids []framework.Identity, extra []string) (*fleet, error) {
	ports, err := framework.FreePorts(len(nodes))
	if err != nil {
		return nil, err
	}
	f := &fleet{}
	for i, node := range nodes {
		in := &instance{node: node, id: ids[i], addr: "127.0.0.1:" + strconv.Itoa(ports[i])}
		kubeconfig, err := r.cluster.WriteKubeconfig("resizer-"+node, in.id)
		if err != nil {
			f.kill()
			return nil, err
		}
		args := append(append(append([]string{"--http-endpoint=" + in.addr}, s.args()...), nodeArgs()...), extra...)
		in.started = time.Now()
		if in.proc, err = framework.StartNodeResizer(r.tools, r.dir, "csi-resizer-"+node, node, kubeconfig, r.driver.Socket, args...); err != nil {
			f.kill()
			return nil, err
		}
		f.instances = append(f.instances, in)
	}
	return f, nil
}

// waitReady waits until every instance's /readyz answers 200 (its caches
// synced), then until its work queue has been seen empty twice a second
// apart: at start every claim is queued once, with nothing to do.
func (f *fleet) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pending := slices.Clone(f.instances)
	for len(pending) > 0 {
		var left []*instance
		for _, in := range pending {
			if in.proc.Exited() {
				return fmt.Errorf("the resizer of %s exited with code %d; see %s", in.name(), in.proc.ExitCode(), in.proc.Log)
			}
			code, _, err := framework.HTTPGet(ctx, in.addr, "/readyz")
			if err == nil && code == http.StatusOK {
				in.ready = time.Now()
				continue
			}
			left = append(left, in)
		}
		if pending = left; len(pending) > 0 {
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return fmt.Errorf("%d of %d resizers not ready: %w", len(pending), len(f.instances), err)
			}
		}
	}
	queue := map[string]string{"name": driverName + "-pvc"}
	empty := map[*instance]int{}
	pending = slices.Clone(f.instances)
	for len(pending) > 0 {
		var left []*instance
		for _, in := range pending {
			v, ok, err := metricAt(ctx, in.addr, "workqueue_depth", queue)
			if err != nil {
				return fmt.Errorf("resizer of %s: %w", in.name(), err)
			}
			if ok && v == 0 {
				empty[in]++
			} else {
				empty[in] = 0
			}
			if empty[in] < 2 {
				left = append(left, in)
			}
		}
		if pending = left; len(pending) > 0 {
			if err := sleep(ctx, time.Second); err != nil {
				return fmt.Errorf("%d of %d resizers still busy: %w", len(pending), len(f.instances), err)
			}
		}
	}
	return nil
}

// readyTimes are the instances' times from start to /readyz.
func (f *fleet) readyTimes() []time.Duration {
	var out []time.Duration
	for _, in := range f.instances {
		out = append(out, in.ready.Sub(in.started))
	}
	return out
}

// usage reads every instance's memory and CPU, and its proportional set
// size (PSS: the pages it shares, such as the binary's, divided among the
// processes that map them).
func (f *fleet) usage() ([]procUsage, []int64, error) {
	var us []procUsage
	var pss []int64
	for _, in := range f.instances {
		u, err := readUsage(in.proc.Pid())
		if err != nil {
			return nil, nil, fmt.Errorf("resizer of %s: %w", in.name(), err)
		}
		p, err := readPss(in.proc.Pid())
		if err != nil {
			return nil, nil, fmt.Errorf("resizer of %s: %w", in.name(), err)
		}
		us, pss = append(us, u), append(pss, p)
	}
	return us, pss, nil
}

// cpu is the instances' CPU time so far, summed.
func (f *fleet) cpu() (time.Duration, error) {
	var sum time.Duration
	for _, in := range f.instances {
		text, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", in.proc.Pid()))
		if err != nil {
			return 0, fmt.Errorf("resizer of %s: %w", in.name(), err)
		}
		c, err := parseStatCPU(string(text))
		if err != nil {
			return 0, err
		}
		sum += c
	}
	return sum, nil
}

// stop stops every instance with SIGTERM, all at once as when a DaemonSet
// is deleted, and fails if one does not exit with 0.
func (f *fleet) stop() error {
	errs := make([]error, len(f.instances))
	var wg sync.WaitGroup
	for i, in := range f.instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := in.proc.Stop(30 * time.Second)
			if err == nil && in.proc.ExitCode() != 0 {
				err = fmt.Errorf("the resizer of %s exited with code %d; see %s", in.name(), in.proc.ExitCode(), in.proc.Log)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// kill kills every instance started so far.
func (f *fleet) kill() {
	for _, in := range f.instances {
		in.proc.Kill()
	}
}

func (in *instance) name() string {
	if in.node == "" {
		return "the cluster"
	}
	return "node " + in.node
}

// readPss reads the Pss line of /proc/<pid>/smaps_rollup, in bytes.
func readPss(pid int) (int64, error) {
	text, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, err
	}
	return parsePss(string(text))
}

// parsePss reads "Pss:   12345 kB" of an smaps_rollup.
func parsePss(text string) (int64, error) {
	for _, line := range strings.Split(text, "\n") {
		value, ok := strings.CutPrefix(line, "Pss:")
		if !ok {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected Pss line %q", line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("Pss: %w", err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no Pss line")
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
