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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// ErrNotRoot is returned by StartNode when the test does not run as root.
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
func StartNode(ctx context.Context, tools Tools, c *Cluster, dir, name string) (_ *Node, err error) {
	if os.Geteuid() != 0 {
		return nil, ErrNotRoot
	}
	n := &Node{Name: name, RootDir: filepath.Join(dir, "root"), dir: dir, tools: tools, cluster: c}
	defer func() {
		if err != nil {
			n.Stop()
		}
	}()
	// kubelet's log cleanup, finding the fake runtime's empty log paths,
	// deletes every file of its working directory: give it an empty one.
	for _, d := range []string{n.RootDir, n.workDir()} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, err
		}
	}
	runtime := filepath.Join(dir, "cri.sock")
	if n.cri, err = startProcess(nil, "", "cri-fake", filepath.Join(dir, "cri-fake.log"), tools.CRIFake, "--endpoint="+runtime); err != nil {
		return nil, err
	}
	kubeconfig, err := c.WriteKubeconfig("kubelet-"+name, c.AdminIdentity())
	if err != nil {
		return nil, err
	}
	ports, err := FreePorts(2)
	if err != nil {
		return nil, err
	}
	config := filepath.Join(dir, "kubelet.yaml")
	if err := os.WriteFile(config, []byte(kubeletConfig(runtime, ports[0], ports[1])), 0o600); err != nil {
		return nil, err
	}
	n.args = []string{"--config=" + config, "--kubeconfig=" + kubeconfig, "--root-dir=" + n.RootDir,
		"--cert-dir=" + filepath.Join(dir, "pki"), "--hostname-override=" + name, "--node-ip=127.0.0.1", "--v=3"}
	if err := n.startKubelet(ctx); err != nil {
		return nil, err
	}
	return n, nil
}

func (n *Node) workDir() string { return filepath.Join(n.dir, "work") }

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

// startKubelet starts kubelet and waits until the Node reports Ready, or
// kubelet dies.
func (n *Node) startKubelet(ctx context.Context) error {
	args := append([]string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c", privateMounts, n.tools.Kubelet}, n.args...)
	p, err := startProcess(nil, n.workDir(), "kubelet", filepath.Join(n.dir, "kubelet.log"), "unshare", args...)
	if err != nil {
		return err
	}
	n.Kubelet = p
	err = waitFor(ctx, 250*time.Millisecond, 2*time.Minute, n.Kubelet, func(ctx context.Context) bool {
		node, err := n.cluster.Admin.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
		return err == nil && slices.ContainsFunc(node.Status.Conditions, func(c v1.NodeCondition) bool {
			return c.Type == v1.NodeReady && c.Status == v1.ConditionTrue
		})
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
	for _, p := range append(n.drivers, n.cri) {
		if p != nil {
			_ = p.Stop(5 * time.Second)
		}
	}
}

// RegisterDriver introduces the CSI driver name serving socket to kubelet,
// as node-driver-registrar does, and waits until the node's CSINode lists
// it. It creates the driver's CSIDriver object (attachRequired false, so no
// attach/detach controller is needed) unless it exists.
func (n *Node) RegisterDriver(ctx context.Context, name, socket string) error {
	_, err := n.cluster.Admin.StorageV1().CSIDrivers().Create(ctx, &storagev1.CSIDriver{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       storagev1.CSIDriverSpec{AttachRequired: ptr.To(false), PodInfoOnMount: ptr.To(false)},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create CSIDriver %s: %w", name, err)
	}
	log := filepath.Join(n.dir, "registrar-"+name+".log")
	p, err := startProcess(nil, "", "csi-registrar", log, n.tools.Registrar,
		"--csi-address="+socket, "--registration-dir="+filepath.Join(n.RootDir, "plugins_registry"))
	if err != nil {
		return err
	}
	n.drivers = append(n.drivers, p)
	err = waitFor(ctx, 200*time.Millisecond, time.Minute, p, func(ctx context.Context) bool {
		node, err := n.cluster.Admin.StorageV1().CSINodes().Get(ctx, n.Name, metav1.GetOptions{})
		return err == nil && slices.ContainsFunc(node.Spec.Drivers, func(d storagev1.CSINodeDriver) bool { return d.Name == name })
	})
	if err != nil {
		return fmt.Errorf("wait for kubelet on %s to register driver %s (see %s and %s): %w", n.Name, name, log, n.Kubelet.Log, err)
	}
	return nil
}

// LabelNode sets the label key of the Node to value, or removes it when
// value is "".
func LabelNode(ctx context.Context, c kubernetes.Interface, node, key, value string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{key: testobj.Optional(value)}}})
	if err != nil {
		return err
	}
	if _, err := c.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("label node %s with %s: %w", node, patch, err)
	}
	return nil
}

// RunPod creates a pod on node that mounts claims (at /data/<claim>) and
// waits until kubelet reports it Running, which it does once every volume
// is staged and published. Its one container runs on the fake runtime.
func RunPod(ctx context.Context, c kubernetes.Interface, namespace, name, node string, claims ...string) (*v1.Pod, error) {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PodSpec{
			NodeName: node,
			// No token volume: its CA ConfigMap is published by
			// kube-controller-manager, which does not run here.
			AutomountServiceAccountToken: ptr.To(false),
			// Not 0: that deletes the object at once, before kubelet has
			// unmounted anything (a force delete).
			TerminationGracePeriodSeconds: ptr.To[int64](1),
			Containers:                    []v1.Container{{Name: "app", Image: "registry.example.com/app:1"}},
		},
	}
	for _, claim := range claims {
		pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{Name: claim, VolumeSource: v1.VolumeSource{
			PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
		}})
		pod.Spec.Containers[0].VolumeMounts = append(pod.Spec.Containers[0].VolumeMounts, v1.VolumeMount{Name: claim, MountPath: "/data/" + claim})
	}
	if _, err := c.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create pod %s/%s: %w", namespace, name, err)
	}
	last, err := waitForObject(ctx, 2*time.Minute, func(ctx context.Context) (*v1.Pod, error) {
		return c.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	}, func(p *v1.Pod) bool { return p.Status.Phase == v1.PodRunning })
	if err != nil {
		phase := "not found"
		if last != nil {
			phase = string(last.Status.Phase)
		}
		return last, fmt.Errorf("pod %s/%s (phase %s): %w", namespace, name, phase, err)
	}
	return last, nil
}

// DeletePod deletes the pod and waits until it is gone: kubelet removes it
// only after it has unpublished and unstaged its volumes.
func DeletePod(ctx context.Context, c kubernetes.Interface, namespace, name string) error {
	err := c.CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s/%s: %w", namespace, name, err)
	}
	return waitFor(ctx, 100*time.Millisecond, 2*time.Minute, nil, func(ctx context.Context) bool {
		_, err := c.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}
