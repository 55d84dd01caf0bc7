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
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// claimName is the name of the i-th claim.
func claimName(i int) string { return fmt.Sprintf("claim-%05d", i) }

// progress prints "what: done/n" at every tenth of n, and at the end.
func progress(what string, n int) func(done int) {
	start := time.Now()
	var mu sync.Mutex
	last := 0
	return func(done int) {
		mu.Lock()
		defer mu.Unlock()
		if step := max(n/10, 1); done/step > last/step || done == n {
			last = done
			say("  %s: %d/%d (%s)", what, done, n, since(start))
		}
	}
}

// createPairs creates n bound claims and PVs, vol(i) the i-th, as the PV
// controller and a provisioner leave them; what names them in the progress.
func createPairs(ctx context.Context, c kubernetes.Interface, n, goroutines int, what string, vol func(i int) framework.Volume) error {
	return framework.Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		_, err := framework.CreateBound(ctx, c, vol(i))
		return err
	}, progress(what, n))
}

// benchVolume is the i-th bound pair of driverName, in the bench namespace
// and class.
func benchVolume(i int, size, handle string) framework.Volume {
	return framework.Volume{
		Namespace: benchNamespace, Claim: claimName(i), Class: benchClass,
		Driver: driverName, Handle: handle, Size: size,
	}
}

// createPods creates n running pods, the i-th using the i-th claim on node
// node(i), shaped like a small real workload (a container with resources,
// environment and a mount) with a status as the kubelet writes it.
func createPods(ctx context.Context, c kubernetes.Interface, n int, node func(i int) string, goroutines int) error {
	return framework.Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		pod, err := c.CoreV1().Pods(benchNamespace).Create(ctx, podFor(i, node(i)), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create pod %d: %w", i, err)
		}
		now := metav1.Now()
		pod.Status = v1.PodStatus{
			Phase:     v1.PodRunning,
			HostIP:    "10.1.0.1",
			PodIP:     fmt.Sprintf("10.2.%d.%d", i/250, i%250+1),
			StartTime: &now,
			Conditions: []v1.PodCondition{
				{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: now},
				{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: now},
			},
			ContainerStatuses: []v1.ContainerStatus{{
				Name: "app", Ready: true, Image: "registry.example.com/app:1.0",
				ImageID:     "registry.example.com/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				ContainerID: fmt.Sprintf("containerd://%064d", i),
				State:       v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: now}},
			}},
		}
		if _, err := c.CoreV1().Pods(benchNamespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("set pod %d running: %w", i, err)
		}
		return nil
	}, progress("running pods", n))
}

func podFor(i int, node string) *v1.Pod {
	name := fmt.Sprintf("app-%05d", i)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "bench", "instance": name}},
		Spec: v1.PodSpec{
			NodeName: node,
			Containers: []v1.Container{{
				Name:  "app",
				Image: "registry.example.com/app:1.0",
				Args:  []string{"--data-dir=/data", "--listen=:8080"},
				Env:   []v1.EnvVar{{Name: "POD_NAME", Value: name}, {Name: "MODE", Value: "production"}},
				Ports: []v1.ContainerPort{{Name: "http", ContainerPort: 8080}},
				Resources: v1.ResourceRequirements{
					Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   v1.ResourceList{v1.ResourceMemory: resource.MustParse("256Mi")},
				},
				VolumeMounts: []v1.VolumeMount{{Name: "data", MountPath: "/data"}},
			}},
			Volumes: []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{
				PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claimName(i)},
			}}},
		},
	}
}

// The objects of the node-deployment comparison: Nodes that no kubelet
// runs (nodeName(i) the i-th), claims spread over them in turn, each PV
// pinned to its claim's node by required node affinity.
func nodeName(i int) string { return fmt.Sprintf("node-%d", i) }

// nodeOfClaim is the node of the i-th claim among nodes.
func nodeOfClaim(i, nodes int) string { return nodeName(i % nodes) }

// nodeResizer is the identity of the resizer on node: a ServiceAccount of
// its own, so that the audit log tells the instances apart (in a real
// DaemonSet they share one, and bound tokens carry the node's name).
func nodeResizer(node string) framework.Identity {
	return framework.ServiceAccount(resizerNamespace, "csi-resizer-"+node)
}

// createNodes creates n Nodes labelled kubernetes.io/hostname=<name>, as
// kubelet registers them.
func createNodes(ctx context.Context, c kubernetes.Interface, n, goroutines int) error {
	return framework.Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		name := nodeName(i)
		_, err := c.CoreV1().Nodes().Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{v1.LabelHostname: name, v1.LabelOSStable: "linux"},
		}}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create node %s: %w", name, err)
		}
		return nil
	}, nil)
}

// pinnedVolume is the i-th bound pair of driverName (benchVolume) whose
// PV is pinned to node by required node affinity: kubernetes.io/hostname
// In [node], as a node-local driver provisions it.
func pinnedVolume(i int, size, handle, node string) framework.Volume {
	v := benchVolume(i, size, handle)
	v.NodeAffinity = framework.RequiredAffinity(v1.NodeSelectorRequirement{
		Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{node},
	})
	return v
}

// bindNodeResizers applies the RBAC of a --node-deployment resizer (the
// file rbac-node-deployment.yaml beside cfg.rbac, whose rbac.yaml the rig
// applied) and adds the ServiceAccount of each node's resizer to every
// binding of the two files, beside the csi-resizer ServiceAccount: each
// instance gets exactly the rules a DaemonSet's pods get.
func bindNodeResizers(ctx context.Context, c kubernetes.Interface, rbacPath string, ids []framework.Identity) error {
	nodeRBAC := filepath.Join(filepath.Dir(rbacPath), "rbac-node-deployment.yaml")
	if err := framework.ApplyRBAC(ctx, c, nodeRBAC, resizerNamespace); err != nil {
		return err
	}
	var subjects []rbacv1.Subject
	for _, id := range ids {
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: resizerNamespace, Name: serviceAccountName(id.User)})
	}
	for _, path := range []string{rbacPath, nodeRBAC} {
		objs, err := framework.ReadObjects(path)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			switch o := obj.(type) {
			case *rbacv1.ClusterRoleBinding:
				b, err := c.RbacV1().ClusterRoleBindings().Get(ctx, o.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				b.Subjects = withSubjects(b.Subjects, subjects)
				if _, err := c.RbacV1().ClusterRoleBindings().Update(ctx, b, metav1.UpdateOptions{}); err != nil {
					return err
				}
			case *rbacv1.RoleBinding:
				b, err := c.RbacV1().RoleBindings(resizerNamespace).Get(ctx, o.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				b.Subjects = withSubjects(b.Subjects, subjects)
				if _, err := c.RbacV1().RoleBindings(resizerNamespace).Update(ctx, b, metav1.UpdateOptions{}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// withSubjects is subjects with each of more that it lacks.
func withSubjects(subjects, more []rbacv1.Subject) []rbacv1.Subject {
	out := slices.Clone(subjects)
	for _, s := range more {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// serviceAccountName is the name of the ServiceAccount whose user name is
// user ("system:serviceaccount:<namespace>:<name>").
func serviceAccountName(user string) string {
	return user[strings.LastIndex(user, ":")+1:]
}
