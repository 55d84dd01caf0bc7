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
	"path/filepath"
	"slices"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

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
	p, err := StartProcess("csi-registrar", log, n.tools.Registrar,
		"--csi-address="+socket, "--registration-dir="+filepath.Join(n.RootDir, "plugins_registry"))
	if err != nil {
		return err
	}
	n.drivers = append(n.drivers, p)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if p.Exited() {
			return false, fmt.Errorf("csi-registrar exited; see %s", log)
		}
		node, err := n.cluster.Admin.StorageV1().CSINodes().Get(ctx, n.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return slices.ContainsFunc(node.Spec.Drivers, func(d storagev1.CSINodeDriver) bool { return d.Name == name }), nil
	})
	if err != nil {
		return fmt.Errorf("wait for kubelet on %s to register driver %s (see %s and %s): %w", n.Name, name, log, n.Kubelet.Log, err)
	}
	return nil
}
