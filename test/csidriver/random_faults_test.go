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
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// outcomes runs n calls through the faults and returns their codes.
func outcomes(t *testing.T, f RandomFaults, n int) []codes.Code {
	t.Helper()
	hook := f.Hook()
	var got []codes.Code
	for range n {
		_, handled, err := hook(testContext(t), expandRequest("vol-1", 10))
		if !handled && err != nil {
			t.Fatalf("unhandled call with error %v", err)
		}
		got = append(got, status.Code(err))
	}
	return got
}

func TestRandomFaults(t *testing.T) {
	tests := []struct {
		name         string
		faults       RandomFaults
		wantFailures [2]int // inclusive bounds over 1000 calls
	}{
		{name: "no faults", faults: RandomFaults{Seed: 1}, wantFailures: [2]int{0, 0}},
		{name: "every call", faults: RandomFaults{Seed: 1, FailRate: 1}, wantFailures: [2]int{1000, 1000}},
		{name: "a fifth", faults: RandomFaults{Seed: 1, FailRate: 0.2}, wantFailures: [2]int{150, 250}},
		{name: "over", faults: RandomFaults{Seed: 1, FailRate: 1, Until: time.Now().Add(-time.Second)}, wantFailures: [2]int{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := outcomes(t, tc.faults, 1000)
			failures := 0
			for _, c := range got {
				if c != codes.OK {
					failures++
					if !slices.Contains(DefaultFaultCodes, c) {
						t.Errorf("unexpected code %s", c)
					}
				}
			}
			if failures < tc.wantFailures[0] || failures > tc.wantFailures[1] {
				t.Errorf("%d failures in 1000 calls, want %d..%d", failures, tc.wantFailures[0], tc.wantFailures[1])
			}
		})
	}
}

func TestRandomFaultsRepeatWithTheSeed(t *testing.T) {
	f := RandomFaults{Seed: 42, FailRate: 0.5}
	if a, b := outcomes(t, f, 100), outcomes(t, f, 100); !slices.Equal(a, b) {
		t.Errorf("same seed, different faults:\n%v\n%v", a, b)
	}
}

func TestRandomHangOutlivesTheCaller(t *testing.T) {
	d, c := dial(t, Config{})
	d.SetHook(MethodExpand, RandomFaults{Seed: 1, HangRate: 1, HangFor: time.Second}.Hook())
	// 300 ms leaves the call time to reach the driver on a loaded machine.
	ctx, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-1", 10)); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("ControllerExpandVolume of a hanging driver = %v, want DeadlineExceeded", err)
	}
	waitFor(t, "the hang to end", func() bool { return d.InFlight("vol-1") == 0 })
	call := d.Calls()[0]
	if call.Code != codes.OK || call.CallerGone.IsZero() || call.End.Sub(call.Start) < time.Second {
		t.Errorf("hung call = %+v, want OK after the hang, with the caller gone", call)
	}
	if size, _ := d.VolumeSize("vol-1"); size != 10 {
		t.Errorf("size after the hang = %d, want 10: the backend finished", size)
	}
}

// TestRandomFaultsHooksShareTheSource checks that one Hook installed for both
// methods draws from one source: calls of both methods, interleaved, get the
// faults that as many calls of one method would.
func TestRandomFaultsHooksShareTheSource(t *testing.T) {
	f := RandomFaults{Seed: 7, FailRate: 0.5}
	want := outcomes(t, f, 100)
	hook := f.Hook()
	var got []codes.Code
	for i := range 100 {
		var err error
		if i%3 == 0 {
			_, _, err = hook(testContext(t), modifyRequest("vol-1", nil))
		} else {
			_, _, err = hook(testContext(t), expandRequest("vol-1", 10))
		}
		got = append(got, status.Code(err))
	}
	if !slices.Equal(got, want) {
		t.Errorf("interleaved calls got other faults:\n%v\n%v", got, want)
	}
}

func TestRandomFaultsOnModify(t *testing.T) {
	tests := []struct {
		name     string
		faults   RandomFaults
		wantCode codes.Code
		// wantModified: the volume's parameters were applied.
		wantModified bool
	}{
		{name: "every call fails", faults: RandomFaults{Seed: 1, FailRate: 1, Codes: []codes.Code{codes.Unavailable}}, wantCode: codes.Unavailable},
		{name: "no fault", faults: RandomFaults{Seed: 1}, wantModified: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{})
			hook := tc.faults.Hook()
			d.SetHook(MethodExpand, hook)
			d.SetHook(MethodModify, hook)
			_, err := c.controller.ControllerModifyVolume(testContext(t), modifyRequest("vol-1", map[string]string{"iops": "1"}))
			if status.Code(err) != tc.wantCode {
				t.Fatalf("ControllerModifyVolume = %v, want code %v", err, tc.wantCode)
			}
			if _, ok := d.VolumeParameters("vol-1"); ok != tc.wantModified {
				t.Errorf("volume modified = %v, want %v", ok, tc.wantModified)
			}
		})
	}
}

func TestRandomHangOnModifyOutlivesTheCaller(t *testing.T) {
	d, c := dial(t, Config{})
	d.SetHook(MethodModify, RandomFaults{Seed: 1, HangRate: 1, HangFor: time.Second}.Hook())
	// 300 ms leaves the call time to reach the driver on a loaded machine.
	ctx, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	if _, err := c.controller.ControllerModifyVolume(ctx, modifyRequest("vol-1", map[string]string{"iops": "1"})); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("ControllerModifyVolume of a hanging driver = %v, want DeadlineExceeded", err)
	}
	waitFor(t, "the hang to end", func() bool { return d.InFlight("vol-1") == 0 })
	call := d.ModifyCalls()[0]
	if call.Code != codes.OK || call.CallerGone.IsZero() || call.End.Sub(call.Start) < time.Second {
		t.Errorf("hung call = %+v, want OK after the hang, with the caller gone", call)
	}
	if params, _ := d.VolumeParameters("vol-1"); params["iops"] != "1" {
		t.Errorf("parameters after the hang = %v, want iops=1: the backend finished", params)
	}
}
