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
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

const (
	// resizerNamespace holds the resizer's ServiceAccount, as in test/e2e.
	resizerNamespace = "default"
	benchNamespace   = "bench"
	benchClass       = "bench"
	driverName       = "bench.csi.example.com"
)

// setting is an API budget and worker count of the resizer.
type setting struct {
	Name       string
	QPS, Burst int
	Workers    int
}

// knownSettings are the two settings of the issue.
var knownSettings = map[string]setting{
	"default": {Name: "default", QPS: 5, Burst: 10, Workers: 10},
	"fast":    {Name: "fast", QPS: 100, Burst: 200, Workers: 50},
}

// parseSetting reads "default", "fast" or "QPS/BURST/WORKERS".
func parseSetting(s string) (setting, error) {
	if k, ok := knownSettings[s]; ok {
		return k, nil
	}
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return setting{}, fmt.Errorf("setting %q: want default, fast or QPS/BURST/WORKERS", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v <= 0 {
			return setting{}, fmt.Errorf("setting %q: %q is not a positive number", s, p)
		}
		n[i] = v
	}
	return setting{Name: s, QPS: n[0], Burst: n[1], Workers: n[2]}, nil
}

func (s setting) args() []string {
	return []string{"--kube-api-qps=" + strconv.Itoa(s.QPS), "--kube-api-burst=" + strconv.Itoa(s.Burst), "--workers=" + strconv.Itoa(s.Workers)}
}

func (s setting) String() string {
	return fmt.Sprintf("QPS %d / burst %d / %d workers", s.QPS, s.Burst, s.Workers)
}

// rig is one run's control plane, driver and resizer. Every run gets its
// own, so that no run's objects weigh on another's caches.
type rig struct {
	dir        string
	tools      framework.Tools
	cluster    *framework.Cluster
	admin      kubernetes.Interface
	resizerID  framework.Identity
	kubeconfig string
	driver     *framework.Driver
	resizer    *framework.Process
	httpAddr   string
}

// newRig starts etcd, kube-apiserver (with its audit log), applies the
// resizer's RBAC and starts the CSI mock driver, controller expansion only.
func newRig(ctx context.Context, cfg *config, name string) (r *rig, err error) {
	return newRigWith(ctx, cfg, name, framework.DriverOptions{Name: driverName})
}

// newRigWith is newRig with the driver's options (its Name is driverName);
// the API server also accepts the tokens of extra.
func newRigWith(ctx context.Context, cfg *config, name string, driver framework.DriverOptions, extra ...framework.Identity) (r *rig, err error) {
	r = &rig{dir: filepath.Join(cfg.dir, name), tools: cfg.tools,
		resizerID: framework.ServiceAccount(resizerNamespace, "csi-resizer")}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	start := time.Now()
	if r.cluster, err = framework.StartCluster(ctx, cfg.tools, r.dir, append([]framework.Identity{r.resizerID}, extra...)...); err != nil {
		return r, fmt.Errorf("start control plane: %w", err)
	}
	if err = framework.ApplyRBAC(ctx, r.cluster.Admin, cfg.rbac, resizerNamespace); err != nil {
		return r, err
	}
	if r.kubeconfig, err = r.cluster.WriteKubeconfig("resizer", r.resizerID); err != nil {
		return r, err
	}
	// The benchmark's own client: fast enough that it never is the
	// bottleneck, and protobuf like the resizer.
	admin := rest.CopyConfig(r.cluster.AdminConfig)
	admin.QPS, admin.Burst = 5000, 10000
	admin.ContentType = runtime.ContentTypeProtobuf
	if r.admin, err = kubernetes.NewForConfig(admin); err != nil {
		return r, err
	}
	if cfg.apiServer == "" {
		cfg.apiServer = serverVersion(ctx, r.admin)
	}
	if err = framework.CreateNamespace(ctx, r.admin, benchNamespace); err != nil {
		return r, err
	}
	if err = framework.CreateClass(ctx, r.admin, benchClass, driverName, nil); err != nil {
		return r, err
	}
	driver.Name = driverName
	if r.driver, err = framework.StartDriver(ctx, cfg.tools, r.dir, driver); err != nil {
		return r, err
	}
	say("control plane and CSI mock driver up in %s (logs in %s)", since(start), r.dir)
	return r, nil
}

// startResizer starts the resizer binary and waits until /readyz says its
// caches are synced.
func (r *rig) startResizer(ctx context.Context, s setting, extra ...string) error {
	port, err := framework.FreePort()
	if err != nil {
		return err
	}
	r.httpAddr = "127.0.0.1:" + strconv.Itoa(port)
	args := append(s.args(), "--http-endpoint="+r.httpAddr)
	args = append(args, extra...)
	if r.resizer, err = framework.StartResizer(r.tools, r.dir, "csi-resizer-"+s.Name, r.kubeconfig, r.driver.Socket, args...); err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		if r.resizer.Exited() {
			return false, fmt.Errorf("the resizer exited with code %d; see %s", r.resizer.ExitCode(), r.resizer.Log)
		}
		code, _, err := r.get(ctx, "/readyz")
		return err == nil && code == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("wait for the resizer's /readyz: %w", err)
	}
	return nil
}

// startIdle starts the resizer and waits until it idles.
func (r *rig) startIdle(ctx context.Context, s setting, extra ...string) error {
	if err := r.startResizer(ctx, s, extra...); err != nil {
		return err
	}
	return r.waitIdle(ctx)
}

// get fetches a path of the resizer's diagnostics endpoint.
func (r *rig) get(ctx context.Context, path string) (int, []byte, error) {
	return framework.HTTPGet(ctx, r.httpAddr, path)
}

// waitIdle waits until the resizer's work queue has been empty for a
// second: after start-up every claim is queued once, with nothing to do.
func (r *rig) waitIdle(ctx context.Context) error {
	queue := map[string]string{"name": driverName + "-pvc"}
	empty := 0
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		v, ok, err := r.metric(ctx, "workqueue_depth", queue)
		if err != nil {
			return false, err
		}
		if ok && v == 0 {
			empty++
		} else {
			empty = 0
		}
		return empty >= 10, nil
	})
}

// usage reads the resizer's memory and CPU from /proc.
func (r *rig) usage() (procUsage, error) {
	return readUsage(r.resizer.Pid())
}

// stopResizer stops the resizer with SIGTERM, as the kubelet does.
func (r *rig) stopResizer() error {
	if r.resizer == nil {
		return nil
	}
	err := r.resizer.Stop(30 * time.Second)
	if err == nil && r.resizer.ExitCode() != 0 {
		err = fmt.Errorf("the resizer exited with code %d; see %s", r.resizer.ExitCode(), r.resizer.Log)
	}
	r.resizer = nil
	return err
}

// close stops everything the rig started; it is safe on a half-built rig.
func (r *rig) close() {
	_ = r.stopResizer()
	if r.driver != nil {
		r.driver.Kill()
	}
	if r.cluster != nil {
		r.cluster.Stop()
	}
}

// auditTail follows the audit log, from now on, for the resizer's user.
func (r *rig) auditTail() (*auditTail, error) {
	return newAuditTail(r.cluster.AuditLog, r.resizerID.User)
}
