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

package sidecar

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// nodeOf returns the instance's Node with --node-deployment, nil without.
// It reads the Node once, so that a NODE_NAME that names no node, or a role
// that may not read nodes, stops the start with an error that says so
// instead of an informer that never syncs; and so that the PV cache knows
// the node's labels from its first object (Controller.keepsWhole).
func nodeOf(ctx context.Context, o *options.Options, client kube.Interface) (*v1.Node, error) {
	if !o.NodeDeployment {
		return nil, nil
	}
	name := o.NodeName
	node, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("--node-deployment: Node %q does not exist: %s must be the name of the node the resizer runs on, the pod's spec.nodeName", name, options.NodeNameEnv)
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("--node-deployment: the resizer may not read its Node %q: its role needs get, list and watch on nodes: %w", name, err)
	case err != nil:
		return nil, fmt.Errorf("--node-deployment: read Node %q: %w", name, err)
	}
	klog.FromContext(ctx).Info("Node deployment: handling only the volumes whose node affinity pins them to this node", "node", name, "labels", len(node.Labels))
	return node, nil
}
