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

// Package e2e runs the resizer binary against a real kube-apiserver and the
// real CSI mock driver of Kubernetes' e2e tests. Run it with `make test-e2e`.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

var (
	tools      framework.Tools
	cluster    *framework.Cluster
	kubeconfig string // the resizer's: exactly the rules of deploy/kubernetes/rbac.yaml
	// kubeconfigWithoutClasses is that of a resizer with the rules of
	// rbac.yaml but the one on volumeattributesclasses, for the runs with
	// volume modification off.
	kubeconfigWithoutClasses string
	// kubeconfigExplain is that of an operator who runs `kubectl
	// csi-resizer explain`: get and list only, as the ClusterRole of
	// deploy/kubernetes/explain-rbac.yaml, which the explain tests bind.
	kubeconfigExplain string
	counter           atomic.Int32
)

// resizerNamespace holds the resizer's ServiceAccount and Lease.
const resizerNamespace = "default"

// withoutClassesName is the ServiceAccount of kubeconfigWithoutClasses.
const withoutClassesName = "csi-resizer-without-classes"

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	start := time.Now()
	// The drivers make their sockets as a container runtime's root process
	// does: umask 022, so a socket is srwxr-xr-x root, which only root may
	// connect to (TestImageSwapInADriversPod).
	syscall.Umask(0o022)
	var err error
	if tools, err = framework.ToolsFromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "csi-resizer-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	resizer := framework.ServiceAccount(resizerNamespace, "csi-resizer")
	withoutClasses := framework.ServiceAccount(resizerNamespace, withoutClassesName)
	explainer := framework.ServiceAccount(resizerNamespace, explainerName)
	ctx := context.Background()
	cluster, err = framework.StartCluster(ctx, tools, dir, resizer, withoutClasses, explainer)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: start control plane:", err)
		return 1
	}
	defer cluster.Stop()
	if err := framework.ApplyRBAC(ctx, cluster.Admin, rbacFile(), resizerNamespace); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if kubeconfig, err = cluster.WriteKubeconfig("resizer", resizer); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if err := framework.BindRulesWithout(ctx, cluster.Admin, rbacFile(), resizerNamespace, withoutClassesName, "volumeattributesclasses"); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if kubeconfigWithoutClasses, err = cluster.WriteKubeconfig("resizer-without-classes", withoutClasses); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if kubeconfigExplain, err = cluster.WriteKubeconfig("explain", explainer); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	fmt.Printf("e2e: control plane up in %s (logs in %s)\n", time.Since(start).Round(time.Millisecond), dir)
	code := m.Run()
	if code == 0 {
		_ = os.RemoveAll(dir)
	} else {
		fmt.Printf("e2e: failed; logs kept in %s\n", dir)
	}
	return code
}

// rbacFile is the RBAC the resizer runs with; E2E_RBAC overrides it, to
// check that a missing rule fails the suite.
func rbacFile() string {
	if f := os.Getenv("E2E_RBAC"); f != "" {
		return f
	}
	return filepath.Join("..", "..", "deploy", "kubernetes", "rbac.yaml")
}

// env is one test's namespace, StorageClass, driver and resizer.
type env struct {
	t          *testing.T
	ctx        context.Context
	ns         string
	class      string
	dir        string
	driverName string
	driver     *framework.Driver
	resizer    *framework.Process
	args       []string
	// kubeconfig is the resizer's identity: kubeconfig unless changed
	// before startResizer.
	kubeconfig string
}

// newEnv starts a driver with o (its name made unique) and a resizer for it.
// A test of the scripted driver is skipped without its binary: make
// test-e2e builds it, a bare go test may not have it.
func newEnv(t *testing.T, o framework.DriverOptions, resizerArgs ...string) *env {
	t.Helper()
	if o.Scripted && tools.TestDriver == "" {
		t.Skip("E2E_TEST_DRIVER names no csi-test-driver binary")
	}
	e := newNamespace(t, o.Name)
	o.Name = e.driverName
	var err error
	e.driver, err = framework.StartDriver(e.ctx, tools, e.dir, o)
	must(t, err)
	e.args = append([]string{"--retry-interval-start=100ms", "--retry-interval-max=3s", "--v=4"}, resizerArgs...)
	e.startResizer("resizer")
	t.Cleanup(func() {
		if e.resizer != nil {
			_ = e.resizer.Stop(30 * time.Second)
		}
		e.driver.Kill()
	})
	return e
}

// newNamespace is an env with its namespace and StorageClass of driver
// (made unique when empty) and its folder, and no driver nor resizer yet.
func newNamespace(t *testing.T, driver string) *env {
	t.Helper()
	n := counter.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir, err := os.MkdirTemp("", "e2e-") // short: unix socket paths are limited
	must(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs kept in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	e := &env{t: t, ctx: ctx, dir: dir, ns: fmt.Sprintf("e2e-%d", n), class: fmt.Sprintf("e2e-%d", n), kubeconfig: kubeconfig, driverName: driver}
	if e.driverName == "" {
		e.driverName = fmt.Sprintf("e2e-%d.csi.example.com", n)
	}
	must(t, framework.CreateNamespace(ctx, cluster.Admin, e.ns))
	must(t, framework.CreateClass(ctx, cluster.Admin, e.class, e.driverName, nil))
	return e
}

func (e *env) startResizer(name string) *framework.Process {
	e.t.Helper()
	p, err := framework.StartResizer(tools, e.dir, name, e.kubeconfig, e.driver.Socket, e.args...)
	must(e.t, err)
	e.resizer = p
	return p
}

// volume creates a bound claim of size on a fresh mock volume, or on the
// scripted driver's volume "vol-<claim>".
func (e *env) volume(claim, size string, edit ...func(*framework.Volume)) framework.Volume {
	e.t.Helper()
	handle, err := "vol-"+claim, error(nil)
	if !e.driver.Scripted {
		handle, err = e.driver.CreateVolume(e.ctx, e.ns+"-"+claim, bytes(size))
		must(e.t, err)
	}
	v := framework.Volume{Namespace: e.ns, Claim: claim, Class: e.class, Driver: e.driver.Name, Handle: handle, Size: size}
	for _, f := range edit {
		f(&v)
	}
	_, err = framework.CreateBound(e.ctx, cluster.Admin, v)
	must(e.t, err)
	return v
}

// scriptedVolumes are the scripted driver's volumes "vol-<claim>" of 1Gi.
func scriptedVolumes(claims ...string) map[string]int64 {
	volumes := map[string]int64{}
	for _, c := range claims {
		volumes["vol-"+c] = bytes("1Gi")
	}
	return volumes
}

func (e *env) grow(claim, size string) {
	e.t.Helper()
	must(e.t, framework.Grow(e.ctx, cluster.Admin, e.ns, claim, size))
}

func (e *env) waitClaim(claim string, what string, cond func(*v1.PersistentVolumeClaim) bool) *v1.PersistentVolumeClaim {
	e.t.Helper()
	pvc, err := framework.WaitForClaim(e.ctx, cluster.Admin, e.ns, claim, time.Minute, cond)
	if err != nil {
		e.t.Fatalf("waiting for %s: %v", what, err)
	}
	return pvc
}

func (e *env) pvSize(v framework.Volume) string {
	e.t.Helper()
	q := e.pv(v).Spec.Capacity[v1.ResourceStorage]
	return q.String()
}

func (e *env) pv(v framework.Volume) *v1.PersistentVolume {
	e.t.Helper()
	pv, err := cluster.Admin.CoreV1().PersistentVolumes().Get(e.ctx, v.PVName(), metav1.GetOptions{})
	must(e.t, err)
	return pv
}

// calls returns the driver's calls of methods (ControllerExpandVolume
// without any).
func (e *env) calls(methods ...string) []framework.Call {
	e.t.Helper()
	if len(methods) == 0 {
		methods = []string{csidriver.MethodExpand}
	}
	calls, err := e.driver.Calls(methods...)
	must(e.t, err)
	return calls
}

func (e *env) events(claim string) string {
	e.t.Helper()
	evs, err := framework.Events(e.ctx, cluster.Admin, e.ns, claim)
	must(e.t, err)
	return strings.Join(evs, "\n")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func bytes(size string) int64 {
	q := resource.MustParse(size)
	return q.Value()
}

func metaName(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }

func createOpts() metav1.CreateOptions { return metav1.CreateOptions{} }

func quantity(s string) resource.Quantity { return resource.MustParse(s) }
