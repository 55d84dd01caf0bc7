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

package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	csispec "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// connectDriver connects a CSI client to d, closed when t ends.
func connectDriver(t *testing.T, d *csidriver.Driver) *driver.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := driver.Connect(ctx, d.Endpoint(), 5*time.Second, nil, driver.Hooks{})
	if err != nil {
		t.Fatalf("connect to test driver: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// withDriver makes the controller expand through the CSI resizer over c.
func withDriver(c *driver.Client) envOpt {
	return func(cfg *Config) { cfg.Resizer = &driver.VolumeExpander{Driver: c} }
}

// answerWith makes d answer every ControllerExpandVolume with resp and err.
func answerWith(d *csidriver.Driver, resp *csispec.ControllerExpandVolumeResponse, err error) {
	d.SetExpandHook(func(context.Context, *csispec.ControllerExpandVolumeRequest) (*csispec.ControllerExpandVolumeResponse, bool, error) {
		return resp, true, err
	})
}

const (
	finished      = "capacity=2Gi allocated=2Gi status=- conditions=[]"
	stillResizing = "capacity=1Gi allocated=2Gi status=ControllerResizeInProgress conditions=[Resizing]"
	finalError    = "capacity=1Gi allocated=2Gi status=ControllerResizeInProgress conditions=[ControllerResizeError]"
)

// TestDriverNonsense sends one resize of 1Gi to 2Gi through the CSI resizer
// to the test driver on a unix socket, which answers nonsense; then the
// driver heals and the claim must finish at 2Gi.
func TestDriverNonsense(t *testing.T) {
	tests := []struct {
		name      string
		arm       func(d *csidriver.Driver)
		wantErr   bool
		wantClaim string
		wantPV    string
		wantEvent string // substring of the last event
	}{
		{name: "capacity 0: not reported, the target is recorded", arm: func(d *csidriver.Driver) { d.SetExpandCapacity(0) },
			wantClaim: finished, wantPV: "2Gi", wantEvent: "VolumeResizeSuccessful"},
		{name: "OK with a nil response: capacity not reported", arm: func(d *csidriver.Driver) { answerWith(d, nil, nil) },
			wantClaim: finished, wantPV: "2Gi", wantEvent: "VolumeResizeSuccessful"},
		{name: "capacity below the target, no more than the claim has: recorded, nothing for kubelet", arm: func(d *csidriver.Driver) { d.SetExpandCapacity(1 << 30) },
			wantClaim: "capacity=1Gi allocated=1Gi status=- conditions=[ControllerResizeError]", wantPV: "1Gi",
			wantEvent: "the driver answered success with 1Gi, below the 2Gi asked for; 1Gi is recorded"},
		{name: "capacity below the target, more than the claim has: recorded", arm: func(d *csidriver.Driver) { d.SetExpandCapacity(1536 << 20) },
			wantClaim: "capacity=1536Mi allocated=1536Mi status=- conditions=[ControllerResizeError]", wantPV: "1536Mi",
			wantEvent: "the driver answered success with 1536Mi, below the 2Gi asked for; 1536Mi is recorded"},
		{name: "negative capacity: uncertain, nothing recorded", arm: func(d *csidriver.Driver) { d.SetExpandCapacity(-1) },
			wantErr: true, wantClaim: stillResizing, wantPV: "1Gi", wantEvent: "driver reported capacity -1, below the requested 2Gi"},
		{name: "capacity absurdly larger: recorded as the driver says, and charged as allocated", arm: func(d *csidriver.Driver) { d.SetExpandCapacity(1 << 60) },
			wantClaim: "capacity=1Ei allocated=1Ei status=- conditions=[]", wantPV: "1Ei", wantEvent: "VolumeResizeSuccessful"},
		{name: "Unknown: final", arm: func(d *csidriver.Driver) { d.FailExpand(codes.Unknown, 1) },
			wantErr: true, wantClaim: finalError, wantPV: "1Gi", wantEvent: "code = Unknown desc = injected fault Unknown"},
		{name: "code 42, outside the gRPC codes: final", arm: func(d *csidriver.Driver) { answerWith(d, nil, status.Error(codes.Code(42), "what is this")) },
			wantErr: true, wantClaim: finalError, wantPV: "1Gi", wantEvent: "code = Code(42) desc = what is this"},
		{name: "OK code with a response and a message", arm: func(d *csidriver.Driver) {
			answerWith(d, &csispec.ControllerExpandVolumeResponse{CapacityBytes: 2 << 30}, status.Error(codes.OK, "fine"))
		}, wantClaim: finished, wantPV: "2Gi", wantEvent: "VolumeResizeSuccessful"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: driverName, ControllerExpand: true})
			pvc := claim("a", "2Gi", "1Gi")
			pv := volume(pvc, "1Gi")
			e := newEnv(t, nil, objects(pvc, pv), withDriver(connectDriver(t, d)))
			tc.arm(d)

			_, err := e.syncWithin("a", 30*time.Second)
			if (err != nil) != tc.wantErr {
				t.Fatalf("sync error = %v, want error: %v", err, tc.wantErr)
			}
			equal(t, "claim", summary(e.claim("a")), tc.wantClaim)
			equal(t, "PV size", pvSize(e.volume("pv-a")), tc.wantPV)
			if events := e.events(); len(events) == 0 || !strings.Contains(events[len(events)-1], tc.wantEvent) {
				t.Errorf("events = %q, want the last to contain %q", events, tc.wantEvent)
			}
			checkNoShrink(t, e, pvc, pv)
			if !tc.wantErr {
				return
			}

			d.ResetFaults()
			e.mustSync("a")
			equal(t, "claim once the driver heals", summary(e.claim("a")), finished)
			equal(t, "PV size once the driver heals", pvSize(e.volume("pv-a")), "2Gi")
		})
	}
}

// TestRequestBeyondInt64 asks for sizes a CSI request cannot carry. They are
// refused before the driver, as infeasible: recorded in the claim's status,
// retried slowly, and a lowered request is served at once. (Classed
// uncertain, the claim would be held at the impossible size forever.)
func TestRequestBeyondInt64(t *testing.T) {
	const overInt64 = "9223372036854775809" // 8Ei + 1
	tests := []struct {
		name      string
		capacity  string
		lowerTo   string // "" when the user cannot recover (the PV is as large as a CSI size can be)
		wantClaim string
		wantPV    string
	}{
		// apimachinery parses "8Ei" (2^63) as 2^63-1: the largest int64.
		{name: "request 1 byte over a capacity of 8Ei", capacity: "8Ei", wantPV: "9223372036854775807",
			wantClaim: "capacity=9223372036854775807 allocated=" + overInt64 + " status=ControllerResizeInfeasible conditions=[ControllerResizeError]"},
		{name: "request over int64, then lowered", capacity: "1Gi", lowerTo: "2Gi", wantPV: "1Gi",
			wantClaim: "capacity=1Gi allocated=" + overInt64 + " status=ControllerResizeInfeasible conditions=[ControllerResizeError]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, csidriver.Config{DriverName: driverName, ControllerExpand: true})
			pvc := claim("a", overInt64, tc.capacity)
			pv := volume(pvc, tc.capacity)
			e := newEnv(t, nil, objects(pvc, pv), withDriver(connectDriver(t, d)))

			after, err := e.syncWithin("a", 30*time.Second)
			if err != nil || after != e.ctrl.RetryMax {
				t.Fatalf("sync = %s, %v; want the slow lane (%s) without error", after, err, e.ctrl.RetryMax)
			}
			equal(t, "driver calls", len(d.Calls()), 0)
			equal(t, "claim", summary(e.claim("a")), tc.wantClaim)
			equal(t, "PV size", pvSize(e.volume("pv-a")), tc.wantPV)
			if f := e.ctrl.memory.resize.failures.get(idOf("default/a", e.claim("a"))); f == nil || f.Class != decide.Infeasible {
				t.Errorf("remembered failure = %+v, want infeasible", f)
			}
			events := e.events()
			if want := "size " + overInt64 + " is too large for a CSI request"; len(events) == 0 || !strings.Contains(events[len(events)-1], want) {
				t.Errorf("events = %q, want the last to contain %q", events, want)
			}
			checkNoShrink(t, e, pvc, pv)
			if tc.lowerTo == "" {
				return
			}

			e.setRequest("a", tc.lowerTo)
			e.mustSync("a")
			equal(t, "claim after lowering", summary(e.claim("a")), finished)
			equal(t, "PV size after lowering", pvSize(e.volume("pv-a")), "2Gi")
		})
	}
}

// TestDriverStopsMidCall stops the driver while it holds the expansion: the
// call ends with an uncertain error, the claim keeps its recorded size, and
// once a driver is back that size is finished, not the lowered request.
func TestDriverStopsMidCall(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: driverName, ControllerExpand: true})
	pvc := claim("a", "2Gi", "1Gi")
	pv := volume(pvc, "1Gi")
	e := newEnv(t, nil, objects(pvc, pv), withDriver(connectDriver(t, d)))
	arrived := make(chan struct{}, 1)
	d.SetExpandHook(func(context.Context, *csispec.ControllerExpandVolumeRequest) (*csispec.ControllerExpandVolumeResponse, bool, error) {
		arrived <- struct{}{}
		return nil, false, nil
	})
	release := d.HoldExpand()
	defer release()

	e.refresh()
	done := make(chan error, 1)
	go func() {
		_, err := e.ctrl.sync(e.ctx, ns+"/a")
		done <- err
	}()
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the expansion never reached the driver")
	}
	d.Stop()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("sync did not return after the driver stopped")
	}
	if err == nil || decide.ResizeRules.ClassOf(err) != decide.Uncertain {
		t.Fatalf("sync error = %v (class %s), want an uncertain error", err, decide.ResizeRules.ClassOf(err))
	}
	equal(t, "claim", summary(e.claim("a")), stillResizing)
	equal(t, "PV size", pvSize(e.volume("pv-a")), "1Gi")
	checkNoShrink(t, e, pvc, pv)

	// The user lowers the request while the driver is down; a new driver
	// (and connection) comes up: the recorded 2Gi is finished.
	e.setRequest("a", "1536Mi")
	back := csidriver.StartForTest(t, csidriver.Config{DriverName: driverName, ControllerExpand: true})
	e.ctrl.Resizer = &driver.VolumeExpander{Driver: connectDriver(t, back)}
	e.mustSync("a")
	equal(t, "claim after the driver is back", summary(e.claim("a")), finished)
	calls := back.Calls()
	if len(calls) != 1 || calls[0].RequiredBytes != 2<<30 {
		t.Errorf("calls to the new driver = %+v, want one for 2Gi", calls)
	}
}
