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

package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// ErrNotRoot is returned by StartNode when the test does not run as root:
// kubelet runs in a mount namespace of its own, mounts its root directory
// and sets kernel tunables (kernel.panic, vm.overcommit_memory, ...), which
// only root may do.
var ErrNotRoot = errors.New("a real kubelet needs root (it runs in a mount namespace of its own, bind-mounts its root directory and sets kernel tunables such as kernel.panic); run the suite as root, as CI does")

// Node is a real kubelet on this machine, registered as the Node Name. Its
// pods run on the fake container runtime of test/tools/cmd/cri-fake: they
// have no containers, while kubelet's volume manager (NodeStage, Publish,
// Expand), its plugin registration and its status updates are real.
type Node struct {
	Name string
	// RootDir is kubelet's --root-dir.
	RootDir string
	// Kubelet is the running kubelet; Restart replaces it.
	Kubelet *Process
	dir     string
	tools   Tools
	cluster *Cluster
	cri     *Process
	args    []string
	drivers []*Process
}

// StartNode starts the fake runtime and kubelet in dir and waits until the
// Node name is Ready. kubelet runs as the administrator.
func StartNode(ctx context.Context, tools Tools, c *Cluster, dir, name string) (*Node, error) {
	if os.Geteuid() != 0 {
		return nil, ErrNotRoot
	}
	n := &Node{Name: name, RootDir: filepath.Join(dir, "root"), dir: dir, tools: tools, cluster: c}
	// kubelet's log cleanup, finding the fake runtime's empty log paths,
	// deletes every file of its working directory: give it an empty one.
	for _, d := range []string{n.RootDir, n.workDir()} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, err
		}
	}
	runtime := filepath.Join(dir, "cri.sock")
	var err error
	if n.cri, err = StartProcess("cri-fake", filepath.Join(dir, "cri-fake.log"), tools.CRIFake, "--endpoint="+runtime); err != nil {
		return nil, err
	}
	if n.args, err = n.kubeletArgs(runtime); err != nil {
		n.Stop()
		return nil, err
	}
	if err := n.startKubelet(ctx); err != nil {
		n.Stop()
		return nil, err
	}
	return n, nil
}

func (n *Node) workDir() string { return filepath.Join(n.dir, "work") }

// kubeletArgs writes kubelet's configuration and kubeconfig and returns
// its flags.
func (n *Node) kubeletArgs(runtime string) ([]string, error) {
	kubeconfig, err := n.cluster.WriteKubeconfig("kubelet-"+n.Name, n.cluster.AdminIdentity())
	if err != nil {
		return nil, err
	}
	// Two distinct ports: two calls of FreePort may return one port twice,
	// and kubelet then fails to listen on the second.
	ports, err := FreePorts(2)
	if err != nil {
		return nil, err
	}
	config := filepath.Join(n.dir, "kubelet.yaml")
	if err := os.WriteFile(config, []byte(kubeletConfig(runtime, ports[0], ports[1])), 0o600); err != nil {
		return nil, err
	}
	return []string{"--config=" + config, "--kubeconfig=" + kubeconfig, "--root-dir=" + n.RootDir,
		"--cert-dir=" + filepath.Join(n.dir, "pki"), "--hostname-override=" + n.Name,
		"--node-ip=127.0.0.1", "--v=3"}, nil
}

// kubeletConfig is a KubeletConfiguration for a node without cgroup
// management (these machines have cgroup v1, which kubelet v1.36 refuses
// by default) on loopback, whose API needs no authentication (it listens
// on loopback only). Pods are synced every 5 s, so kubelet notices a grown
// PV quickly; evictions are off in effect, so a busy disk does not evict
// the test's pods.
func kubeletConfig(runtime string, port, healthz int) string {
	return `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
failSwapOn: false
cgroupsPerQOS: false
enforceNodeAllocatable: []
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://` + runtime + `
imageServiceEndpoint: unix://` + runtime + `
address: 127.0.0.1
port: ` + strconv.Itoa(port) + `
healthzBindAddress: 127.0.0.1
healthzPort: ` + strconv.Itoa(healthz) + `
readOnlyPort: 0
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
syncFrequency: 5s
evictionHard:
  memory.available: 1Mi
  nodefs.available: 1%
  nodefs.inodesFree: 1%
  imagefs.available: 1%
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
`
}

// privateMounts runs a command in a mount namespace of its own, with an
// empty /var/lib/kubelet/device-plugins: kubelet creates its device plugin
// socket there whatever its --root-dir, so two kubelets on one machine
// would take each other's; and what kubelet mounts (it bind-mounts its root
// directory onto itself) stays in that namespace and ends with it.
const privateMounts = `mkdir -p /var/lib/kubelet/device-plugins && ` +
	`mount -t tmpfs -o size=1m tmpfs /var/lib/kubelet/device-plugins && exec "$0" "$@"`

func (n *Node) startKubelet(ctx context.Context) error {
	args := append([]string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c", privateMounts, n.tools.Kubelet}, n.args...)
	p, err := StartProcessIn(n.workDir(), "kubelet", filepath.Join(n.dir, "kubelet.log"), "unshare", args...)
	if err != nil {
		return err
	}
	n.Kubelet = p
	return n.waitReady(ctx)
}

// waitReady waits until the Node reports Ready, or kubelet dies.
func (n *Node) waitReady(ctx context.Context) error {
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if n.Kubelet.Exited() {
			return false, fmt.Errorf("kubelet exited; see %s", n.Kubelet.Log)
		}
		node, err := n.cluster.Admin.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range node.Status.Conditions {
			if c.Type == v1.NodeReady {
				return c.Status == v1.ConditionTrue, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("wait for node %s to be Ready (kubelet log %s): %w", n.Name, n.Kubelet.Log, err)
	}
	return nil
}

// RestartKubelet kills kubelet and starts it again with the same root
// directory, as a node's kubelet restarts: the volumes it had mounted stay.
func (n *Node) RestartKubelet(ctx context.Context) error {
	n.Kubelet.Kill()
	return n.startKubelet(ctx)
}

// Stop stops kubelet, the registrars and the runtime.
func (n *Node) Stop() {
	if n.Kubelet != nil {
		_ = n.Kubelet.Stop(30 * time.Second)
	}
	for _, p := range n.drivers {
		_ = p.Stop(5 * time.Second)
	}
	if n.cri != nil {
		_ = n.cri.Stop(5 * time.Second)
	}
}
