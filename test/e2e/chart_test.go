//go:build e2e

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

package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

var chart = filepath.Join("..", "..", "deploy", "helm", "csi-resizer")

// helm runs the helm binary built from its pinned release.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(tools.Helm, args...).CombinedOutput()
	return string(out), err
}

// render is `helm template` of the chart in namespace default, with a
// driver image (standalone mode needs one) and the given --set values.
func render(t *testing.T, sets ...string) []*unstructured.Unstructured {
	t.Helper()
	args := []string{"template", "rel", chart, "--namespace", "default", "--set", "driver.image=registry.example.com/driver:v1"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	out, err := helm(t, args...)
	if err != nil {
		t.Fatalf("helm template %v: %v\n%s", sets, err, out)
	}
	objs, err := framework.DecodeUnstructured([]byte(out))
	must(t, err)
	return objs
}

func find(objs []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind {
			return o
		}
	}
	return nil
}

func convert[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	out := new(T)
	must(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out))
	return out
}

// resizerArgs returns the args of the chart's resizer container.
func resizerArgs(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	u := find(objs, "Deployment")
	if u == nil {
		t.Fatal("no Deployment rendered")
	}
	for _, c := range convert[appsv1.Deployment](t, u).Spec.Template.Spec.Containers {
		if c.Name == "csi-resizer" {
			return c.Args
		}
	}
	t.Fatal("no csi-resizer container")
	return nil
}

func ruleResources(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	var out []string
	for _, r := range convert[rbacv1.ClusterRole](t, find(objs, "ClusterRole")).Rules {
		out = append(out, r.Resources...)
	}
	return out
}

func TestChartLint(t *testing.T) {
	out, err := helm(t, "lint", "--strict", chart, "--set", "driver.image=registry.example.com/driver:v1")
	if err != nil {
		t.Fatalf("helm lint: %v\n%s", err, out)
	}
}

func TestChartValueSets(t *testing.T) {
	tests := []struct {
		name          string
		sets          []string
		wantArgs      []string
		notArgs       []string
		wantResources []string
		notResources  []string
		wantRole      bool
	}{
		{name: "defaults",
			wantArgs:      []string{"--csi-address=/csi/csi.sock", "--v=2", "--workers=10", "--timeout=10s", "--leader-election", "--leader-election-namespace=default", "--http-endpoint=:8080", "--handle-volume-inuse-error=true"},
			notArgs:       []string{"--resize-timeout", "--modify-timeout", "--feature-gates", "--extra-modify-metadata"},
			wantResources: []string{"secrets", "persistentvolumes", "persistentvolumeclaims", "pods", "persistentvolumeclaims/status", "events", "storageclasses", "volumeattributesclasses"},
			wantRole:      true},
		{name: "leader election off", sets: []string{"leaderElection.enabled=false"},
			notArgs: []string{"--leader-election"}, wantRole: false},
		{name: "secrets on", sets: []string{"secrets.enabled=true"}, wantResources: []string{"secrets"}, wantRole: true},
		{name: "secrets off", sets: []string{"secrets.enabled=false"}, notResources: []string{"secrets"}, wantRole: true},
		{name: "in-use handling off", sets: []string{"handleVolumeInUseError=false"},
			wantArgs: []string{"--handle-volume-inuse-error=false"}, notResources: []string{"pods"}, wantRole: true},
		{name: "custom args override ours", sets: []string{"additionalArgs={--workers=3,--extra-modify-metadata}"},
			wantArgs: []string{"--workers=3", "--extra-modify-metadata"}, notArgs: []string{"--workers=10"}, wantRole: true},
		{name: "volume modification on", sets: []string{"volumeModification.enabled=true"},
			notArgs: []string{"--feature-gates"}, wantResources: []string{"volumeattributesclasses"}, wantRole: true},
		{name: "volume modification off", sets: []string{"volumeModification.enabled=false"},
			wantArgs: []string{"--feature-gates=VolumeAttributesClass=false"}, notResources: []string{"volumeattributesclasses"}, wantRole: true},
		{name: "volume modification off merged with other gates",
			sets:         []string{"volumeModification.enabled=false", "featureGates.AnnotateFsResize=true", "additionalArgs={--feature-gates=RecoverVolumeExpansionFailure=false}"},
			wantArgs:     []string{"--feature-gates=AnnotateFsResize=true,RecoverVolumeExpansionFailure=false,VolumeAttributesClass=false"},
			notResources: []string{"volumeattributesclasses"}, wantRole: true},
		{name: "gate off in featureGates drops the rule", sets: []string{"featureGates.VolumeAttributesClass=false"},
			wantArgs: []string{"--feature-gates=VolumeAttributesClass=false"}, notResources: []string{"volumeattributesclasses"}, wantRole: true},
		{name: "gate off in additionalArgs drops the rule", sets: []string{"additionalArgs={--feature-gates=VolumeAttributesClass=false}"},
			wantArgs: []string{"--feature-gates=VolumeAttributesClass=false"}, notResources: []string{"volumeattributesclasses"}, wantRole: true},
		{name: "timeout only", sets: []string{"timeout=2m"},
			wantArgs: []string{"--timeout=2m"}, notArgs: []string{"--resize-timeout", "--modify-timeout"}, wantRole: true},
		{name: "resizeTimeout replaces timeout", sets: []string{"timeout=1m", "resizeTimeout=5m"},
			wantArgs: []string{"--resize-timeout=5m", "--modify-timeout=1m"}, notArgs: []string{"--timeout"}, wantRole: true},
		{name: "modifyTimeout replaces timeout", sets: []string{"modifyTimeout=30m"},
			wantArgs: []string{"--resize-timeout=10s", "--modify-timeout=30m"}, notArgs: []string{"--timeout"}, wantRole: true},
		{name: "both operation timeouts", sets: []string{"resizeTimeout=5m", "modifyTimeout=30m"},
			wantArgs: []string{"--resize-timeout=5m", "--modify-timeout=30m"}, notArgs: []string{"--timeout"}, wantRole: true},
		{name: "operation timeout in additionalArgs", sets: []string{"additionalArgs={--modify-timeout=2m}"},
			wantArgs: []string{"--resize-timeout=10s", "--modify-timeout=2m"}, notArgs: []string{"--timeout"}, wantRole: true},
		{name: "extraModifyMetadata", sets: []string{"extraModifyMetadata=true"},
			wantArgs: []string{"--extra-modify-metadata"}, wantRole: true},
		{name: "extraModifyMetadata also in additionalArgs", sets: []string{"extraModifyMetadata=true", "additionalArgs={--extra-modify-metadata}"},
			wantArgs: []string{"--extra-modify-metadata"}, wantRole: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, tc.sets...)
			args := resizerArgs(t, objs)
			for _, a := range tc.wantArgs {
				if !slices.Contains(args, a) {
					t.Errorf("args %v lack %s", args, a)
				}
			}
			for _, a := range tc.notArgs {
				for _, got := range args {
					if got == a || strings.HasPrefix(got, a+"=") {
						t.Errorf("args %v have %s", args, got)
					}
				}
			}
			counts := map[string]int{}
			for _, a := range args {
				counts[strings.SplitN(a, "=", 2)[0]]++
			}
			for flag, n := range counts {
				if n > 1 {
					t.Errorf("flag %s given %d times: %v", flag, n, args)
				}
			}
			resources := ruleResources(t, objs)
			for _, r := range tc.wantResources {
				if !slices.Contains(resources, r) {
					t.Errorf("ClusterRole lacks %s: %v", r, resources)
				}
			}
			for _, r := range tc.notResources {
				if slices.Contains(resources, r) {
					t.Errorf("ClusterRole has %s for a switched-off feature", r)
				}
			}
			if got := find(objs, "Role") != nil && find(objs, "RoleBinding") != nil; got != tc.wantRole {
				t.Errorf("lease Role and RoleBinding rendered = %v, want %v", got, tc.wantRole)
			}
			// The binary knows every flag and gate the chart passes
			// (--version parses the command line and exits).
			if out, err := exec.Command(tools.Resizer, append(args, "--version")...).CombinedOutput(); err != nil {
				t.Errorf("resizer rejects the chart's args %v: %v\n%s", args, err, out)
			}
		})
	}
}

// TestChartRefusesContradictions: values that would give the resizer a
// feature gate its RBAC does not match fail the render, saying why.
func TestChartRefusesContradictions(t *testing.T) {
	tests := []struct {
		name string
		sets []string
	}{
		{name: "modification off, gate on in featureGates", sets: []string{"volumeModification.enabled=false", "featureGates.VolumeAttributesClass=true"}},
		{name: "modification off, gate on in additionalArgs", sets: []string{"volumeModification.enabled=false", "additionalArgs={--feature-gates=VolumeAttributesClass=true}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"template", "rel", chart, "--set", "driver.image=registry.example.com/driver:v1"}
			for _, s := range tc.sets {
				args = append(args, "--set", s)
			}
			out, err := helm(t, args...)
			if err == nil || !strings.Contains(out, "volumeModification.enabled=false contradicts") {
				t.Fatalf("want a failure naming volumeModification.enabled, got %v:\n%s", err, out)
			}
		})
	}
}

func TestChartWithoutDriverFailsClearly(t *testing.T) {
	out, err := helm(t, "template", "rel", chart)
	if err == nil || !strings.Contains(out, "standalone") {
		t.Fatalf("want a clear failure naming standalone mode, got %v:\n%s", err, out)
	}
	out, err = helm(t, "template", "rel", chart, "--set", "standalone.enabled=false")
	if err != nil {
		t.Fatalf("RBAC-only rendering: %v\n%s", err, out)
	}
}

// TestChartRBACMatchesPlainManifest: the chart's default RBAC and
// deploy/kubernetes/rbac.yaml, which the e2e resizer runs with, are the
// same objects with the same rules.
func TestChartRBACMatchesPlainManifest(t *testing.T) {
	plain, err := framework.ReadObjects(rbacFile())
	must(t, err)
	rendered := render(t)
	for _, p := range plain {
		switch want := p.(type) {
		case *rbacv1.ClusterRole:
			got := convert[rbacv1.ClusterRole](t, find(rendered, "ClusterRole"))
			equalRBAC(t, "ClusterRole", got.Name, want.Name, got.Rules, want.Rules)
		case *rbacv1.Role:
			got := convert[rbacv1.Role](t, find(rendered, "Role"))
			equalRBAC(t, "Role", got.Name, want.Name, got.Rules, want.Rules)
		case *rbacv1.ClusterRoleBinding:
			got := convert[rbacv1.ClusterRoleBinding](t, find(rendered, "ClusterRoleBinding"))
			equalRBAC(t, "ClusterRoleBinding", got.Name, want.Name, got.Subjects, want.Subjects)
			equalRBAC(t, "ClusterRoleBinding roleRef", got.Name, want.Name, got.RoleRef, want.RoleRef)
		case *rbacv1.RoleBinding:
			got := convert[rbacv1.RoleBinding](t, find(rendered, "RoleBinding"))
			equalRBAC(t, "RoleBinding", got.Name, want.Name, got.Subjects, want.Subjects)
			equalRBAC(t, "RoleBinding roleRef", got.Name, want.Name, got.RoleRef, want.RoleRef)
		}
	}
}

// TestChartRBACWithoutModification: with volumeModification.enabled=false
// the ClusterRole is that of rbac.yaml without the volumeattributesclasses
// rule, which a switched-off feature must not need.
func TestChartRBACWithoutModification(t *testing.T) {
	plain, err := framework.ReadObjects(rbacFile())
	must(t, err)
	var want []rbacv1.PolicyRule
	for _, p := range plain {
		if role, ok := p.(*rbacv1.ClusterRole); ok {
			for _, r := range role.Rules {
				if !slices.Contains(r.Resources, "volumeattributesclasses") {
					want = append(want, r)
				}
			}
		}
	}
	got := convert[rbacv1.ClusterRole](t, find(render(t, "volumeModification.enabled=false"), "ClusterRole"))
	equalRBAC(t, "ClusterRole", got.Name, "external-resizer-runner", got.Rules, want)
}

func equalRBAC[T any](t *testing.T, kind, gotName, wantName string, got, want T) {
	t.Helper()
	if gotName != wantName {
		t.Errorf("%s name = %q, want %q", kind, gotName, wantName)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s %s:\n chart    %+v\n rbac.yaml %+v", kind, wantName, got, want)
	}
}

// TestChartObjectsValidate has the API server validate what the chart
// renders (server-side apply, dry run).
func TestChartObjectsValidate(t *testing.T) {
	for _, sets := range [][]string{nil, {"metrics.service.enabled=true", "leaderElection.enabled=false", "replicas=1"},
		{"volumeModification.enabled=false", "resizeTimeout=1m", "modifyTimeout=5m", "extraModifyMetadata=true"}} {
		for _, obj := range render(t, sets...) {
			err := framework.DryRunApply(context.Background(), cluster.AdminConfig, obj, "default")
			if err != nil && !strings.Contains(err.Error(), framework.ErrUnknownKind.Error()) {
				t.Errorf("%v: %v", sets, err)
			}
		}
	}
}

// TestChartInstall follows the README's Helm install word by word against
// the real API server (no pods run: there is no kubelet). The RBAC of
// rbac.yaml is taken away first, since the chart creates the same
// cluster-wide objects, and put back afterwards.
func TestChartInstall(t *testing.T) {
	ctx := context.Background()
	kubeconfig, err := cluster.WriteKubeconfig("helm-admin", cluster.AdminIdentity())
	must(t, err)
	rbac := cluster.Admin.RbacV1()
	must(t, rbac.ClusterRoles().Delete(ctx, "external-resizer-runner", metav1.DeleteOptions{}))
	must(t, rbac.ClusterRoleBindings().Delete(ctx, "csi-resizer-role", metav1.DeleteOptions{}))
	t.Cleanup(func() { must(t, framework.ApplyRBAC(ctx, cluster.Admin, rbacFile(), resizerNamespace)) })

	// The README's command, plus the kubeconfig of this cluster.
	out, err := helm(t, "install", "csi-resizer", chart, "--namespace", "kube-csi", "--create-namespace",
		"--set", "driver.image=registry.example.com/my-csi-driver:v1.0.0",
		"--set", "driver.args={--endpoint=unix:///csi/csi.sock}",
		"--kubeconfig", kubeconfig)
	if err != nil {
		t.Fatalf("helm install: %v\n%s", err, out)
	}
	if _, err := cluster.Admin.AppsV1().Deployments("kube-csi").Get(ctx, "csi-resizer", metav1.GetOptions{}); err != nil {
		t.Errorf("Deployment after install: %v", err)
	}
	if _, err := rbac.ClusterRoles().Get(ctx, "external-resizer-runner", metav1.GetOptions{}); err != nil {
		t.Errorf("ClusterRole after install: %v", err)
	}
	if _, err := rbac.Roles("kube-csi").Get(ctx, "external-resizer-cfg", metav1.GetOptions{}); err != nil {
		t.Errorf("lease Role after install: %v", err)
	}
	if out, err := helm(t, "uninstall", "csi-resizer", "--kubeconfig", kubeconfig, "--namespace", "kube-csi"); err != nil {
		t.Errorf("helm uninstall: %v\n%s", err, out)
	}
}
