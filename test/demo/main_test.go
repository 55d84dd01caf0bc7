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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/csi-resizer/csi-resizer/pkg/plugin"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// runDemo, set in the environment of this test binary, makes it the demo:
// the tests run the demo as `make demo` does, as a process of its own,
// and read what it prints.
const runDemo = "DEMO_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runDemo) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKeep runs `demo --keep` and uses what it prints: the kubeconfig must
// be accepted by the API server, the metrics address must serve the
// resizer's metrics, and `kubectl csi-resizer explain` with that
// kubeconfig must find the resizer running. Its timeline must show kubelet
// finishing the resize. Ctrl-C then tears it down.
func TestKeep(t *testing.T) {
	if os.Getenv("E2E_TOOLS_DIR") == "" {
		t.Skip("E2E_TOOLS_DIR is not set: run make test-e2e")
	}
	if os.Geteuid() != 0 && os.Getenv("CI") == "" {
		t.Skip(errNotRoot)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	d := startDemo(t, "--keep")
	kubeconfig := d.waitFor(ctx, kubeconfigLabel)
	metrics := d.waitFor(ctx, metricsLabel)

	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	must(t, err)
	client, err := kubernetes.NewForConfig(config)
	must(t, err)
	claims, err := client.CoreV1().PersistentVolumeClaims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list claims with the printed kubeconfig %s: %v", kubeconfig, err)
	}
	if len(claims.Items) != 1 || claims.Items[0].Name != claim {
		t.Errorf("claims in %s: %+v, want %s", namespace, claims.Items, claim)
	} else if got := claims.Items[0].Status.Capacity[v1.ResourceStorage]; got.String() != "2Gi" {
		t.Errorf("claim %s has %s, want 2Gi", claim, got.String())
	}

	checkMetrics(t, ctx, metrics)
	t.Run("explain", func(t *testing.T) { checkExplain(t, ctx, kubeconfig) })

	out := d.output()
	for _, want := range []string{
		"kubelet called NodeStageVolume: OK",
		"csi-resizer called ControllerExpandVolume(2Gi): OK, capacity 2Gi, node expansion required",
		"status=NodeResizeInProgress conditions=[FileSystemResizePending] (by kubelet)",
		"kubelet called NodeExpandVolume(2Gi): OK",
		"Event   Normal FileSystemResizeSuccessful Pod/app, from kubelet on " + nodeName,
		"capacity=2Gi allocated=2Gi status= conditions=[] (by kubelet)",
		"csi-resizer called ControllerModifyVolume(iops=16000, throughput=1000): OK",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}

	d.interrupt(ctx)
	if !strings.Contains(d.output(), "Tearing down") {
		t.Errorf("Ctrl-C did not tear the demo down")
	}
	if _, err := os.Stat(filepath.Dir(kubeconfig)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the demo left %s behind (%v)", filepath.Dir(kubeconfig), err)
	}
}

// TestNotRoot runs the demo as nobody: it must say in one line that
// kubelet needs root, and stop before it starts anything.
func TestNotRoot(t *testing.T) {
	exe, err := os.Executable()
	must(t, err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), runDemo+"=1")
	if os.Geteuid() == 0 {
		// nobody may not enter the build's directory (nor t.TempDir()):
		// run a copy from a directory of its own.
		dir, err := os.MkdirTemp("", "demo-not-root-")
		must(t, err)
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		must(t, os.Chmod(dir, 0o755))
		copied := filepath.Join(dir, "demo")
		data, err := os.ReadFile(exe)
		must(t, err)
		must(t, os.WriteFile(copied, data, 0o755))
		cmd = exec.Command(copied)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), runDemo+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("demo without root: %v, want exit code 1; stderr: %s", err, stderr.String())
	}
	if want := "demo: " + errNotRoot.Error() + "\n"; stderr.String() != want || stdout.Len() > 0 {
		t.Errorf("demo without root printed %q on stdout and %q on stderr, want only %q on stderr", stdout.String(), stderr.String(), want)
	}
}

// checkMetrics scrapes the printed metrics address: the resizer serves
// the families of its resizes, modifications and claims.
func checkMetrics(t *testing.T, ctx context.Context, metricsURL string) {
	t.Helper()
	u, err := url.Parse(metricsURL)
	must(t, err)
	m, err := framework.ScrapeMetrics(ctx, u.Host)
	if err != nil {
		t.Fatalf("scrape the printed metrics address %s: %v", metricsURL, err)
	}
	for _, family := range []string{"csi_resizer_resize_duration_seconds_count", "csi_resizer_modify_duration_seconds_count", "csi_resizer_claims"} {
		if len(m[family]) == 0 {
			t.Errorf("%s serves no %s", metricsURL, family)
		}
	}
}

// checkExplain runs `kubectl csi-resizer explain` with the printed
// kubeconfig: it must find the resizer running, by its Lease.
func checkExplain(t *testing.T, ctx context.Context, kubeconfig string) {
	bin := os.Getenv("E2E_EXPLAIN")
	if bin == "" {
		bin = filepath.Join(filepath.Dir(os.Getenv("E2E_RESIZER")), plugin.ProgramName)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no kubectl plugin to run (make build makes it): %v", err)
	}
	out, err := exec.CommandContext(ctx, bin, "explain", "-n", namespace, claim, "--kubeconfig="+kubeconfig, "-o", "json").Output()
	if err != nil {
		t.Fatalf("explain with the printed kubeconfig: %v", err)
	}
	var x plugin.Explanation
	must(t, json.Unmarshal(out, &x))
	if x.Resizer == nil || x.Resizer.Status != plugin.ResizerRunning || x.Resizer.Namespace != leaseNamespace {
		t.Errorf("explain found the resizer %+v, want it running with its Lease in %s", x.Resizer, leaseNamespace)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
