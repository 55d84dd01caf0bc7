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
// kube-apiserver, the CSI mock driver, a real kubelet (on a fake container
// runtime) and the resizer on this machine, runs a pod that mounts a 1Gi
// claim, grows the claim to 2Gi, then moves it to another
// VolumeAttributesClass, and prints a timeline of what happens and who did
// it: the resizer expands the volume, kubelet expands it on the node.
// kubelet needs root, and so does the demo.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/pkg/plugin"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

const (
	namespace = "demo"
	claim     = "data"
	pod       = "app"
	class     = "demo-expandable"
	driver    = "demo.csi.example.com"
	fastClass = "demo-fast"
	nodeName  = "demo-node"
	// leaseNamespace holds the resizer's Lease: the namespace of the Role
	// of deploy/kubernetes/rbac.yaml.
	leaseNamespace = "default"
)

// errNotRoot is said before anything starts: without root there is no
// kubelet, and a resize without its node step would show only half of it.
var errNotRoot = errors.New("the node step of the resize is done by a real kubelet, which needs root: run the demo as root, or with sudo")

func main() {
	keep := flag.Bool("keep", false, "Keep everything running after the resize, until Ctrl-C, and print the kubeconfig and metrics address to look around with.")
	flag.Parse()
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "demo:", errNotRoot)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run starts everything, plays the two changes, and tears down; on error
// the logs stay, and the error names them.
func run(ctx context.Context, keep bool) error {
	d, err := start(ctx)
	if err != nil {
		return err
	}
	defer d.stop()
	steps := []func(context.Context) error{d.setUp, d.resize, d.modify}
	if keep {
		steps = append(steps, d.keep)
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return d.logs(err)
		}
	}
	say("Tearing down")
	d.stop()
	return os.RemoveAll(d.dir)
}

var start0 = time.Now()

// say prints a line of the timeline about now.
func say(format string, args ...any) { sayAt(time.Now(), format, args...) }

// sayAt prints a line of the timeline about what happened at at.
func sayAt(at time.Time, format string, args ...any) {
	fmt.Printf("%8s  %s\n", fmt.Sprintf("+%.2fs", at.Sub(start0).Seconds()), fmt.Sprintf(format, args...))
}

// setUp creates the namespace, an expandable StorageClass, the
// VolumeAttributesClass fast and a bound 1Gi claim on a volume of the mock
// driver, then a pod on the node that mounts the claim: kubelet stages and
// publishes the volume.
func (d *demo) setUp(ctx context.Context) error {
	admin := d.cluster.Admin
	if err := framework.CreateNamespace(ctx, admin, namespace); err != nil {
		return err
	}
	if err := framework.CreateClass(ctx, admin, class, driver, nil); err != nil {
		return err
	}
	if err := framework.CreateAttributesClass(ctx, admin, fastClass, driver, map[string]string{"iops": "16000", "throughput": "1000"}); err != nil {
		return err
	}
	handle, err := d.driver.CreateVolume(ctx, "demo-volume", 1<<30)
	if err != nil {
		return err
	}
	d.volume = framework.Volume{Namespace: namespace, Claim: claim, Class: class, Driver: driver, Handle: handle, Size: "1Gi"}
	if _, err := framework.CreateBound(ctx, admin, d.volume); err != nil {
		return err
	}
	say("Created StorageClass %s, VolumeAttributesClass %s (iops=16000, throughput=1000), PV %s and PVC %s/%s: 1Gi, bound",
		class, fastClass, d.volume.PVName(), namespace, claim)

	say("Creating pod %s/%s on node %s, mounting PVC %s", namespace, pod, nodeName, claim)
	if _, err := framework.RunPod(ctx, admin, namespace, pod, nodeName, claim); err != nil {
		return err
	}
	var out lines
	if err := d.readCalls(&out); err != nil {
		return err
	}
	out.flush(time.Now())
	say("Pod %s/%s is Running: kubelet mounted the volume", namespace, pod)
	if d.lastClaim, err = admin.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, claim, metav1.GetOptions{}); err != nil {
		return fmt.Errorf("read claim %s/%s: %w", namespace, claim, err)
	}
	if d.lastPV, err = admin.CoreV1().PersistentVolumes().Get(ctx, d.volume.PVName(), metav1.GetOptions{}); err != nil {
		return fmt.Errorf("read PV %s: %w", d.volume.PVName(), err)
	}
	say("PVC     %s/%s %s", namespace, claim, framework.Describe(d.lastClaim))
	return nil
}

// The labels of the lines --keep prints, which a script (or the test) may
// read: each is followed by one space and the value.
const (
	kubeconfigLabel = "Kubeconfig of the administrator:"
	metricsLabel    = "Metrics of csi-resizer:"
)

// keep prints how to look around the running demo, then waits for Ctrl-C.
// The kubeconfig carries the administrator's token, the one the API server
// was started with.
func (d *demo) keep(ctx context.Context) error {
	kubeconfig, err := d.cluster.WriteKubeconfig("admin", d.cluster.AdminIdentity())
	if err != nil {
		return err
	}
	plugin := filepath.Join(filepath.Dir(d.tools.Resizer), plugin.ProgramName)
	say("Everything keeps running.")
	say("%s %s", kubeconfigLabel, kubeconfig)
	say("%s %s", metricsLabel, d.metrics)
	say("Try: kubectl --kubeconfig=%s -n %s get pvc %s -o yaml", kubeconfig, namespace, claim)
	say("     %s explain -n %s %s --kubeconfig=%s", plugin, namespace, claim, kubeconfig)
	say("     curl -s %s | grep ^csi_resizer", d.metrics)
	say("Press Ctrl-C to tear it down.")
	<-ctx.Done()
	return nil
}
