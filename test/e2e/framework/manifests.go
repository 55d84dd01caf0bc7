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
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
)

// DecodeUnstructured splits multi-document YAML into objects.
func DecodeUnstructured(data []byte) ([]*unstructured.Unstructured, error) {
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

// ReadObjects decodes the Kubernetes objects of a multi-document YAML file.
func ReadObjects(path string) ([]runtime.Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	us, err := DecodeUnstructured(data)
	objs := make([]runtime.Object, len(us))
	for i := 0; err == nil && i < len(us); i++ {
		var raw []byte
		if raw, err = us[i].MarshalJSON(); err == nil {
			objs[i], _, err = scheme.Codecs.UniversalDeserializer().Decode(raw, nil, nil)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return objs, nil
}

// ErrUnknownKind is returned for objects of a kind the server does not
// serve, such as a ServiceMonitor without the Prometheus operator's CRDs.
var ErrUnknownKind = errors.New("kind not served by this API server")

// DryRunApply submits obj as a server-side apply with dryRun=All: the API
// server decodes, defaults, validates and admits it, and stores nothing.
func DryRunApply(ctx context.Context, config *rest.Config, obj *unstructured.Unstructured, namespace string) error {
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	gvk := obj.GroupVersionKind()
	mapping, err := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)).RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("%s: %w", gvk, ErrUnknownKind)
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	var res dynamic.ResourceInterface = client.Resource(mapping.Resource)
	if mapping.Scope.Name() == "namespace" {
		res = client.Resource(mapping.Resource).Namespace(cmp.Or(obj.GetNamespace(), namespace))
	}
	opts := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "e2e", Force: ptr.To(true)}
	if _, err = res.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts); err != nil {
		return fmt.Errorf("dry-run apply %s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	return nil
}

// ApplyRBAC creates the RBAC objects of path (deploy/kubernetes/rbac.yaml),
// with every namespaced object moved to namespace.
func ApplyRBAC(ctx context.Context, c kubernetes.Interface, path, namespace string) error {
	return applyRBAC(ctx, c, path, namespace, false)
}

// BindRBAC is ApplyRBAC (of rbac.yaml or rbac-node-deployment.yaml) with
// each ClusterRoleBinding named "<name>-<namespace>": ApplyRBAC may have
// bound the same ServiceAccount name of another namespace under the file's
// own name already. ClusterRoles that exist are kept.
func BindRBAC(ctx context.Context, c kubernetes.Interface, path, namespace string) error {
	return applyRBAC(ctx, c, path, namespace, true)
}

func applyRBAC(ctx context.Context, c kubernetes.Interface, path, namespace string, perNamespace bool) error {
	objs, err := ReadObjects(path)
	if err != nil {
		return err
	}
	where := ""
	if perNamespace {
		where = " in " + namespace
	}
	for _, obj := range objs {
		if b, ok := obj.(*rbacv1.ClusterRoleBinding); ok && perNamespace {
			b.Name += "-" + namespace
		}
		if err := create(ctx, c, obj, namespace); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %T from %s%s: %w", obj, path, where, err)
		}
	}
	return nil
}

// create creates an RBAC object, its namespaced parts moved to ns.
func create(ctx context.Context, c kubernetes.Interface, obj runtime.Object, ns string) error {
	opts := metav1.CreateOptions{}
	var err error
	switch o := obj.(type) {
	case *v1.ServiceAccount:
		o.Namespace = ns
		_, err = c.CoreV1().ServiceAccounts(ns).Create(ctx, o, opts)
	case *rbacv1.ClusterRole:
		_, err = c.RbacV1().ClusterRoles().Create(ctx, o, opts)
	case *rbacv1.ClusterRoleBinding:
		moveSubjects(o.Subjects, ns)
		_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, o, opts)
	case *rbacv1.Role:
		o.Namespace = ns
		_, err = c.RbacV1().Roles(ns).Create(ctx, o, opts)
	case *rbacv1.RoleBinding:
		o.Namespace = ns
		moveSubjects(o.Subjects, ns)
		_, err = c.RbacV1().RoleBindings(ns).Create(ctx, o, opts)
	default:
		err = fmt.Errorf("unexpected object %T", obj)
	}
	return err
}

func moveSubjects(subjects []rbacv1.Subject, ns string) {
	for i := range subjects {
		if subjects[i].Kind == rbacv1.ServiceAccountKind {
			subjects[i].Namespace = ns
		}
	}
}

// BindRulesWithout gives the ServiceAccount namespace/name the rules of the
// ClusterRoles of path, except those on resource: a copy of each role named
// "<role>-without-<resource>", bound to the ServiceAccount.
func BindRulesWithout(ctx context.Context, c kubernetes.Interface, path, namespace, name, resource string) error {
	objs, err := ReadObjects(path)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		role, ok := obj.(*rbacv1.ClusterRole)
		if !ok {
			continue
		}
		role.Name += "-without-" + resource
		role.Rules = slices.DeleteFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, resource) })
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role.Name + "-" + name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		}
		for _, o := range []runtime.Object{role, binding} {
			if err := create(ctx, c, o, namespace); err != nil {
				return fmt.Errorf("create %T %s: %w", o, role.Name, err)
			}
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
