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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/csi-resizer/csi-resizer/pkg/options"
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

// file is the setting's name in a file name, which cannot hold the "/"
// of QPS/BURST/WORKERS.
func (s setting) file() string { return strings.ReplaceAll(s.Name, "/", "-") }

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
	resizer    *instance
}

// newRig starts etcd, kube-apiserver (with its audit log, accepting the
// tokens of extra too), applies the resizer's RBAC and starts the CSI mock
// driver with options driver (controller expansion only by default).
func newRig(ctx context.Context, cfg *config, name string, driver framework.DriverOptions, extra ...framework.Identity) (r *rig, err error) {
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
	// The benchmark's own client: never the bottleneck, protobuf like the resizer.
	admin := rest.CopyConfig(r.cluster.AdminConfig)
	admin.QPS, admin.Burst = 5000, 10000
	admin.ContentType = runtime.ContentTypeProtobuf
	if r.admin, err = kubernetes.NewForConfig(admin); err != nil {
		return r, err
	}
	if cfg.apiServer == "" {
		cfg.apiServer = serverVersion(r.admin)
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

// instance is one resizer process: the rig's own, or one of a fleet.
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
	emptyReads     int // reads in a row of an empty queue, by queueEmpty
}

// startInstance starts in at s on the rig's driver socket, with
// --node-deployment when in.node is set; name labels its log file.
func (r *rig) startInstance(in *instance, name, kubeconfig string, s setting, extra []string) (err error) {
	args := append([]string{"--http-endpoint=" + in.addr}, s.args()...)
	in.started = time.Now()
	if in.node == "" {
		in.proc, err = framework.StartResizer(r.tools, r.dir, name, kubeconfig, r.driver.Socket, append(args, extra...)...)
		return err
	}
	// Without leader election, its node Lease in the namespace of the RBAC.
	args = append(args, "--"+options.FlagNodeDeployment, "--leader-election=false", "--leader-election-namespace="+resizerNamespace)
	in.proc, err = framework.StartNodeResizer(r.tools, r.dir, name, in.node, kubeconfig, r.driver.Socket, append(args, extra...)...)
	return err
}

// startResizer starts the rig's resizer and waits until /readyz says its
// caches are synced.
func (r *rig) startResizer(ctx context.Context, s setting, extra ...string) error {
	port, err := framework.FreePort()
	if err != nil {
		return err
	}
	in := &instance{id: r.resizerID, addr: "127.0.0.1:" + strconv.Itoa(port)}
	if err := r.startInstance(in, "csi-resizer-"+s.file(), r.kubeconfig, s, extra); err != nil {
		return err
	}
	r.resizer = in
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		return in.isReady(ctx, "the resizer")
	})
	if err != nil {
		return fmt.Errorf("wait for the resizer's /readyz: %w", err)
	}
	return nil
}

// startIdle starts the resizer and waits until its work queue has been
// empty for a second: after start-up every claim is queued once, with
// nothing to do.
func (r *rig) startIdle(ctx context.Context, s setting, extra ...string) error {
	if err := r.startResizer(ctx, s, extra...); err != nil {
		return err
	}
	return r.waitIdle(ctx)
}

// queueDepth are the labels of the resizer's claim queue depth.
var queueDepth = map[string]string{"name": driverName + "-pvc"}

func (r *rig) waitIdle(ctx context.Context) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		return r.resizer.queueEmpty(ctx, 10)
	})
}

// usage reads the resizer's memory and CPU from /proc.
func (in *instance) usage() (procUsage, error) { return readUsage(in.proc.Pid()) }

// metric is the value of the sample of /metrics named name with labels
// (and maybe others), and whether it is there.
func (in *instance) metric(ctx context.Context, name string, labels map[string]string) (float64, bool, error) {
	m, err := framework.ScrapeMetrics(ctx, in.addr)
	if err != nil {
		return 0, false, err
	}
	v, ok := framework.MetricValue(m, name, labels)
	return v, ok, nil
}

// bytesMetric reads a metric that must be there, in bytes.
func (in *instance) bytesMetric(ctx context.Context, name string) (int64, error) {
	v, ok, err := in.metric(ctx, name, nil)
	if err == nil && !ok {
		err = fmt.Errorf("no %s in /metrics", name)
	}
	return int64(v), err
}

// stop stops the instance with SIGTERM, as the kubelet does, and fails
// unless it exits with 0; who names it in the error.
func (in *instance) stop(who string) error {
	err := in.proc.Stop(30 * time.Second)
	if err == nil && in.proc.ExitCode() != 0 {
		err = in.exited(who)
	}
	return err
}

func (in *instance) exited(who string) error {
	return fmt.Errorf("%s exited with code %d; see %s", who, in.proc.ExitCode(), in.proc.Log)
}

func (r *rig) stopResizer() error {
	if r.resizer == nil {
		return nil
	}
	err := r.resizer.stop("the resizer")
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
