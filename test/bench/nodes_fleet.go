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
	"strconv"
	"sync"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// fleet is the resizers of one scenario: one for the whole cluster, or one
// per node.
type fleet []*instance

// startFleet starts, at s, one resizer of the whole cluster with identity
// ids[0] when nodes is nil, else one per node of nodes, all at once as a
// DaemonSet's pods start, the i-th with identity ids[i] (whose token the
// API server knows), its own kubeconfig and NODE_NAME; all use the rig's
// driver socket.
func startFleet(r *rig, s setting, nodes []string, ids []framework.Identity, extra []string) (fleet, error) {
	if nodes == nil {
		nodes = []string{""}
	}
	ports, err := framework.FreePorts(len(nodes))
	if err != nil {
		return nil, err
	}
	var f fleet
	for i, node := range nodes {
		in := &instance{node: node, id: ids[i], addr: "127.0.0.1:" + strconv.Itoa(ports[i])}
		name, kubeconfig := "csi-resizer-central", r.kubeconfig
		if node != "" {
			name = "csi-resizer-" + node
			kubeconfig, err = r.cluster.WriteKubeconfig("resizer-"+node, in.id)
		}
		if err == nil {
			err = r.startInstance(in, name, kubeconfig, s, extra)
		}
		if err != nil {
			f.kill()
			return nil, err
		}
		f = append(f, in)
	}
	return f, nil
}

// waitReady waits until every instance's /readyz answers 200 (its caches
// synced), then until its work queue has been seen empty twice a second
// apart: at start every claim is queued once, with nothing to do.
func (f fleet) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := f.untilAll(ctx, 200*time.Millisecond, "not ready", func(in *instance) (bool, error) {
		return in.isReady(ctx, "the resizer of "+in.name())
	})
	if err != nil {
		return err
	}
	return f.untilAll(ctx, time.Second, "still busy", func(in *instance) (bool, error) {
		idle, err := in.queueEmpty(ctx, 2)
		if err != nil {
			err = fmt.Errorf("resizer of %s: %w", in.name(), err)
		}
		return idle, err
	})
}

// untilAll checks the instances every pause until check says each is done.
func (f fleet) untilAll(ctx context.Context, pause time.Duration, what string, check func(*instance) (bool, error)) error {
	for pending := f; len(pending) > 0; {
		var left []*instance
		for _, in := range pending {
			done, err := check(in)
			if err != nil {
				return err
			}
			if !done {
				left = append(left, in)
			}
		}
		if pending = left; len(pending) > 0 {
			if err := sleep(ctx, pause); err != nil {
				return fmt.Errorf("%d of %d resizers %s: %w", len(pending), len(f), what, err)
			}
		}
	}
	return nil
}

// usage reads every instance's memory and CPU, and its PSS.
func (f fleet) usage() ([]procUsage, []int64, error) {
	var us []procUsage
	var pss []int64
	for _, in := range f {
		u, err := in.usage()
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
func (f fleet) cpu() (time.Duration, error) {
	var sum time.Duration
	for _, in := range f {
		c, err := processCPU(in.proc.Pid())
		if err != nil {
			return 0, fmt.Errorf("resizer of %s: %w", in.name(), err)
		}
		sum += c
	}
	return sum, nil
}

// stop stops every instance with SIGTERM, all at once as when a DaemonSet
// is deleted, and fails if one does not exit with 0.
func (f fleet) stop() error {
	errs := make([]error, len(f))
	var wg sync.WaitGroup
	for i, in := range f {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = in.stop("the resizer of " + in.name())
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
func (f fleet) kill() {
	for _, in := range f {
		in.proc.Kill()
	}
}

// isReady reports whether the instance's /readyz answers 200 (its caches
// synced), noting when it did, and fails once the process exited; who
// names it in the error.
func (in *instance) isReady(ctx context.Context, who string) (bool, error) {
	if in.proc.Exited() {
		return false, in.exited(who)
	}
	code, _, err := framework.HTTPGet(ctx, in.addr, "/readyz")
	if err == nil && code == http.StatusOK {
		in.ready = time.Now()
	}
	return err == nil && code == http.StatusOK, nil
}

// queueEmpty reads the depth of the instance's claim queue and reports
// whether the last reads in a row found it empty.
func (in *instance) queueEmpty(ctx context.Context, reads int) (bool, error) {
	v, ok, err := in.metric(ctx, "workqueue_depth", queueDepth)
	if ok && v == 0 {
		in.emptyReads++
	} else {
		in.emptyReads = 0
	}
	return in.emptyReads >= reads, err
}

func (in *instance) name() string {
	if in.node == "" {
		return "the cluster"
	}
	return "node " + in.node
}
