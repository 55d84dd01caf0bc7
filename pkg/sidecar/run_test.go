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
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// startupTimeout bounds how long run may take to give up at start-up.
const startupTimeout = 15 * time.Second

func TestRunResizes(t *testing.T) {
	tests := []struct {
		name string
		cfg  csidriver.Config
		// wantCalls is the number of ControllerExpandVolume calls.
		wantCalls int
		// wantCapacity is the claim's status.capacity at the end.
		wantCapacity string
		// wantStatus is allocatedResourceStatuses[storage], "" for none.
		wantStatus v1.ClaimResourceStatus
		wantEvent  string
	}{
		{
			name:         "controller expansion finishes the resize",
			cfg:          csidriver.Config{DriverName: testDriver, ControllerExpand: true, NoNodeService: true},
			wantCalls:    1,
			wantCapacity: "2Gi",
			wantEvent:    "VolumeResizeSuccessful",
		},
		{
			name:         "controller expansion hands over to kubelet",
			cfg:          csidriver.Config{DriverName: testDriver, ControllerExpand: true, NodeExpansionRequired: true},
			wantCalls:    1,
			wantCapacity: "1Gi",
			wantStatus:   v1.PersistentVolumeClaimNodeResizePending,
			wantEvent:    "FileSystemResizeRequired",
		},
		{
			name:         "node-only driver: no controller call, kubelet finishes",
			cfg:          csidriver.Config{DriverName: testDriver, NodeExpand: true},
			wantCalls:    0,
			wantCapacity: "1Gi",
			wantStatus:   v1.PersistentVolumeClaimNodeResizePending,
			wantEvent:    "FileSystemResizeRequired",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, tc.cfg)
			other := claim("other", "5Gi", "1Gi")
			client := newFakeAPI(append(resizeObjects(testDriver), other, testobj.Volume(other, "other.example.com", "1Gi"))...)
			s := startSidecar(t, newOptions(t, d), fakeClients(client))

			ctx := context.Background()
			waitFor(t, "the claim's resize to be recorded", func() (bool, error) {
				pvc, err := getClaim(ctx, client, "data")
				if err != nil {
					return false, err
				}
				pv, err := getVolume(ctx, client, "pv-data")
				if err != nil {
					return false, err
				}
				return quantityIs(pv.Spec.Capacity, "2Gi") &&
					quantityIs(pvc.Status.Capacity, tc.wantCapacity) &&
					pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage] == tc.wantStatus, nil
			})
			waitFor(t, "event "+tc.wantEvent, func() (bool, error) {
				events, err := client.CoreV1().Events(testNamespace).List(ctx, metav1.ListOptions{})
				if err != nil {
					return false, err
				}
				for _, e := range events.Items {
					if e.Reason == tc.wantEvent {
						if want := "external-resizer " + testDriver; e.Source.Component != want {
							t.Errorf("event %s has source %q, want %q", e.Reason, e.Source.Component, want)
						}
						return true, nil
					}
				}
				return false, nil
			})

			calls := d.Calls()
			if len(calls) != tc.wantCalls {
				t.Fatalf("driver got %d ControllerExpandVolume calls, want %d: %+v", len(calls), tc.wantCalls, calls)
			}
			if tc.wantCalls > 0 {
				want := resource.MustParse("2Gi")
				if c := calls[0]; c.VolumeID != "vol-data" || c.RequiredBytes != want.Value() || c.Code != codes.OK {
					t.Errorf("call = %+v, want volume vol-data, %d bytes, OK", c, want.Value())
				}
				if c := calls[0].Capability; c == nil || c.GetAccessMode().GetMode() != csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER {
					t.Errorf("call capability = %v, want a single node writer", c)
				}
			}
			got, err := getClaim(ctx, client, "other")
			if err != nil {
				t.Fatal(err)
			}
			if !quantityIs(got.Status.Capacity, "1Gi") || got.Status.AllocatedResources != nil || got.Status.AllocatedResourceStatuses != nil {
				t.Errorf("claim of another driver was touched: %+v", got.Status)
			}

			s.cancel()
			if err := s.wait(waitTimeout); err != nil {
				t.Errorf("run after cancel = %v, want nil", err)
			}
		})
	}
}

func TestRunFailsAtStart(t *testing.T) {
	tests := []struct {
		name    string
		cfg     csidriver.Config
		setup   func(t *testing.T, d *csidriver.Driver) []string // returns extra flags
		wantErr []string
	}{
		{
			name:    "driver cannot expand volumes",
			cfg:     csidriver.Config{DriverName: testDriver},
			wantErr: []string{"unsupported", testDriver},
		},
		{
			name:    "driver without a name",
			cfg:     csidriver.Config{ControllerExpand: true},
			wantErr: []string{"empty name"},
		},
		{
			name: "driver probe fails",
			cfg:  csidriver.Config{DriverName: testDriver, ControllerExpand: true},
			setup: func(_ *testing.T, d *csidriver.Driver) []string {
				d.FailCall(csi.Identity_Probe_FullMethodName, codes.Internal, -1)
				return nil
			},
			wantErr: []string{"ready"},
		},
		{
			name: "diagnostics address in use",
			cfg:  csidriver.Config{DriverName: testDriver, ControllerExpand: true},
			setup: func(t *testing.T, _ *csidriver.Driver) []string {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { l.Close() })
				return []string{"--http-endpoint=" + l.Addr().String()}
			},
			wantErr: []string{"--http-endpoint", "address already in use"},
		},
		{
			name:    "diagnostics address malformed",
			cfg:     csidriver.Config{DriverName: testDriver, ControllerExpand: true},
			setup:   func(*testing.T, *csidriver.Driver) []string { return []string{"--http-endpoint=no-port"} },
			wantErr: []string{"--http-endpoint", "no-port"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, tc.cfg)
			var extra []string
			if tc.setup != nil {
				extra = tc.setup(t, d)
			}
			client := newFakeAPI(resizeObjects(testDriver)...)
			s := startSidecar(t, newOptions(t, d, extra...), fakeClients(client))
			err := s.wait(startupTimeout)
			if err == nil {
				t.Fatalf("run = nil, want an error with %q", tc.wantErr)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("run = %q, want it to mention %q", err, want)
				}
			}
			if calls := d.Calls(); len(calls) != 0 {
				t.Errorf("driver got %d ControllerExpandVolume calls, want none", len(calls))
			}
		})
	}
}

func TestRunDriverLost(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
	}{
		{name: "without leader election"},
		{name: "leading", extra: leaderFlags()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
			client := newFakeAPI(resizeObjects(testDriver)...)
			s := startSidecar(t, newOptions(t, d, tc.extra...), fakeClients(client))
			waitClaimFinished(t, client, "data", "2Gi")
			s.waitHTTP("/readyz", 200)

			d.Stop()
			err := s.wait(startupTimeout)
			if !errors.Is(err, ErrDriverLost) {
				t.Fatalf("run = %v, want an error wrapping ErrDriverLost", err)
			}
			if !strings.Contains(err.Error(), d.Endpoint()) {
				t.Errorf("run = %q, want it to name the address %s", err, d.Endpoint())
			}
		})
	}
}

func TestRunGracefulStop(t *testing.T) {
	// callTimeout is --timeout for the case where the driver never answers.
	const callTimeout = 2 * time.Second
	tests := []struct {
		name  string
		extra []string
		// block makes the driver keep the call in flight; it returns what
		// lets the call go on, or nil when only --timeout ends it.
		block func(d *csidriver.Driver) (release func())
		// wantCodes are the codes the driver's call may have ended with.
		wantCodes []codes.Code
		// wantStatus is the claim's allocatedResourceStatuses[storage].
		wantStatus v1.ClaimResourceStatus
		// wantCapacity is the claim's recorded capacity once run returned.
		wantCapacity string
		// maxStop bounds the time from release (or cancel) to the return.
		maxStop time.Duration
	}{
		{
			name:         "in-flight call finishes and is recorded",
			block:        func(d *csidriver.Driver) func() { return d.HoldExpand() },
			wantCodes:    []codes.Code{codes.OK},
			wantCapacity: "2Gi",
			maxStop:      waitTimeout,
		},
		{
			name:         "in-flight call finishes and is recorded, leading",
			extra:        leaderFlags(),
			block:        func(d *csidriver.Driver) func() { return d.HoldExpand() },
			wantCodes:    []codes.Code{codes.OK},
			wantCapacity: "2Gi",
			maxStop:      waitTimeout,
		},
		{
			name:  "hanging call is bounded by --timeout",
			extra: []string{"--timeout=" + callTimeout.String()},
			block: func(d *csidriver.Driver) func() {
				d.SetExpandDelay(time.Hour)
				return nil
			},
			// The driver sees the caller give up, or its own deadline.
			wantCodes:    []codes.Code{codes.DeadlineExceeded, codes.Canceled},
			wantCapacity: "1Gi",
			// An uncertain failure keeps the intent for the next run.
			wantStatus: v1.PersistentVolumeClaimControllerResizeInProgress,
			maxStop:    callTimeout + 10*time.Second,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
			release := tc.block(d)
			if release != nil {
				t.Cleanup(release)
			}
			client := newFakeAPI(resizeObjects(testDriver)...)
			s := startSidecar(t, newOptions(t, d, tc.extra...), fakeClients(client))
			waitFor(t, "a ControllerExpandVolume call in flight", func() (bool, error) {
				return d.InFlight("vol-data") == 1, nil
			})

			s.cancel()
			start := time.Now()
			if release != nil {
				// Give run the chance to return too early.
				if s.returnsWithin(earlyWindow) {
					t.Fatalf("run returned %v while a driver call was in flight", s.err)
				}
				release()
				start = time.Now()
			}
			if err := s.wait(tc.maxStop); err != nil {
				t.Errorf("run = %v, want nil", err)
			}
			if took := time.Since(start); took > tc.maxStop {
				t.Errorf("run took %v to return, want at most %v", took, tc.maxStop)
			}
			// A caller that gave up does not wait for the driver to notice.
			waitFor(t, "the driver to end the call", func() (bool, error) { return d.InFlight("vol-data") == 0, nil })
			calls := d.Calls()
			if len(calls) != 1 || calls[0].End.IsZero() || !slices.Contains(tc.wantCodes, calls[0].Code) {
				t.Fatalf("calls = %+v, want one ended call with one of %v", calls, tc.wantCodes)
			}
			pvc, err := getClaim(context.Background(), client, "data")
			if err != nil {
				t.Fatal(err)
			}
			if !quantityIs(pvc.Status.Capacity, tc.wantCapacity) {
				t.Errorf("claim capacity = %v, want %s", pvc.Status.Capacity, tc.wantCapacity)
			}
			if got := pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage]; got != tc.wantStatus {
				t.Errorf("claim resize status = %q, want %q", got, tc.wantStatus)
			}
		})
	}
}

func TestRunStopsIdle(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
	client := newFakeAPI()
	s := startSidecar(t, newOptions(t, d), fakeClients(client))
	s.waitHTTP("/readyz", 200)
	s.cancel()
	if err := s.wait(startupTimeout); err != nil {
		t.Errorf("run = %v, want nil", err)
	}
	if _, _, err := s.get("/healthz"); err == nil {
		t.Errorf("diagnostics server still answers after run returned")
	}
}

func TestRunStopsBeforeCachesSync(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
	client := newFakeAPI(resizeObjects(testDriver)...)
	client.PrependReactor("list", "persistentvolumeclaims", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("injected: API server unreachable")
	})
	s := startSidecar(t, newOptions(t, d), fakeClients(client))
	s.waitReadyz("not synced")
	s.cancel()
	if err := s.wait(startupTimeout); err != nil {
		t.Errorf("run cancelled before the caches synced = %v, want nil", err)
	}
}

func TestRunLeavesNoGoroutines(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
	}{
		{name: "without leader election"},
		{name: "leading", extra: leaderFlags()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerExpand: true})
			before := goruntime.NumGoroutine()
			client := newFakeAPI(resizeObjects(testDriver)...)
			s := startSidecar(t, newOptions(t, d, tc.extra...), fakeClients(client))
			waitClaimFinished(t, client, "data", "2Gi")
			s.waitHTTP("/readyz", 200)
			s.cancel()
			if err := s.wait(waitTimeout); err != nil {
				t.Fatalf("run = %v, want nil", err)
			}
			waitFor(t, "the goroutines of run to end", func() (bool, error) {
				return goruntime.NumGoroutine() <= before, nil
			})
		})
	}
}

func TestRunEntryPoint(t *testing.T) {
	kubeconfigPath := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		kubeconfig string
		wantErr    string
	}{
		{name: "bad kubeconfig", kubeconfig: filepath.Join(t.TempDir(), "missing"), wantErr: "build Kubernetes client configuration"},
		// The driver fails start-up before the API server is called.
		{name: "clients made, driver unsupported", kubeconfig: kubeconfigPath, wantErr: "unsupported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver})
			o := newOptions(t, d, "--kubeconfig="+tc.kubeconfig)
			_, ctx := ktesting.NewTestContext(t)
			err := Run(ctx, o)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Run = %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// settingsOn reads the settings a Lease's annotation publishes.
func settingsOn(t *testing.T, annotations map[string]string) options.Published {
	t.Helper()
	var s options.Published
	v, ok := annotations[options.SettingsAnnotation]
	if !ok {
		t.Fatalf("no annotation %s in %v", options.SettingsAnnotation, annotations)
	}
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		t.Fatalf("annotation %s = %q: %v", options.SettingsAnnotation, v, err)
	}
	return s
}

// TestPublishedSettings: the settings are the resolved options (the
// timeouts after --timeout's override, the gate's value).
func TestPublishedSettings(t *testing.T) {
	o := newOptions(t, nil, "--csi-address=/csi.sock", "--timeout=20s", "--retry-interval-max=7m",
		"--handle-volume-inuse-error=false", "--feature-gates=RecoverVolumeExpansionFailure=false")
	want := options.Published{RetryIntervalStart: options.Duration(10 * time.Millisecond), RetryIntervalMax: options.Duration(7 * time.Minute),
		ResizeTimeout: options.Duration(20 * time.Second), ModifyTimeout: options.Duration(20 * time.Second)}
	if got := settingsOn(t, publishedSettings(o, false)); got != want {
		t.Errorf("published %+v, want %+v", got, want)
	}
}

// TestLeaderLeaseSettings: the leader election Lease carries the settings.
func TestLeaderLeaseSettings(t *testing.T) {
	client := fake.NewClientset()
	o := newOptions(t, nil, append(leaderFlags("--csi-address=/csi.sock"), "--retry-interval-max=9m")...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := runLeading(ctx, o, kubetest.Wrap(client).CoordinationV1().Leases(leaseNS), testDriver, publishedSettings(o, false), nil, false, func(context.Context) error {
		l, err := getLease(client)
		if err != nil {
			return err
		}
		if s := settingsOn(t, l.Annotations); s.RetryIntervalMax != options.Duration(9*time.Minute) || !s.Recovery {
			t.Errorf("leader Lease publishes %+v, want --retry-interval-max 9m and recovery on", s)
		}
		cancel()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNodeLeaseSettings: the node Lease carries them too, created and
// renewed.
func TestNodeLeaseSettings(t *testing.T) {
	client := fake.NewClientset()
	o := newOptions(t, nil, "--csi-address=/csi.sock", "--retry-interval-start=3s", "--retry-interval-max=1m")
	l := &nodeLease{leases: kubetest.Wrap(client).CoordinationV1().Leases("ns"), name: "n", namespace: "ns", holder: "me", driver: "d.example.com",
		annotations: publishedSettings(o, false), logger: klog.Background()}
	ctx := context.Background()
	for _, step := range []string{"created", "renewed"} {
		l.renew(ctx)
		lease, err := client.CoordinationV1().Leases("ns").Get(ctx, "n", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s := settingsOn(t, lease.Annotations); s.RetryIntervalStart != options.Duration(3*time.Second) {
			t.Errorf("%s: node Lease publishes %+v, want --retry-interval-start 3s", step, s)
		}
	}
}
