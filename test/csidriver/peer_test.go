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
	"os"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestCallsRecordCallerPid(t *testing.T) {
	d, c := dial(t, Config{})
	if _, err := c.controller.ControllerExpandVolume(testContext(t), expandRequest("vol-1", 10)); err != nil {
		t.Fatalf("ControllerExpandVolume: %v", err)
	}
	if got, want := d.Calls()[0].Pid, os.Getpid(); got != want {
		t.Errorf("caller pid = %d, want this process, %d", got, want)
	}
}

func TestCallsRecordWhenTheCallerGaveUp(t *testing.T) {
	tests := []struct {
		name     string
		delay    time.Duration
		wantGone bool
	}{
		{name: "answered in time"},
		{name: "caller's deadline passed", delay: time.Hour, wantGone: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, c := dial(t, Config{})
			d.SetExpandDelay(tc.delay)
			ctx, cancel := context.WithTimeout(testContext(t), 200*time.Millisecond)
			defer cancel()
			_, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-1", 10))
			if tc.wantGone != (status.Code(err) == codes.DeadlineExceeded) {
				t.Fatalf("ControllerExpandVolume: %v", err)
			}
			waitFor(t, "the call to end", func() bool { return d.InFlight("vol-1") == 0 })
			call := d.Calls()[0]
			if call.Deadline.IsZero() {
				t.Error("the caller's deadline is not recorded")
			}
			if gone := !call.CallerGone.IsZero(); gone != tc.wantGone {
				t.Errorf("CallerGone = %v, want set: %v", call.CallerGone, tc.wantGone)
			}
			if tc.wantGone && (call.CallerGone.Before(call.Start) || call.CallerGone.After(call.End)) {
				t.Errorf("CallerGone %v outside the call %v-%v", call.CallerGone, call.Start, call.End)
			}
		})
	}
}
