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
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// demo is what runs: a control plane, the CSI mock driver, a node with a
// real kubelet, and the resizer; and what the timeline printed last.
type demo struct {
	dir     string
	tools   framework.Tools
	cluster *framework.Cluster
	driver  *framework.Driver
	node    *framework.Node
	resizer *framework.Process
	// user makes the user's changes (size, class): its field manager,
	// "user", tells them from the components' writes.
	user kubernetes.Interface
	// metrics is the URL of the resizer's metrics.
	metrics string
	// volume is the claim and PV, once set up.
	volume framework.Volume
	// lastClaim and lastPV are the versions printed last, to tell who
	// wrote the next one.
	lastClaim *v1.PersistentVolumeClaim
	lastPV    *v1.PersistentVolume
	// callsRead is how many calls of each method the timeline has shown.
	callsRead map[string]int
}

// start starts the processes, in the order they need each other.
func start(ctx context.Context) (_ *demo, err error) {
	tools, err := framework.ToolsFromEnv()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "csi-resizer-demo-")
	if err != nil {
		return nil, err
	}
	d := &demo{dir: dir, tools: tools, callsRead: map[string]int{}}
	defer func() {
		if err != nil {
			d.stop()
			err = fmt.Errorf("%w (logs in %s)", err, dir)
		}
	}()

	say("Starting etcd and kube-apiserver (logs in %s)", dir)
	resizerID := framework.ServiceAccount(leaseNamespace, "csi-resizer")
	if d.cluster, err = framework.StartCluster(ctx, tools, dir, resizerID); err != nil {
		return d, err
	}
	if err := framework.ApplyRBAC(ctx, d.cluster.Admin, filepath.Join("deploy", "kubernetes", "rbac.yaml"), leaseNamespace); err != nil {
		return d, err
	}
	kubeconfig, err := d.cluster.WriteKubeconfig("resizer", resizerID)
	if err != nil {
		return d, err
	}
	user := rest.CopyConfig(d.cluster.AdminConfig)
	user.UserAgent = "user"
	if d.user, err = kubernetes.NewForConfig(user); err != nil {
		return d, err
	}

	say("Starting the CSI mock driver %s (expansion on the controller, then on the node; volume modification)", driver)
	d.driver, err = framework.StartDriver(ctx, tools, dir, framework.DriverOptions{Name: driver, NodeExpansionRequired: true, Modify: true})
	if err != nil {
		return d, err
	}

	say("Starting kubelet as node %s, on a fake container runtime (pods have no containers; their volumes are staged, published and expanded through CSI)", nodeName)
	if d.node, err = framework.StartNode(ctx, tools, d.cluster, filepath.Join(dir, "node"), nodeName); err != nil {
		return d, err
	}
	say("Node %s is Ready; registering the driver with kubelet, as node-driver-registrar does", nodeName)
	if err := d.node.RegisterDriver(ctx, driver, d.driver.Socket); err != nil {
		return d, err
	}

	port, err := framework.FreePort()
	if err != nil {
		return d, err
	}
	d.metrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	say("Starting csi-resizer with the RBAC of deploy/kubernetes/rbac.yaml and leader election")
	d.resizer, err = framework.StartResizer(tools, dir, "csi-resizer", kubeconfig, d.driver.Socket, "--v=2",
		"--http-endpoint=127.0.0.1:"+strconv.Itoa(port), "--leader-election", "--leader-election-namespace="+leaseNamespace)
	if err != nil {
		return d, err
	}
	// Wait until the resizer holds its Lease, the one `kubectl csi-resizer
	// explain` looks for.
	name := options.LeaseName(driver)
	var holder string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if d.resizer.Exited() {
			return false, fmt.Errorf("csi-resizer exited; see %s", d.resizer.Log)
		}
		l, err := d.cluster.Admin.CoordinationV1().Leases(leaseNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		holder = ptr.Deref(l.Spec.HolderIdentity, "")
		return holder != "", nil
	})
	if err != nil {
		return d, fmt.Errorf("wait for csi-resizer to take its Lease %s/%s: %w", leaseNamespace, name, err)
	}
	say("csi-resizer leads: it holds the Lease %s/%s (holder %s)", leaseNamespace, name, holder)
	return d, nil
}

// stop stops what runs, the resizer first, the control plane last; it may
// be called again.
func (d *demo) stop() {
	if d.resizer != nil {
		_ = d.resizer.Stop(30 * time.Second)
	}
	if d.node != nil {
		d.node.Stop()
	}
	if d.driver != nil {
		d.driver.Kill()
	}
	if d.cluster != nil {
		d.cluster.Stop()
	}
}

// logs adds to err where the logs are.
func (d *demo) logs(err error) error {
	return fmt.Errorf("%w (logs in %s: csi-resizer.log, csi-mock.log, node/kubelet.log)", err, d.dir)
}
