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

// The chart's node mode (nodeDeployment.enabled): the DaemonSet, the
// container a driver chart includes in its own node DaemonSet, and the
// rendered examples checked into deploy/helm/csi-resizer/examples.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// nodeNameEnv reports whether the container sets NODE_NAME from the
// downward API's spec.nodeName, and how it sets it ("" when it does not).
func nodeNameEnv(c corev1.Container) (string, bool) {
	for _, e := range c.Env {
		if e.Name != "NODE_NAME" {
			continue
		}
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName" && e.Value == "" {
			return "fieldRef spec.nodeName", true
		}
		return "value " + e.Value, false
	}
	return "", false
}

// renderIn is render in namespace ns.
func renderIn(t *testing.T, ns string, sets ...string) []*unstructured.Unstructured {
	t.Helper()
	args := []string{"template", "rel", chart, "--namespace", ns, "--set", "driver.image=registry.example.com/driver:v1"}
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

// leaderElectionArgs are the arguments that begin with --leader-election.
func leaderElectionArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "--leader-election") {
			out = append(out, a)
		}
	}
	return out
}

// checkNodeContainer checks a resizer container of node mode: one
// --node-deployment, no leader election flag but allowed, NODE_NAME from
// spec.nodeName, the liveness probe on /healthz.
func checkNodeContainer(t *testing.T, c corev1.Container, allowed ...string) {
	t.Helper()
	if n := slices.Index(c.Args, "--node-deployment"); n < 0 || slices.Contains(c.Args[n+1:], "--node-deployment") {
		t.Errorf("args %v: want --node-deployment once", c.Args)
	}
	for _, a := range leaderElectionArgs(c.Args) {
		if !slices.Contains(allowed, a) {
			t.Errorf("args %v have %s in node mode", c.Args, a)
		}
	}
	if how, ok := nodeNameEnv(c); !ok {
		t.Errorf("env %+v: want NODE_NAME from fieldRef spec.nodeName, got %q", c.Env, how)
	}
	if c.LivenessProbe != nil && (c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz") {
		t.Errorf("liveness probe %+v: want GET /healthz (there is no leader election)", c.LivenessProbe)
	}
}

// TestChartNodeDeployment: with nodeDeployment.enabled the chart renders a
// DaemonSet, not a Deployment, that never runs two resizers on a node at
// once, with the resizer of node mode; the Role for leases (the node
// Leases) and the node reader are bound to the release's ServiceAccount;
// and the binary takes the chart's arguments, refusing them only for the
// NODE_NAME that the pod's downward API supplies.
func TestChartNodeDeployment(t *testing.T) {
	objs := renderIn(t, "kube-csi", "nodeDeployment.enabled=true")
	if d := find(objs, "Deployment"); d != nil {
		t.Errorf("node mode renders Deployment %s", d.GetName())
	}
	u := find(objs, "DaemonSet")
	if u == nil {
		t.Fatal("node mode renders no DaemonSet")
	}
	ds := convert[appsv1.DaemonSet](t, u)
	if ds.Name != "rel-csi-resizer" || ds.Namespace != "kube-csi" {
		t.Errorf("DaemonSet %s/%s, want kube-csi/rel-csi-resizer", ds.Namespace, ds.Name)
	}
	if s := ds.Spec.UpdateStrategy; s.Type != appsv1.RollingUpdateDaemonSetStrategyType || s.RollingUpdate == nil ||
		s.RollingUpdate.MaxSurge == nil || s.RollingUpdate.MaxSurge.IntValue() != 0 ||
		s.RollingUpdate.MaxUnavailable == nil || s.RollingUpdate.MaxUnavailable.String() != "1" {
		t.Errorf("updateStrategy %+v: want RollingUpdate, maxSurge 0, maxUnavailable 1", s)
	}
	c := resizerContainer(t, objs)
	checkNodeContainer(t, c)
	var driver bool
	for _, c := range ds.Spec.Template.Spec.Containers {
		driver = driver || c.Name == "csi-driver" && c.Image == "registry.example.com/driver:v1"
	}
	if !driver {
		t.Errorf("the DaemonSet's pod has no driver container: %+v", ds.Spec.Template.Spec.Containers)
	}

	role := convert[rbacv1.Role](t, renderedRBAC(t, objs, "Role", "external-resizer-cfg"))
	if role.Namespace != "kube-csi" {
		t.Errorf("lease Role in namespace %q, want the release's, where the resizer keeps its node Lease", role.Namespace)
	}
	var leaseVerbs []string
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, "leases") {
			leaseVerbs = append(leaseVerbs, r.Verbs...)
		}
	}
	for _, verb := range []string{"get", "create", "update", "delete"} {
		if !slices.Contains(leaseVerbs, verb) {
			t.Errorf("lease Role lacks %s on leases (the node Lease): %v", verb, role.Rules)
		}
	}
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: "csi-resizer", Namespace: "kube-csi"}
	for _, kind := range []string{"ClusterRoleBinding/csi-resizer-node-reader", "ClusterRoleBinding/csi-resizer-role", "RoleBinding/csi-resizer-role-cfg"} {
		k, name, _ := strings.Cut(kind, "/")
		var subjects []rbacv1.Subject
		if k == "RoleBinding" {
			subjects = convert[rbacv1.RoleBinding](t, renderedRBAC(t, objs, k, name)).Subjects
		} else {
			subjects = convert[rbacv1.ClusterRoleBinding](t, renderedRBAC(t, objs, k, name)).Subjects
		}
		if !slices.Equal(subjects, []rbacv1.Subject{subject}) {
			t.Errorf("%s binds %+v, want %+v", kind, subjects, subject)
		}
	}

	// The binary validates the arguments at start: without NODE_NAME it
	// stops at once with exit code 2 and that reason only (not, say,
	// --leader-election).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tools.Resizer, c.Args...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "NODE_NAME=") })
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "requires the NODE_NAME environment variable") ||
		strings.Contains(string(out), "--leader-election") {
		t.Errorf("resizer with the chart's args %v and no NODE_NAME: %v, want exit code 2 naming NODE_NAME only:\n%s", c.Args, err, out)
	}
}

// TestChartNodeDeploymentInDriverChart: a driver chart that depends on this
// one (alias resizer, standalone off, nodeDeployment on) includes the
// resizer container in its own node DaemonSet with the README's include
// line; the container is that of node mode, and the dependency renders the
// RBAC of node mode for the driver's ServiceAccount and no workload.
func TestChartNodeDeploymentInDriverChart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-local-driver")
	must(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	must(t, os.CopyFS(filepath.Join(dir, "charts", "csi-resizer"), os.DirFS(chart)))
	files := map[string]string{
		"Chart.yaml": `apiVersion: v2
name: my-local-driver
version: 1.0.0
dependencies:
  - name: csi-resizer
    version: 0.1.0
    alias: resizer
`,
		"values.yaml": `resizer:
  standalone:
    enabled: false
  nodeDeployment:
    enabled: true
  serviceAccount:
    create: false
    name: my-node-sa
  metrics:
    port: 8090
    portName: resizer-http
`,
		filepath.Join("templates", "node.yaml"): `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: my-local-driver-node
  namespace: {{ .Release.Namespace }}
spec:
  selector:
    matchLabels:
      app: my-local-driver-node
  template:
    metadata:
      labels:
        app: my-local-driver-node
    spec:
      serviceAccountName: my-node-sa
      containers:
        - name: csi-driver
          image: registry.example.com/my-local-driver:v1.0.0
          args:
            - --endpoint=unix:///csi/csi.sock
          volumeMounts:
            - name: socket-dir
              mountPath: /csi
        {{- include "csi-resizer.container" (dict "Values" .Values.resizer "Release" .Release "Chart" .Subcharts.resizer.Chart) | nindent 8 }}
      volumes:
        - name: socket-dir
          emptyDir: {}
`,
	}
	for name, content := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	out, err := helm(t, "template", "my-driver", dir, "--namespace", "kube-csi")
	if err != nil {
		t.Fatalf("helm template of the driver chart: %v\n%s", err, out)
	}
	objs, err := framework.DecodeUnstructured([]byte(out))
	must(t, err)
	var workloads []string
	for _, o := range objs {
		if o.GetKind() == "Deployment" || o.GetKind() == "DaemonSet" {
			workloads = append(workloads, o.GetKind()+"/"+o.GetName())
		}
	}
	if !slices.Equal(workloads, []string{"DaemonSet/my-local-driver-node"}) {
		t.Errorf("workloads %v, want the driver chart's DaemonSet only", workloads)
	}
	c := resizerContainer(t, objs)
	checkNodeContainer(t, c)
	if c.Image != "ghcr.io/csi-resizer/csi-resizer:v0.1.0" || !slices.Contains(c.Args, "--http-endpoint=:8090") {
		t.Errorf("resizer container: image %s, args %v; want the chart's appVersion and the driver chart's port", c.Image, c.Args)
	}
	if out, err := exec.Command(tools.Resizer, append(c.Args, "--version")...).CombinedOutput(); err != nil {
		t.Errorf("resizer rejects the included container's args %v: %v\n%s", c.Args, err, out)
	}
	binding := convert[rbacv1.ClusterRoleBinding](t, renderedRBAC(t, objs, "ClusterRoleBinding", "csi-resizer-node-reader"))
	if want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "my-node-sa", Namespace: "kube-csi"}}; !slices.Equal(binding.Subjects, want) {
		t.Errorf("csi-resizer-node-reader binds %+v, want %+v", binding.Subjects, want)
	}
	renderedRBAC(t, objs, "ClusterRole", "external-resizer-node-reader")
	renderedRBAC(t, objs, "Role", "external-resizer-cfg")

	// The contradiction is refused through the driver chart too.
	out, err = helm(t, "template", "my-driver", dir, "--set", "resizer.leaderElection.enabled=true")
	if err == nil || !strings.Contains(out, "nodeDeployment.enabled=true contradicts leaderElection.enabled=true") {
		t.Errorf("driver chart with resizer.leaderElection.enabled=true: want a failure naming the contradiction, got %v:\n%s", err, out)
	}
}

// TestChartNodeDeploymentAlerts: in node mode there is no leader to alert
// on: the rules are those without leader election (CSIResizerDown), and
// pass promtool.
func TestChartNodeDeploymentAlerts(t *testing.T) {
	rule, groups := renderRules(t, "nodeDeployment.enabled=true")
	_, without := renderRules(t, "leaderElection.enabled=false")
	if got, want := alertNames(groups), alertNames(without); !slices.Equal(got, want) {
		t.Errorf("alerts %v, want those without leader election %v", got, want)
	}
	promtool(t, "check", "rules", writeRules(t, t.TempDir(), rule))
}

// examplesDir holds the chart's rendered examples: NAME.values.yaml and
// NAME.yaml, which hack/render-chart-examples.sh renders from it.
var examplesDir = filepath.Join(chart, "examples")

// examples are the values files of the chart's examples, each with its
// rendering: the checked-in file without its header of comment lines.
func examples(t *testing.T) map[string]string {
	t.Helper()
	values, err := filepath.Glob(filepath.Join(examplesDir, "*.values.yaml"))
	must(t, err)
	if len(values) == 0 {
		t.Fatalf("no examples in %s", examplesDir)
	}
	out := map[string]string{}
	for _, v := range values {
		data, err := os.ReadFile(strings.TrimSuffix(v, ".values.yaml") + ".yaml")
		if err != nil {
			t.Fatalf("example %s has no rendering (run hack/render-chart-examples.sh): %v", v, err)
		}
		text := string(data)
		for strings.HasPrefix(text, "#") {
			_, text, _ = strings.Cut(text, "\n")
		}
		out[v] = text
	}
	return out
}

// TestChartExamplesUpToDate: each checked-in rendering of an example is what
// the chart renders now from the example's values, as
// hack/render-chart-examples.sh renders it.
func TestChartExamplesUpToDate(t *testing.T) {
	for values, checkedIn := range examples(t) {
		t.Run(filepath.Base(values), func(t *testing.T) {
			out, err := helm(t, "template", "csi-resizer", chart, "--namespace", "kube-csi", "--values", values)
			if err != nil {
				t.Fatalf("helm template: %v\n%s", err, out)
			}
			if out == checkedIn {
				return
			}
			got, want := strings.Split(out, "\n"), strings.Split(checkedIn, "\n")
			line := 0
			for line < len(got) && line < len(want) && got[line] == want[line] {
				line++
			}
			at := func(lines []string) string {
				if line < len(lines) {
					return lines[line]
				}
				return "(end of file)"
			}
			t.Errorf("%s.yaml is stale: run hack/render-chart-examples.sh and commit the result. First difference, line %d after the header:\n chart     %s\n checked in %s",
				strings.TrimSuffix(values, ".values.yaml"), line+1, at(got), at(want))
		})
	}
}

// TestChartExamplesValidate has the API server validate the objects of the
// checked-in examples (server-side apply, dry run), and checks that the
// node-deployment example is the chart's node mode.
func TestChartExamplesValidate(t *testing.T) {
	ctx := context.Background()
	_, err := cluster.Admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-csi"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for values, rendered := range examples(t) {
		t.Run(filepath.Base(values), func(t *testing.T) {
			objs, err := framework.DecodeUnstructured([]byte(rendered))
			must(t, err)
			for _, obj := range objs {
				if err := framework.DryRunApply(ctx, cluster.AdminConfig, obj, "kube-csi"); err != nil &&
					!strings.Contains(err.Error(), framework.ErrUnknownKind.Error()) {
					t.Error(err)
				}
			}
			if filepath.Base(values) == "node-deployment.values.yaml" {
				if kind, _ := workload(t, objs); kind != "DaemonSet" {
					t.Errorf("the node-deployment example renders a %s", kind)
				}
				checkNodeContainer(t, resizerContainer(t, objs))
				renderedRBAC(t, objs, "ClusterRole", "external-resizer-node-reader")
			}
		})
	}
}

// TestPlainDaemonSet: deploy/kubernetes/daemonset.yaml runs the resizer as
// the chart's node mode does (one --node-deployment, no leader election,
// NODE_NAME from spec.nodeName, /healthz, maxSurge 0), with the image of
// deployment.yaml, and the binary knows its flags.
func TestPlainDaemonSet(t *testing.T) {
	read := func(name, kind string) *unstructured.Unstructured {
		data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", name))
		must(t, err)
		objs, err := framework.DecodeUnstructured(data)
		must(t, err)
		o := find(objs, kind)
		if o == nil {
			t.Fatalf("%s has no %s", name, kind)
		}
		return o
	}
	ds := convert[appsv1.DaemonSet](t, read("daemonset.yaml", "DaemonSet"))
	deployment := convert[appsv1.Deployment](t, read("deployment.yaml", "Deployment"))
	container := func(pod corev1.PodTemplateSpec) corev1.Container {
		for _, c := range pod.Spec.Containers {
			if c.Name == "csi-resizer" {
				return c
			}
		}
		t.Fatal("no csi-resizer container")
		return corev1.Container{}
	}
	c := container(ds.Spec.Template)
	checkNodeContainer(t, c)
	if want := container(deployment.Spec.Template).Image; c.Image != want {
		t.Errorf("daemonset.yaml runs %s, deployment.yaml %s", c.Image, want)
	}
	if s := ds.Spec.UpdateStrategy.RollingUpdate; s == nil || s.MaxSurge == nil || s.MaxSurge.IntValue() != 0 {
		t.Errorf("daemonset.yaml's rolling update %+v: want maxSurge 0", s)
	}
	if out, err := exec.Command(tools.Resizer, append(c.Args, "--version")...).CombinedOutput(); err != nil {
		t.Errorf("resizer rejects daemonset.yaml's args %v: %v\n%s", c.Args, err, out)
	}
}
