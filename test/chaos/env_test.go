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

// Package chaos runs the resizer binary through faults on the end-to-end
// harness: processes killed at random moments, a CSI driver that fails,
// hangs and restarts, a kube-apiserver restart, and leader election
// replicas killed and terminated. It checks the promises of
// docs/design.md#never and prints the figures. Run it with `make test-chaos`.
package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// resizerNamespace holds the resizer's ServiceAccount and Lease.
const resizerNamespace = "default"

// env is one test's control plane, with the resizer's identity and RBAC.
type env struct {
	t          *testing.T
	ctx        context.Context
	dir        string
	tools      framework.Tools
	cluster    *framework.Cluster
	kubeconfig string
}

// newEnv starts a control plane of its own: the chaos run restarts it.
func newEnv(t *testing.T) *env {
	t.Helper()
	tools, err := framework.ToolsFromEnv()
	must(t, err)
	if tools.TestDriver == "" {
		t.Fatal("E2E_TEST_DRIVER must name the csi-test-driver binary; run `make test-chaos`")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir, err := os.MkdirTemp("", "chaos-") // short: unix socket paths are limited
	must(t, err)
	e := &env{t: t, ctx: ctx, dir: dir, tools: tools}
	start := time.Now()
	resizer := framework.ServiceAccount(resizerNamespace, "csi-resizer")
	e.cluster, err = framework.StartCluster(ctx, tools, dir, resizer)
	must(t, err)
	t.Cleanup(func() {
		e.cluster.Stop()
		if t.Failed() || os.Getenv("CHAOS_KEEP") != "" {
			t.Logf("logs kept in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	rbac := filepath.Join("..", "..", "deploy", "kubernetes", "rbac.yaml")
	must(t, framework.ApplyRBAC(ctx, e.cluster.Admin, rbac, resizerNamespace))
	e.kubeconfig, err = e.cluster.WriteKubeconfig("resizer", resizer)
	must(t, err)
	t.Logf("control plane up in %s (logs in %s)", time.Since(start).Round(time.Millisecond), dir)
	return e
}

// startDriver starts csi-test-driver with the claims' volumes in its
// backend, its socket, state and logs in the test's folder.
func (e *env) startDriver(o framework.DriverOptions, claims []claim) *framework.Driver {
	e.t.Helper()
	return e.startDriverIn(e.dir, o, claims)
}

// startDriverIn is startDriver with the driver's files in dir.
func (e *env) startDriverIn(dir string, o framework.DriverOptions, claims []claim) *framework.Driver {
	e.t.Helper()
	volumes := map[string]int64{}
	for _, c := range claims {
		volumes[c.handle()] = gi(initialGi)
	}
	o.Scripted, o.Volumes = true, volumes
	d, err := framework.StartDriver(e.ctx, e.tools, dir, o)
	must(e.t, err)
	e.t.Cleanup(d.Stop)
	return d
}

// superviseResizer runs a resizer for the driver, restarted as kubelet
// restarts a container.
func (e *env) superviseResizer(name string, d *framework.Driver, args ...string) *framework.Supervisor {
	e.t.Helper()
	s, err := framework.Supervise(name, time.Second, func(run string) (*framework.Process, error) {
		return framework.StartResizer(e.tools, e.dir, run, e.kubeconfig, d.Socket, args...)
	})
	must(e.t, err)
	e.t.Cleanup(func() { s.Close(30 * time.Second) })
	return s
}

// envInt is an integer setting from the environment, for shorter runs
// while developing.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// envDuration is a duration setting from the environment.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// since formats the time from start to t for a timeline.
func since(start, t time.Time) string {
	return fmt.Sprintf("%7.2fs", t.Sub(start).Seconds())
}
