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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/controller"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func TestDiagnostics(t *testing.T) {
	const expand = `method_name="/csi.v1.Controller/ControllerExpandVolume"`
	driverLabel := fmt.Sprintf("driver_name=%q", testDriver)
	tests := []struct {
		name        string
		extra       []string
		metricsPath string
	}{
		{name: "default metrics path", metricsPath: "/metrics"},
		{name: "own metrics path", extra: []string{"--metrics-path=/m"}, metricsPath: "/m"},
		{name: "deprecated --metrics-address", extra: []string{"--http-endpoint=", "--metrics-address=" + freeAddr(t)},
			metricsPath: "/metrics"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
			client := newFakeAPI(resizeObjects(testDriver)...)
			o := newOptions(t, d, tc.extra...)
			s := startSidecar(t, o, fakeClients(client))
			waitClaimFinished(t, client, "data", "2Gi")

			addr := o.Addr()
			get := func(path string) (int, string) {
				t.Helper()
				code, body, err := httpGet("http://" + addr + path)
				if err != nil {
					t.Fatalf("GET %s: %v", path, err)
				}
				return code, body
			}
			if code, body := get("/healthz"); code != 200 || strings.TrimSpace(body) != "ok" {
				t.Errorf("/healthz = %d %q, want 200 ok", code, body)
			}
			if code, body := get("/readyz"); code != 200 {
				t.Errorf("/readyz = %d %q, want 200", code, body)
			}
			if code, _ := get(healthPath); code != 404 {
				t.Errorf("%s without leader election = %d, want 404", healthPath, code)
			}
			var metrics string
			waitFor(t, "the resize duration metric", func() (bool, error) {
				code, body := get(tc.metricsPath)
				metrics = body
				return code == 200 && strings.Contains(body, "csi_resizer_resize_duration_seconds_count{"), nil
			})
			for _, want := range []struct{ what, metric, label1, label2 string }{
				{"CSI call histogram of the expansion", "csi_sidecar_operations_seconds_count{", driverLabel, expand},
				{"CSI call histogram, success", "csi_sidecar_operations_seconds_count{", driverLabel, `grpc_status_code="OK"`},
				{"resize histogram", "csi_resizer_resize_duration_seconds_count{", driverLabel, `result="finished"`},
				{"work queue", "workqueue_adds_total{", fmt.Sprintf("name=%q", testDriver+"-pvc"), ""},
				{"Go runtime", "go_goroutines ", "", ""},
				{"process", "process_cpu_seconds_total ", "", ""},
				{"process start", "process_start_time_seconds ", "", ""},
				{"rest client", "rest_client_", "", ""},
			} {
				if !hasSample(metrics, want.metric, want.label1, want.label2) {
					t.Errorf("%s metrics: no %s sample with %s %s", want.what, want.metric, want.label1, want.label2)
				}
			}
			if t.Failed() {
				t.Logf("metrics:\n%s", metrics)
			}
			s.cancel()
			if err := s.wait(waitTimeout); err != nil {
				t.Errorf("run = %v, want nil", err)
			}
		})
	}
}

// hasSample reports whether the exposition text has a line that starts
// with prefix and contains both labels.
func hasSample(text, prefix, label1, label2 string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, label1) && strings.Contains(line, label2) {
			return true
		}
	}
	return false
}

func TestDiagnosticsOff(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
	client := newFakeAPI(resizeObjects(testDriver)...)
	// Without an address there is no server, with or without leader election.
	s := startSidecar(t, newOptions(t, d, leaderFlags("--http-endpoint=")...), fakeClients(client))
	waitClaimFinished(t, client, "data", "2Gi")
	s.cancel()
	if err := s.wait(waitTimeout); err != nil {
		t.Errorf("run = %v, want nil", err)
	}
}

func TestReady(t *testing.T) {
	client := fake.NewClientset()
	inf, err := newInformers(kubetest.Wrap(client), 0, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctrl, err := controller.New(controller.Config{
		Driver: testDriver, Client: kubetest.Wrap(client), Recorder: record.NewFakeRecorder(1),
		Claims: inf.claims, Volumes: inf.volumes, Classes: inf.classes,
		RetryStart: time.Second, RetryMax: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	notSynced := &resizeController{Controller: ctrl, informers: inf}
	tests := []struct {
		name       string
		driverLost bool
		leading    bool
		// waiting is what the sidecar still waits for; nil once it runs.
		waiting error
		wantErr string
	}{
		{name: "standby with the driver connected", wantErr: ""},
		{name: "waiting for the driver's socket", waiting: errors.New(`cannot connect to the CSI driver at "/csi/csi.sock": connect: permission denied`),
			wantErr: "permission denied"},
		{name: "waiting while leading", leading: true, waiting: errors.New("waiting for the CSI driver to report ready"), wantErr: "report ready"},
		{name: "standby without the driver", driverLost: true, wantErr: "connection lost"},
		{name: "leading before the caches synced", leading: true, wantErr: "not synced"},
		{name: "leading without the driver", leading: true, driverLost: true, wantErr: "connection lost"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &server{ctx: context.Background(), driverLost: func() bool { return tc.driverLost }}
			s.running(notSynced)
			if tc.waiting != nil {
				s.waitingFor(tc.waiting)
			}
			s.leading.Store(tc.leading)
			err := s.ready()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("ready() = %v, want nil", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("ready() = %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// TestClaimMetrics checks that the leader serves the claims by state, every
// state with its value, and that a standby serves neither family.
func TestClaimMetrics(t *testing.T) {
	inProgress := fmt.Sprintf(`csi_resizer_claims{driver_name=%q,operation="resize",state="controller_in_progress"} 1`, testDriver)
	t.Run("leader", func(t *testing.T) {
		d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
		release := d.HoldExpand()
		t.Cleanup(release)
		client := newFakeAPI(resizeObjects(testDriver)...)
		s := startSidecar(t, newOptions(t, d), fakeClients(client))
		var metrics string
		waitFor(t, "the claim in controller_in_progress", func() (bool, error) {
			_, body, err := s.get(s.opts.MetricsPath)
			metrics = body
			return err == nil && strings.Contains(body, inProgress), nil
		})
		for _, want := range []string{
			fmt.Sprintf(`csi_resizer_claims{driver_name=%q,operation="resize",state="node_pending"} 0`, testDriver),
			fmt.Sprintf(`csi_resizer_claims{driver_name=%q,operation="modify",state="infeasible"} 0`, testDriver),
			fmt.Sprintf(`csi_resizer_claim_oldest_seconds{driver_name=%q,operation="resize",state="controller_in_progress"} `, testDriver),
			fmt.Sprintf(`csi_resizer_claim_oldest_seconds{driver_name=%q,operation="modify",state="pending"} 0`, testDriver),
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
		release()
		waitClaimFinished(t, client, "data", "2Gi")
		waitFor(t, "no claim in controller_in_progress once finished", func() (bool, error) {
			_, body, err := s.get(s.opts.MetricsPath)
			return err == nil && strings.Contains(body, strings.TrimSuffix(inProgress, "1")+"0"), nil
		})
	})
	t.Run("standby", func(t *testing.T) {
		d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
		client := newFakeAPI(append(resizeObjects(testDriver), heldLease())...)
		s := startSidecar(t, newOptions(t, d, leaderFlags()...), fakeClients(client))
		s.waitHTTP("/readyz", 200)
		body := s.waitHTTP(s.opts.MetricsPath, 200)
		if !strings.Contains(body, "go_goroutines ") {
			t.Fatalf("metrics without the Go runtime: not the whole registry?\n%s", body)
		}
		if strings.Contains(body, "csi_resizer_claim") {
			t.Errorf("a standby serves claims by state:\n%s", body)
		}
	})
}

// TestServesWhileWaitingForTheDriver starts the sidecar before its driver:
// /healthz answers at once (a liveness probe must not kill a sidecar whose
// driver is slow to start), /readyz says why it waits, and the sidecar
// starts once the driver serves its socket.
func TestServesWhileWaitingForTheDriver(t *testing.T) {
	dir, err := os.MkdirTemp("", "csi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "csi.sock")
	o := newOptions(t, nil, "--csi-address="+path)
	s := startSidecar(t, o, fakeClients(newFakeAPI()))

	body := s.waitReadyz("connect: no such file or directory")
	if !strings.Contains(body, `cannot connect to the CSI driver at "`+path+`"`) {
		t.Errorf("/readyz = %q, want it to name the socket", body)
	}
	if code, body, err := s.get("/healthz"); err != nil || code != 200 {
		t.Errorf("/healthz while waiting = %d %q %v, want 200", code, body, err)
	}

	d, err := csidriver.Serve(path, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	s.waitHTTP("/readyz", 200)
}

// TestStopsWhileWaitingForTheDriver stops the sidecar while its driver's
// socket is missing: a shutdown, not a failure.
func TestStopsWhileWaitingForTheDriver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "csi.sock")
	s := startSidecar(t, newOptions(t, nil, "--csi-address="+path), fakeClients(newFakeAPI()))
	s.waitReadyz("no such file or directory")
	s.cancel()
	if err := s.wait(startupTimeout); err != nil {
		t.Errorf("run stopped while waiting for the driver = %v, want nil", err)
	}
}
