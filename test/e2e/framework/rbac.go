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
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// ReadObjects decodes the Kubernetes objects of a multi-document YAML file.
func ReadObjects(path string) ([]runtime.Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []runtime.Object
	for {
		var raw runtime.RawExtension
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode %s: %w", path, err)
		}
		if len(bytes.TrimSpace(raw.Raw)) == 0 || string(raw.Raw) == "null" {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(raw.Raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("decode %s: %w", path, err)
		}
		objs = append(objs, obj)
	}
}

// ApplyRBAC creates the RBAC objects of path (deploy/kubernetes/rbac.yaml),
// with every namespaced object moved to namespace.
func ApplyRBAC(ctx context.Context, c kubernetes.Interface, path, namespace string) error {
	objs, err := ReadObjects(path)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := create(ctx, c, obj, namespace); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %T from %s: %w", obj, path, err)
		}
	}
	return nil
}

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
