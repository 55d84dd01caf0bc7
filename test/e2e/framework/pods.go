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
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

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
	return WaitForPod(ctx, c, namespace, name, 2*time.Minute, func(p *v1.Pod) bool { return p.Status.Phase == v1.PodRunning })
}

// WaitForPod waits until the pod satisfies cond.
func WaitForPod(ctx context.Context, c kubernetes.Interface, namespace, name string, timeout time.Duration, cond func(*v1.Pod) bool) (*v1.Pod, error) {
	var last *v1.Pod
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		p, err := c.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = p
		return cond(p), nil
	})
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
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
