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
	"fmt"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// nodeNameEnv is the variable that names a --node-deployment resizer's
// node (options.NodeNameEnv), which a DaemonSet sets from spec.nodeName.
const nodeNameEnv = "NODE_NAME"

// BindRBAC creates the RBAC objects of path (deploy/kubernetes/rbac.yaml,
// rbac-node-deployment.yaml) for the ServiceAccounts of namespace, as
// ApplyRBAC does, except that each ClusterRoleBinding gets the name
// "<name>-<namespace>": ApplyRBAC may have bound the same ServiceAccount
// name of another namespace under the file's own name already. ClusterRoles
// that exist are kept.
func BindRBAC(ctx context.Context, c kubernetes.Interface, path, namespace string) error {
	objs, err := ReadObjects(path)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if b, ok := obj.(*rbacv1.ClusterRoleBinding); ok {
			b.Name += "-" + namespace
		}
		if err := create(ctx, c, obj, namespace); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %T from %s in %s: %w", obj, path, namespace, err)
		}
	}
	return nil
}

// ServiceAccountKubeconfig writes a kubeconfig of the ServiceAccount
// namespace/name, which must exist, with a token the API server issues for
// it (TokenRequest), as a pod of that ServiceAccount gets one. Unlike the
// identities of StartCluster, the ServiceAccount may be made by a test.
func (c *Cluster) ServiceAccountKubeconfig(ctx context.Context, namespace, name string) (string, error) {
	tr, err := c.Admin.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("request a token of ServiceAccount %s/%s: %w", namespace, name, err)
	}
	id := Identity{User: "system:serviceaccount:" + namespace + ":" + name, Token: tr.Status.Token}
	return c.WriteKubeconfig(namespace+"-"+name, id)
}

// StartNodeResizer starts the resizer as StartResizer does, as the
// instance of a --node-deployment on node: NODE_NAME=node in its
// environment, as a DaemonSet's pod sets it with the downward API (the
// flag itself is one of args). env(1) sets it and execs the resizer, so the
// Process's pid is the resizer's.
func StartNodeResizer(tools Tools, dir, name, node, kubeconfig, socket string, args ...string) (*Process, error) {
	all := append([]string{nodeNameEnv + "=" + node, tools.Resizer, "--csi-address=" + socket, "--kubeconfig=" + kubeconfig}, args...)
	p, err := StartProcess(name, filepath.Join(dir, name+".log"), "env", all...)
	if err != nil {
		return nil, fmt.Errorf("start resizer of node %s: %w", node, err)
	}
	return p, nil
}

// LabelNode sets the label key of the Node to value, or removes it when
// value is "".
func LabelNode(ctx context.Context, c kubernetes.Interface, node, key, value string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{key: nullable(value)}}})
	if err != nil {
		return err
	}
	if _, err := c.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("label node %s with %s: %w", node, patch, err)
	}
	return nil
}

// RequiredAffinity is a PV's required node affinity of one term, which
// ANDs exprs.
func RequiredAffinity(exprs ...v1.NodeSelectorRequirement) *v1.VolumeNodeAffinity {
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: exprs}}}}
}
