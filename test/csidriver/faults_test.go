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

package csidriver

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestFailExpand(t *testing.T) {
	tests := []struct {
		name  string
		code  codes.Code
		times int
		want  []codes.Code // one per call
	}{
		{name: "twice", code: codes.Unavailable, times: 2, want: []codes.Code{codes.Unavailable, codes.Unavailable, codes.OK}},
		{name: "every call", code: codes.Internal, times: -1, want: []codes.Code{codes.Internal, codes.Internal, codes.Internal}},
		{name: "zero times", code: codes.Internal, times: 0, want: []codes.Code{codes.OK}},
		{name: "code OK disarms", code: codes.OK, times: 3, want: []codes.Code{codes.OK}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{})
			d.FailExpand(tc.code, tc.times)
			var got []codes.Code
			for range tc.want {
				_, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 10))
				got = append(got, status.Code(err))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("codes = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSetDelay(t *testing.T) {
	tests := []struct {
		name     string
		delay    time.Duration
		timeout  time.Duration
		wantCode codes.Code
	}{
		{name: "short delay", delay: 20 * time.Millisecond, timeout: testTimeout, wantCode: codes.OK},
		// The caller's deadline leaves the call time to reach the driver on
		// a loaded machine: with 50 ms it sometimes expired before the
		// request was sent, and the driver saw no call.
		{name: "hang outlives the caller", delay: time.Hour, timeout: time.Second, wantCode: codes.DeadlineExceeded},
	}
	for _, m := range controllerMethods {
		for _, tc := range tests {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				d, c := dial(t, Config{})
				m.delay(d, tc.delay)
				start := time.Now()
				ctx, cancel := context.WithTimeout(t.Context(), tc.timeout)
				defer cancel()
				err := m.call(ctx, c, "vol-1")
				elapsed := time.Since(start)
				if status.Code(err) != tc.wantCode {
					t.Fatalf("error = %v, want code %v", err, tc.wantCode)
				}
				if elapsed < min(tc.delay, tc.timeout) || elapsed > testTimeout {
					t.Errorf("call took %v, want about %v", elapsed, min(tc.delay, tc.timeout))
				}
				// The driver side ends too, instead of sleeping on.
				waitFor(t, "the driver to end the call", func() bool {
					calls := m.recorded(d)
					return len(calls) == 1 && !calls[0].End.IsZero() && d.InFlight("vol-1") == 0
				})
				// The driver sees either its own deadline or the caller's cancellation first.
				if got := m.recorded(d)[0].Code; got != tc.wantCode && (tc.wantCode != codes.DeadlineExceeded || got != codes.Canceled) {
					t.Errorf("driver recorded code %v, want %v", got, tc.wantCode)
				}
				if changed := m.changed(d, "vol-1"); changed != (tc.wantCode == codes.OK) {
					t.Errorf("volume changed = %v after a call that answered %v", changed, tc.wantCode)
				}
			})
		}
	}
}

func TestSetExpandCapacity(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int64
	}{
		{name: "zero", capacity: 0},
		{name: "smaller", capacity: 5},
		{name: "huge", capacity: 1 << 62},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{})
			d.SetExpandCapacity(tc.capacity)
			resp, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 10))
			if err != nil {
				t.Fatalf("ControllerExpandVolume: %v", err)
			}
			if resp.GetCapacityBytes() != tc.capacity {
				t.Errorf("capacity = %d, want %d", resp.GetCapacityBytes(), tc.capacity)
			}
			if size, _ := d.VolumeSize("vol-1"); size != 10 {
				t.Errorf("volume size = %d, want the real size 10", size)
			}
		})
	}
}

func TestSetExpandHook(t *testing.T) {
	tests := []struct {
		name     string
		hook     ExpandHook
		wantCode codes.Code
		wantCap  int64
	}{
		{
			name: "handled with an answer",
			hook: func(context.Context, *csi.ControllerExpandVolumeRequest) (*csi.ControllerExpandVolumeResponse, bool, error) {
				return &csi.ControllerExpandVolumeResponse{CapacityBytes: 42}, true, nil
			},
			wantCap: 42,
		},
		{
			name: "handled with an error",
			hook: func(context.Context, *csi.ControllerExpandVolumeRequest) (*csi.ControllerExpandVolumeResponse, bool, error) {
				return nil, true, status.Error(codes.ResourceExhausted, "quota")
			},
			wantCode: codes.ResourceExhausted,
		},
		{
			name: "declined",
			hook: func(context.Context, *csi.ControllerExpandVolumeRequest) (*csi.ControllerExpandVolumeResponse, bool, error) {
				return nil, false, errors.New("ignored")
			},
			wantCap: 10,
		},
		{name: "no hook", wantCap: 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{})
			d.SetExpandHook(tc.hook)
			resp, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 10))
			if status.Code(err) != tc.wantCode || resp.GetCapacityBytes() != tc.wantCap {
				t.Errorf("got %v, %v; want capacity %d, code %v", resp, err, tc.wantCap, tc.wantCode)
			}
		})
	}
}

func TestHold(t *testing.T) {
	tests := []struct {
		name     string
		end      func(d *Driver, release func(), cancel context.CancelFunc)
		wantCode codes.Code
		// stillHeld: the hold outlives the call.
		stillHeld bool
	}{
		{name: "release", end: func(_ *Driver, release func(), _ context.CancelFunc) { release(); release() }},
		{name: "reset faults", end: func(d *Driver, _ func(), _ context.CancelFunc) { d.ResetFaults() }},
		{name: "caller gives up", end: func(_ *Driver, _ func(), cancel context.CancelFunc) { cancel() }, wantCode: codes.Canceled, stillHeld: true},
	}
	for _, m := range controllerMethods {
		for _, tc := range tests {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				d, c := dial(t, Config{})
				release := m.hold(d)
				defer release()
				ctx, cancel := context.WithCancel(testContext(t))
				defer cancel()
				errc := make(chan error, 1)
				go func() { errc <- m.call(ctx, c, "vol-1") }()
				waitFor(t, "the call to be held", func() bool { return d.InFlight("vol-1") == 1 })
				// The other method's calls are not held.
				if err := m.other().call(testContext(t), c, "vol-2"); err != nil {
					t.Errorf("%s call during a %s hold: %v", m.other().name, m.name, err)
				}
				select {
				case err := <-errc:
					t.Fatalf("held call returned early: %v", err)
				default:
				}
				tc.end(d, release, cancel)
				select {
				case err := <-errc:
					if status.Code(err) != tc.wantCode {
						t.Errorf("error = %v, want code %v", err, tc.wantCode)
					}
				case <-time.After(testTimeout):
					t.Fatal("held call did not return")
				}
				if tc.stillHeld {
					waitFor(t, "the driver to end the call", func() bool { return d.InFlight("vol-1") == 0 })
					return
				}
				// New calls are no longer held.
				if err := m.call(testContext(t), c, "vol-1"); err != nil {
					t.Errorf("call after the hold: %v", err)
				}
			})
		}
	}
}

func TestResetFaults(t *testing.T) {
	d, c := dial(t, Config{})
	d.FailExpand(codes.Internal, -1)
	d.FailCall(csi.Identity_Probe_FullMethodName, codes.Internal, -1)
	d.SetExpandDelay(time.Hour)
	d.SetExpandCapacity(1)
	d.SetExpandHook(func(context.Context, *csi.ControllerExpandVolumeRequest) (*csi.ControllerExpandVolumeResponse, bool, error) {
		return nil, true, status.Error(codes.Aborted, "hooked")
	})
	d.ResetFaults()

	resp, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 10))
	if err != nil || resp.GetCapacityBytes() != 10 {
		t.Errorf("ControllerExpandVolume after reset = %v, %v; want capacity 10", resp, err)
	}
	if _, err := c.identity.Probe(testContext(t), &csi.ProbeRequest{}); err != nil {
		t.Errorf("Probe after reset: %v", err)
	}
}

func TestFailCall(t *testing.T) {
	d, c := dial(t, Config{DriverName: "test.csi.example.com"})
	d.FailCall(csi.Identity_GetPluginInfo_FullMethodName, codes.Unavailable, 1)
	d.FailCall(csi.Controller_ControllerExpandVolume_FullMethodName, codes.Internal, 1)
	ctx := testContext(t)

	if _, err := c.identity.GetPluginInfo(ctx, &csi.GetPluginInfoRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("first GetPluginInfo error = %v, want Unavailable", err)
	}
	if _, err := c.identity.GetPluginInfo(ctx, &csi.GetPluginInfoRequest{}); err != nil {
		t.Errorf("second GetPluginInfo: %v", err)
	}
	if _, err := c.identity.GetPluginCapabilities(ctx, &csi.GetPluginCapabilitiesRequest{}); err != nil {
		t.Errorf("other methods are not failed: %v", err)
	}
	if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-1", 10)); status.Code(err) != codes.Internal {
		t.Errorf("ControllerExpandVolume error = %v, want Internal", err)
	}
	if calls := d.Calls(); len(calls) != 1 || calls[0].Code != codes.Internal {
		t.Errorf("a call failed by FailCall was not recorded with its code: %+v", calls)
	}
}

func TestModifyFaults(t *testing.T) {
	hooked := func(context.Context, any) (any, bool, error) {
		return nil, true, status.Error(codes.ResourceExhausted, "quota")
	}
	declined := func(context.Context, any) (any, bool, error) {
		return nil, false, errors.New("ignored")
	}
	tests := []struct {
		name string
		arm  func(d *Driver)
		want []codes.Code // one per call
		// wantRecorded is how many calls ModifyCalls holds afterwards.
		wantRecorded int
	}{
		{name: "fail twice", arm: func(d *Driver) { d.FailModify(codes.Unavailable, 2) },
			want: []codes.Code{codes.Unavailable, codes.Unavailable, codes.OK}, wantRecorded: 3},
		{name: "fail every call", arm: func(d *Driver) { d.FailModify(codes.Internal, -1) },
			want: []codes.Code{codes.Internal, codes.Internal}, wantRecorded: 2},
		{name: "code OK disarms", arm: func(d *Driver) { d.FailModify(codes.OK, 3) }, want: []codes.Code{codes.OK}, wantRecorded: 1},
		{name: "expand faults leave modify alone", arm: func(d *Driver) { d.FailExpand(codes.Internal, -1) }, want: []codes.Code{codes.OK}, wantRecorded: 1},
		{name: "hook answers", arm: func(d *Driver) { d.SetHook(MethodModify, hooked) }, want: []codes.Code{codes.ResourceExhausted}, wantRecorded: 1},
		{name: "hook declines", arm: func(d *Driver) { d.SetHook(MethodModify, declined) }, want: []codes.Code{codes.OK}, wantRecorded: 1},
		{name: "hook removed", arm: func(d *Driver) { d.SetHook(MethodModify, hooked); d.SetHook(MethodModify, nil) }, want: []codes.Code{codes.OK}, wantRecorded: 1},
		{name: "failed call by full method name is recorded",
			arm:  func(d *Driver) { d.FailCall(csi.Controller_ControllerModifyVolume_FullMethodName, codes.Aborted, 1) },
			want: []codes.Code{codes.Aborted, codes.OK}, wantRecorded: 2},
		{name: "failed call by short method name is recorded",
			arm:  func(d *Driver) { d.FailCall("ControllerModifyVolume", codes.Aborted, 1) },
			want: []codes.Code{codes.Aborted, codes.OK}, wantRecorded: 2},
		{name: "reset", arm: func(d *Driver) {
			d.FailModify(codes.Internal, -1)
			d.SetHook(MethodModify, hooked)
			d.SetModifyDelay(time.Hour)
			d.FailCall("ControllerModifyVolume", codes.Aborted, -1)
			d.ResetFaults()
		}, want: []codes.Code{codes.OK}, wantRecorded: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{})
			tc.arm(d)
			var got []codes.Code
			for range tc.want {
				_, err := c.controller.ControllerModifyVolume(testContext(t), modifyRequest("vol-1", map[string]string{"iops": "1"}))
				got = append(got, status.Code(err))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("codes = %v, want %v", got, tc.want)
			}
			if n := len(d.ModifyCalls()); n != tc.wantRecorded {
				t.Errorf("%d calls recorded, want %d", n, tc.wantRecorded)
			}
		})
	}
}
