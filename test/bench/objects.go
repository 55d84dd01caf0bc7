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
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
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

// createPairs creates n bound claims and PVs of driverName, as the PV
// controller and a provisioner leave them; handles[i] (or a made-up handle
// when handles is nil) is the i-th PV's volume handle.
func createPairs(ctx context.Context, c kubernetes.Interface, n int, size string, handles []string, goroutines int) error {
	return framework.Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		handle := fmt.Sprintf("made-up-%d", i)
		if handles != nil {
			handle = handles[i]
		}
		_, err := framework.CreateBound(ctx, c, benchVolume(i, size, handle))
		return err
	}, progress("bound PVC+PV pairs", n))
}

// benchVolume is the i-th bound pair of driverName, in the bench namespace
// and class.
func benchVolume(i int, size, handle string) framework.Volume {
	return framework.Volume{
		Namespace: benchNamespace, Claim: claimName(i), Class: benchClass,
		Driver: driverName, Handle: handle, Size: size,
	}
}

// createPods creates n running pods, the i-th using the i-th claim on the
// node named node(i), shaped like a small real workload: a container with
// resources, environment and a mount, with a status as the kubelet writes
// it.
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
