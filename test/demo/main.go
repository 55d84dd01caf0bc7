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

// Command demo shows the resizer at work with no cluster: it starts etcd,
// kube-apiserver, the CSI mock driver and the resizer on this machine,
// grows a claim from 1Gi to 2Gi, then moves it to another
// VolumeAttributesClass, and prints a timeline of what happens.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

const (
	namespace = "demo"
	claim     = "data"
	class     = "demo-expandable"
	driver    = "demo.csi.example.com"
	fastClass = "demo-fast"
)

func main() {
	keep := flag.Bool("keep", false, "Keep everything running after the resize, until Ctrl-C, and print the kubeconfig to look around with.")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, keep bool) error {
	tools, err := framework.ToolsFromEnv()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "csi-resizer-demo-")
	if err != nil {
		return err
	}
	say("Starting etcd and kube-apiserver (logs in %s)", dir)
	resizerID := framework.ServiceAccount("default", "csi-resizer")
	cluster, err := framework.StartCluster(ctx, tools, dir, resizerID)
	if err != nil {
		return err
	}
	defer cluster.Stop()
	if err := framework.ApplyRBAC(ctx, cluster.Admin, filepath.Join("deploy", "kubernetes", "rbac.yaml"), "default"); err != nil {
		return err
	}
	kubeconfig, err := cluster.WriteKubeconfig("resizer", resizerID)
	if err != nil {
		return err
	}
	say("Starting the CSI mock driver %s (expansion on the controller, then on the node; volume modification)", driver)
	drv, err := framework.StartDriver(ctx, tools, dir, framework.DriverOptions{Name: driver, NodeExpansionRequired: true, Modify: true})
	if err != nil {
		return err
	}
	defer drv.Proc.Kill()
	say("Starting csi-resizer with the RBAC of deploy/kubernetes/rbac.yaml")
	resizer, err := framework.StartResizer(tools, dir, "csi-resizer", kubeconfig, drv.Socket, "--v=2", "--http-endpoint=127.0.0.1:0")
	if err != nil {
		return err
	}
	defer func() { _ = resizer.Stop(30 * time.Second) }()

	v, err := setUp(ctx, cluster, drv)
	if err != nil {
		return err
	}
	if err := resize(ctx, cluster, v); err != nil {
		return fmt.Errorf("%w (resizer log: %s)", err, resizer.Log)
	}
	if err := modify(ctx, cluster, v); err != nil {
		return fmt.Errorf("%w (resizer log: %s)", err, resizer.Log)
	}
	if keep {
		admin, err := cluster.WriteKubeconfig("admin", framework.Admin())
		if err != nil {
			return err
		}
		say("Everything keeps running. Try: kubectl --kubeconfig=%s -n %s get pvc %s -o yaml", admin, namespace, claim)
		say("Press Ctrl-C to tear it down.")
		<-ctx.Done()
	}
	say("Tearing down")
	return os.RemoveAll(dir)
}

// setUp creates the namespace, an expandable StorageClass, the
// VolumeAttributesClass fast and a bound 1Gi claim on a volume of the mock
// driver.
func setUp(ctx context.Context, cluster *framework.Cluster, drv *framework.Driver) (framework.Volume, error) {
	if err := framework.CreateNamespace(ctx, cluster.Admin, namespace); err != nil {
		return framework.Volume{}, err
	}
	if err := framework.CreateClass(ctx, cluster.Admin, class, driver, nil); err != nil {
		return framework.Volume{}, err
	}
	if err := framework.CreateAttributesClass(ctx, cluster.Admin, fastClass, driver, map[string]string{"iops": "16000", "throughput": "1000"}); err != nil {
		return framework.Volume{}, err
	}
	handle, err := drv.CreateVolume(ctx, "demo-volume", 1<<30)
	if err != nil {
		return framework.Volume{}, err
	}
	v := framework.Volume{Namespace: namespace, Claim: claim, Class: class, Driver: driver, Handle: handle, Size: "1Gi"}
	if _, err := framework.CreateBound(ctx, cluster.Admin, v); err != nil {
		return framework.Volume{}, err
	}
	say("Created StorageClass %s, VolumeAttributesClass %s (iops=16000, throughput=1000), PV %s and PVC %s/%s: 1Gi, bound",
		class, fastClass, v.PVName(), namespace, claim)
	return v, nil
}

var start = time.Now()

// say prints a line of the timeline.
func say(format string, args ...any) {
	fmt.Printf("%8s  %s\n", fmt.Sprintf("+%.2fs", time.Since(start).Seconds()), fmt.Sprintf(format, args...))
}
