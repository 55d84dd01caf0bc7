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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

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
	calls, err := d.calls.next()
	if err != nil {
		return err
	}
	for _, c := range calls {
		sayAt(c.End, "CSI     %s", describeCall(c))
	}
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
