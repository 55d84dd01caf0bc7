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
	"syscall"
	"time"
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
	if err := d.setUp(ctx); err != nil {
		return d.logs(err)
	}
	if err := d.resize(ctx); err != nil {
		return d.logs(err)
	}
	if err := d.modify(ctx); err != nil {
		return d.logs(err)
	}
	if keep {
		if err := d.keep(ctx); err != nil {
			return d.logs(err)
		}
	}
	say("Tearing down")
	d.stop()
	return os.RemoveAll(d.dir)
}

var start0 = time.Now()

// say prints a line of the timeline about now.
func say(format string, args ...any) {
	sayAt(time.Now(), format, args...)
}

// sayAt prints a line of the timeline about what happened at at.
func sayAt(at time.Time, format string, args ...any) {
	fmt.Printf("%8s  %s\n", fmt.Sprintf("+%.2fs", at.Sub(start0).Seconds()), fmt.Sprintf(format, args...))
}
