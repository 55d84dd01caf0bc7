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

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The objects of the node-deployment comparison: Nodes that no kubelet
// runs, claims spread over them in turn, each PV pinned to its claim's node
// by required node affinity, as a node-local driver provisions them.

// nodeName is the name of the i-th simulated node.
func nodeName(i int) string { return fmt.Sprintf("node-%d", i) }

// nodeOfClaim is the node of the i-th claim among nodes: claims go to the
// nodes in turn.
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

// createPinnedPairs creates n bound claims and PVs of driverName, the i-th
// PV pinned to nodeOfClaim(i, nodes) with volume handle handles[i], as the
// PV controller and a node-local driver's provisioner leave them.
func createPinnedPairs(ctx context.Context, c kubernetes.Interface, n, nodes int, size string, handles []string, goroutines int) error {
	return framework.Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		_, err := framework.CreateBound(ctx, c, pinnedVolume(i, size, handles[i], nodeOfClaim(i, nodes)))
		return err
	}, progress("bound PVC+PV pairs pinned to their node", n))
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
