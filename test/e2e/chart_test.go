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
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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

// findNamed is the object of kind and name, or nil.
func findNamed(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// workload is the pod template of the chart's standalone workload: the
// Deployment, or with nodeDeployment.enabled the DaemonSet. It fails the
// test unless exactly one of them is rendered.
func workload(t *testing.T, objs []*unstructured.Unstructured) (kind string, pod corev1.PodTemplateSpec) {
	t.Helper()
	deployment, daemonSet := find(objs, "Deployment"), find(objs, "DaemonSet")
	switch {
	case deployment != nil && daemonSet != nil:
		t.Fatal("both a Deployment and a DaemonSet rendered")
	case deployment != nil:
		return "Deployment", convert[appsv1.Deployment](t, deployment).Spec.Template
	case daemonSet != nil:
		return "DaemonSet", convert[appsv1.DaemonSet](t, daemonSet).Spec.Template
	}
	t.Fatal("no Deployment or DaemonSet rendered")
	return "", corev1.PodTemplateSpec{}
}

// resizerContainer is the csi-resizer container of the chart's workload.
func resizerContainer(t *testing.T, objs []*unstructured.Unstructured) corev1.Container {
	t.Helper()
	_, pod := workload(t, objs)
	for _, c := range pod.Spec.Containers {
		if c.Name == "csi-resizer" {
			return c
		}
	}
	t.Fatal("no csi-resizer container")
	return corev1.Container{}
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
	return resizerContainer(t, objs).Args
}

// ruleResources returns the resources of the rules of the ClusterRole
// external-resizer-runner.
func ruleResources(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	role := findNamed(objs, "ClusterRole", "external-resizer-runner")
	if role == nil {
		t.Fatal("no ClusterRole external-resizer-runner rendered")
	}
	var out []string
	for _, r := range convert[rbacv1.ClusterRole](t, role).Rules {
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
		// wantNodeReader: the ClusterRole external-resizer-node-reader
		// and its binding are rendered, and the workload is a DaemonSet
		// whose resizer gets NODE_NAME.
		wantNodeReader bool
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
		// With nodeDeployment the lease Role stays: each instance keeps its
		// node Lease there.
		{name: "node deployment", sets: []string{"nodeDeployment.enabled=true"},
			wantArgs:      []string{"--csi-address=/csi/csi.sock", "--node-deployment", "--http-endpoint=:8080", "--handle-volume-inuse-error=true"},
			notArgs:       []string{"--leader-election", "--leader-election-namespace", "--leader-election-lease-duration", "--leader-election-renew-deadline", "--leader-election-retry-period", "--leader-election-labels"},
			wantResources: []string{"secrets", "persistentvolumes", "persistentvolumeclaims", "pods", "persistentvolumeclaims/status", "events", "storageclasses", "volumeattributesclasses"},
			wantRole:      true, wantNodeReader: true},
		{name: "node deployment, leader election off explicitly", sets: []string{"nodeDeployment.enabled=true", "leaderElection.enabled=false"},
			wantArgs: []string{"--node-deployment"}, notArgs: []string{"--leader-election"}, wantRole: true, wantNodeReader: true},
		{name: "node deployment, Lease namespace and labels", sets: []string{"nodeDeployment.enabled=true", "leaderElection.namespace=kube-leases", "leaderElection.labels.team=storage"},
			wantArgs: []string{"--node-deployment", "--leader-election-namespace=kube-leases", "--leader-election-labels=team:storage"},
			notArgs:  []string{"--leader-election", "--leader-election-lease-duration"}, wantRole: true, wantNodeReader: true},
		{name: "node deployment, --node-deployment also in additionalArgs", sets: []string{"nodeDeployment.enabled=true", "additionalArgs={--node-deployment}"},
			wantArgs: []string{"--node-deployment"}, wantRole: true, wantNodeReader: true},
		{name: "node deployment, switched-off features", sets: []string{"nodeDeployment.enabled=true", "handleVolumeInUseError=false", "volumeModification.enabled=false", "secrets.enabled=false"},
			wantArgs:     []string{"--node-deployment", "--handle-volume-inuse-error=false", "--feature-gates=VolumeAttributesClass=false"},
			notResources: []string{"pods", "volumeattributesclasses", "secrets"}, wantRole: true, wantNodeReader: true},
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
			reader := findNamed(objs, "ClusterRole", "external-resizer-node-reader") != nil
			readerBinding := findNamed(objs, "ClusterRoleBinding", "csi-resizer-node-reader") != nil
			if reader != tc.wantNodeReader || readerBinding != tc.wantNodeReader {
				t.Errorf("ClusterRole external-resizer-node-reader rendered = %v, its binding %v, want %v", reader, readerBinding, tc.wantNodeReader)
			}
			kind, _ := workload(t, objs)
			_, nodeName := nodeNameEnv(resizerContainer(t, objs))
			if want := map[bool]string{false: "Deployment", true: "DaemonSet"}[tc.wantNodeReader]; kind != want || nodeName != tc.wantNodeReader {
				t.Errorf("workload %s, resizer with NODE_NAME %v; want %s, %v", kind, nodeName, want, tc.wantNodeReader)
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
// feature gate its RBAC does not match, or flags it refuses together, fail
// the render, saying why.
func TestChartRefusesContradictions(t *testing.T) {
	const modification = "volumeModification.enabled=false contradicts"
	const nodeLeader = "nodeDeployment.enabled=true contradicts"
	tests := []struct {
		name string
		sets []string
		want string // in the message
	}{
		{name: "modification off, gate on in featureGates", sets: []string{"volumeModification.enabled=false", "featureGates.VolumeAttributesClass=true"}, want: modification},
		{name: "modification off, gate on in additionalArgs", sets: []string{"volumeModification.enabled=false", "additionalArgs={--feature-gates=VolumeAttributesClass=true}"}, want: modification},
		{name: "node deployment with leader election", sets: []string{"nodeDeployment.enabled=true", "leaderElection.enabled=true"}, want: nodeLeader + " leaderElection.enabled=true"},
		{name: "node deployment with leader election, RBAC only", sets: []string{"nodeDeployment.enabled=true", "leaderElection.enabled=true", "standalone.enabled=false"}, want: nodeLeader + " leaderElection.enabled=true"},
		{name: "node deployment with --leader-election in additionalArgs", sets: []string{"nodeDeployment.enabled=true", "additionalArgs={--leader-election}"}, want: nodeLeader + " --leader-election in additionalArgs"},
		{name: "node deployment with --leader-election=true in additionalArgs", sets: []string{"nodeDeployment.enabled=true", "additionalArgs={--leader-election=true}"}, want: nodeLeader + " --leader-election=true in additionalArgs"},
		{name: "node deployment with replicas", sets: []string{"nodeDeployment.enabled=true", "replicas=2"}, want: "replicas does not apply"},
		{name: "--node-deployment in additionalArgs only", sets: []string{"additionalArgs={--node-deployment}"}, want: "set nodeDeployment.enabled=true instead"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"template", "rel", chart, "--set", "driver.image=registry.example.com/driver:v1"}
			for _, s := range tc.sets {
				args = append(args, "--set", s)
			}
			out, err := helm(t, args...)
			if err == nil || !strings.Contains(out, tc.want) {
				t.Fatalf("want a failure saying %q, got %v:\n%s", tc.want, err, out)
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
// same objects with the same rules; with nodeDeployment.enabled, those of
// rbac.yaml and rbac-node-deployment.yaml. No RBAC object is rendered that
// the plain manifests lack.
func TestChartRBACMatchesPlainManifest(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		files []string
	}{
		{name: "defaults", files: []string{rbacFile()}},
		{name: "node deployment", sets: []string{"nodeDeployment.enabled=true"}, files: []string{rbacFile(), nodeRBACFile}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var plain []runtime.Object
			for _, f := range tc.files {
				objs, err := framework.ReadObjects(f)
				must(t, err)
				plain = append(plain, objs...)
			}
			rendered := render(t, tc.sets...)
			want := map[string]bool{}
			for _, p := range plain {
				switch w := p.(type) {
				case *rbacv1.ClusterRole:
					want["ClusterRole/"+w.Name] = true
					got := convert[rbacv1.ClusterRole](t, renderedRBAC(t, rendered, "ClusterRole", w.Name))
					equalRBAC(t, "ClusterRole", got.Name, w.Name, got.Rules, w.Rules)
				case *rbacv1.Role:
					want["Role/"+w.Name] = true
					got := convert[rbacv1.Role](t, renderedRBAC(t, rendered, "Role", w.Name))
					equalRBAC(t, "Role", got.Name, w.Name, got.Rules, w.Rules)
				case *rbacv1.ClusterRoleBinding:
					want["ClusterRoleBinding/"+w.Name] = true
					got := convert[rbacv1.ClusterRoleBinding](t, renderedRBAC(t, rendered, "ClusterRoleBinding", w.Name))
					equalRBAC(t, "ClusterRoleBinding", got.Name, w.Name, got.Subjects, w.Subjects)
					equalRBAC(t, "ClusterRoleBinding roleRef", got.Name, w.Name, got.RoleRef, w.RoleRef)
				case *rbacv1.RoleBinding:
					want["RoleBinding/"+w.Name] = true
					got := convert[rbacv1.RoleBinding](t, renderedRBAC(t, rendered, "RoleBinding", w.Name))
					equalRBAC(t, "RoleBinding", got.Name, w.Name, got.Subjects, w.Subjects)
					equalRBAC(t, "RoleBinding roleRef", got.Name, w.Name, got.RoleRef, w.RoleRef)
				}
			}
			for _, o := range rendered {
				if o.GetAPIVersion() == rbacv1.SchemeGroupVersion.String() && !want[o.GetKind()+"/"+o.GetName()] {
					t.Errorf("the chart renders %s %s, which %v lack", o.GetKind(), o.GetName(), tc.files)
				}
			}
		})
	}
}

// nodeRBACFile is the extra RBAC of a --node-deployment resizer.
var nodeRBACFile = filepath.Join("..", "..", "deploy", "kubernetes", "rbac-node-deployment.yaml")

// renderedRBAC is the rendered object of kind and name; it fails the test
// when there is none.
func renderedRBAC(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	o := findNamed(objs, kind, name)
	if o == nil {
		t.Fatalf("the chart renders no %s %s", kind, name)
	}
	return o
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
	got := convert[rbacv1.ClusterRole](t, findNamed(render(t, "volumeModification.enabled=false"), "ClusterRole", "external-resizer-runner"))
	equalRBAC(t, "ClusterRole", got.Name, "external-resizer-runner", got.Rules, want)
}

func equalRBAC[T any](t *testing.T, kind, gotName, wantName string, got, want T) {
	t.Helper()
	if gotName != wantName {
		t.Errorf("%s name = %q, want %q", kind, gotName, wantName)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s %s:\n chart %+v\n plain %+v", kind, wantName, got, want)
	}
}

// TestChartObjectsValidate has the API server validate what the chart
// renders (server-side apply, dry run).
func TestChartObjectsValidate(t *testing.T) {
	for _, sets := range [][]string{nil, {"metrics.service.enabled=true", "leaderElection.enabled=false", "replicas=1"},
		{"volumeModification.enabled=false", "resizeTimeout=1m", "modifyTimeout=5m", "extraModifyMetadata=true"},
		{"nodeDeployment.enabled=true"},
		{"nodeDeployment.enabled=true", "nodeDeployment.maxUnavailable=10%", "metrics.service.enabled=true", "leaderElection.labels.team=storage", "tolerations[0].operator=Exists"}} {
		for _, obj := range render(t, sets...) {
			err := framework.DryRunApply(context.Background(), cluster.AdminConfig, obj, "default")
			if err != nil && !strings.Contains(err.Error(), framework.ErrUnknownKind.Error()) {
				t.Errorf("%v: %v", sets, err)
			}
		}
	}
}

// TestChartInstall follows the README's Helm install word by word against
// the real API server (no pods run: there is no kubelet), then installs the
// chart again with nodeDeployment.enabled. The RBAC of rbac.yaml (and of
// rbac-node-deployment.yaml, if a test created it) is taken away first,
// since the chart creates the same cluster-wide objects, and put back
// afterwards.
func TestChartInstall(t *testing.T) {
	ctx := context.Background()
	kubeconfig, err := cluster.WriteKubeconfig("helm-admin", cluster.AdminIdentity())
	must(t, err)
	rbac := cluster.Admin.RbacV1()
	must(t, rbac.ClusterRoles().Delete(ctx, "external-resizer-runner", metav1.DeleteOptions{}))
	must(t, rbac.ClusterRoleBindings().Delete(ctx, "csi-resizer-role", metav1.DeleteOptions{}))
	t.Cleanup(func() { must(t, framework.ApplyRBAC(ctx, cluster.Admin, rbacFile(), resizerNamespace)) })
	setAsideNodeRBAC(t)

	tests := []struct {
		name string
		sets []string
		// kind is the workload's; node, whether the nodes RBAC comes too.
		kind string
		node bool
	}{
		// The README's command, plus the kubeconfig of this cluster.
		{name: "defaults", kind: "Deployment"},
		{name: "node deployment", sets: []string{"nodeDeployment.enabled=true"}, kind: "DaemonSet", node: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"install", "csi-resizer", chart, "--namespace", "kube-csi", "--create-namespace",
				"--set", "driver.image=registry.example.com/my-csi-driver:v1.0.0",
				"--set", "driver.args={--endpoint=unix:///csi/csi.sock}",
				"--kubeconfig", kubeconfig}
			for _, s := range tc.sets {
				args = append(args, "--set", s)
			}
			out, err := helm(t, args...)
			if err != nil {
				t.Fatalf("helm install: %v\n%s", err, out)
			}
			t.Cleanup(func() {
				if out, err := helm(t, "uninstall", "csi-resizer", "--kubeconfig", kubeconfig, "--namespace", "kube-csi"); err != nil {
					t.Errorf("helm uninstall: %v\n%s", err, out)
				}
			})
			var workloads []string
			if _, err := cluster.Admin.AppsV1().Deployments("kube-csi").Get(ctx, "csi-resizer", metav1.GetOptions{}); err == nil {
				workloads = append(workloads, "Deployment")
			}
			if _, err := cluster.Admin.AppsV1().DaemonSets("kube-csi").Get(ctx, "csi-resizer", metav1.GetOptions{}); err == nil {
				workloads = append(workloads, "DaemonSet")
			}
			if !slices.Equal(workloads, []string{tc.kind}) {
				t.Errorf("workloads kube-csi/csi-resizer after install: %v, want a %s only", workloads, tc.kind)
			}
			if _, err := rbac.ClusterRoles().Get(ctx, "external-resizer-runner", metav1.GetOptions{}); err != nil {
				t.Errorf("ClusterRole after install: %v", err)
			}
			if _, err := rbac.Roles("kube-csi").Get(ctx, "external-resizer-cfg", metav1.GetOptions{}); err != nil {
				t.Errorf("lease Role after install: %v", err)
			}
			_, errReader := rbac.ClusterRoles().Get(ctx, "external-resizer-node-reader", metav1.GetOptions{})
			_, errReaderBinding := rbac.ClusterRoleBindings().Get(ctx, "csi-resizer-node-reader", metav1.GetOptions{})
			if (errReader == nil) != tc.node || (errReaderBinding == nil) != tc.node {
				t.Errorf("after install: ClusterRole external-resizer-node-reader %v, ClusterRoleBinding csi-resizer-node-reader %v; want them %v",
					errReader, errReaderBinding, tc.node)
			}
		})
	}
}

// setAsideNodeRBAC deletes the cluster-wide objects of
// rbac-node-deployment.yaml that exist, which a chart installed with
// nodeDeployment.enabled would create, and creates them again when the test
// ends.
func setAsideNodeRBAC(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	rbac := cluster.Admin.RbacV1()
	if role, err := rbac.ClusterRoles().Get(ctx, "external-resizer-node-reader", metav1.GetOptions{}); err == nil {
		must(t, rbac.ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{}))
		role.ObjectMeta = metav1.ObjectMeta{Name: role.Name, Labels: role.Labels, Annotations: role.Annotations}
		t.Cleanup(func() {
			if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
				t.Errorf("put back ClusterRole %s: %v", role.Name, err)
			}
		})
	}
	if binding, err := rbac.ClusterRoleBindings().Get(ctx, "csi-resizer-node-reader", metav1.GetOptions{}); err == nil {
		must(t, rbac.ClusterRoleBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{}))
		binding.ObjectMeta = metav1.ObjectMeta{Name: binding.Name, Labels: binding.Labels, Annotations: binding.Annotations}
		t.Cleanup(func() {
			if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
				t.Errorf("put back ClusterRoleBinding %s: %v", binding.Name, err)
			}
		})
	}
}

// checkHardening checks the hardening of the resizer container that works
// as root too: a read-only root file system, no privilege escalation, every
// capability dropped, the RuntimeDefault seccomp profile.
func checkHardening(t *testing.T, where string, sc *corev1.SecurityContext) {
	t.Helper()
	if sc == nil {
		t.Errorf("%s: no securityContext", where)
		return
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("%s: readOnlyRootFilesystem %v, want true", where, sc.ReadOnlyRootFilesystem)
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("%s: allowPrivilegeEscalation %v, want false", where, sc.AllowPrivilegeEscalation)
	}
	if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Errorf("%s: capabilities %+v, want drop [ALL]", where, sc.Capabilities)
	}
	if sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: seccompProfile %+v, want RuntimeDefault", where, sc.SeccompProfile)
	}
	if sc.Privileged != nil && *sc.Privileged {
		t.Errorf("%s: privileged", where)
	}
}

// checkImageUser checks that the resizer container runs as the image's
// user, root as upstream's (a driver running as root makes a socket only
// root may open), and that the pod sets no user, group or fsGroup either
// (they would apply to the driver's container too).
func checkImageUser(t *testing.T, where string, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	if sc := c.SecurityContext; sc != nil && (sc.RunAsUser != nil || sc.RunAsGroup != nil || (sc.RunAsNonRoot != nil && *sc.RunAsNonRoot)) {
		t.Errorf("%s: resizer runAsUser %v, runAsGroup %v, runAsNonRoot %v: want none, the image's user (root) opens a root driver's socket",
			where, ptrString(sc.RunAsUser), ptrString(sc.RunAsGroup), ptrString(sc.RunAsNonRoot))
	}
	if sc := pod.SecurityContext; sc != nil && (sc.RunAsUser != nil || sc.RunAsGroup != nil || sc.RunAsNonRoot != nil || sc.FSGroup != nil || len(sc.SupplementalGroups) > 0) {
		t.Errorf("%s: pod securityContext %+v sets a user or group, which the driver's container gets too", where, sc)
	}
}

func ptrString[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// podContainer is the container of a pod template by name.
func podContainer(t *testing.T, pod corev1.PodTemplateSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %s", name)
	return corev1.Container{}
}

// TestChartSecurityContext: by default the resizer runs as the image's
// user, root as upstream's, with the hardening that works as root, and the
// chart sets no user for the pod or the driver; the non-root example (and
// the same keys given with --set) runs the resizer as 65532, keeping that
// hardening, beside a driver of the same user, whose socket 65532 may open.
func TestChartSecurityContext(t *testing.T) {
	for name, sets := range map[string][]string{
		"defaults":        nil,
		"node deployment": {"nodeDeployment.enabled=true"},
	} {
		t.Run(name, func(t *testing.T) {
			_, pod := workload(t, render(t, sets...))
			c := podContainer(t, pod, "csi-resizer")
			checkHardening(t, "resizer", c.SecurityContext)
			checkImageUser(t, "chart "+name, pod.Spec, c)
			if d := podContainer(t, pod, "csi-driver"); d.SecurityContext != nil {
				t.Errorf("driver securityContext %+v: want the driver's own (driver.securityContext, empty by default)", d.SecurityContext)
			}
		})
	}

	nonRoot := func(t *testing.T, objs []*unstructured.Unstructured) (resizer, driver corev1.Container, pod corev1.PodTemplateSpec) {
		t.Helper()
		_, pod = workload(t, objs)
		resizer, driver = podContainer(t, pod, "csi-resizer"), podContainer(t, pod, "csi-driver")
		checkHardening(t, "resizer", resizer.SecurityContext)
		sc := resizer.SecurityContext
		if sc == nil || ptrString(sc.RunAsUser) != "65532" || ptrString(sc.RunAsGroup) != "65532" || ptrString(sc.RunAsNonRoot) != "true" {
			t.Errorf("resizer securityContext %+v: want runAsUser and runAsGroup 65532, runAsNonRoot", sc)
		}
		return resizer, driver, pod
	}
	t.Run("non-root example", func(t *testing.T) {
		out, err := helm(t, "template", "csi-resizer", chart, "--namespace", "kube-csi", "--values", filepath.Join(examplesDir, "non-root.values.yaml"))
		if err != nil {
			t.Fatalf("helm template: %v\n%s", err, out)
		}
		objs, err := framework.DecodeUnstructured([]byte(out))
		must(t, err)
		_, driver, pod := nonRoot(t, objs)
		// The driver runs as the same user, so its socket is 65532's.
		user := func(c corev1.Container) string {
			if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
				return fmt.Sprint(*c.SecurityContext.RunAsUser)
			}
			if pod.Spec.SecurityContext != nil && pod.Spec.SecurityContext.RunAsUser != nil {
				return fmt.Sprint(*pod.Spec.SecurityContext.RunAsUser)
			}
			return "the image's"
		}
		if got := user(driver); got != "65532" {
			t.Errorf("the driver runs as %s: want 65532, the resizer's user, or its socket refuses the resizer", got)
		}
	})
	t.Run("non-root with --set", func(t *testing.T) {
		nonRoot(t, render(t, "securityContext.runAsUser=65532", "securityContext.runAsGroup=65532", "securityContext.runAsNonRoot=true"))
	})
}
