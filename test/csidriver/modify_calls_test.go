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
	"maps"
	"os"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestModifyCallsRecordRequests(t *testing.T) {
	d, c := dial(t, Config{})
	ctx := testContext(t)
	params := map[string]string{"iops": "3000", "throughput": "125"}
	secrets := map[string]string{"password": "s3cr3t=;\"'"}
	req := modifyRequest("vol-1", params)
	req.Secrets = secrets
	if _, err := c.controller.ControllerModifyVolume(ctx, req); err != nil {
		t.Fatalf("ControllerModifyVolume: %v", err)
	}
	if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-1", 10)); err != nil {
		t.Fatalf("ControllerExpandVolume: %v", err)
	}
	d.FailModify(codes.Unavailable, 1)
	if _, err := c.controller.ControllerModifyVolume(ctx, modifyRequest("vol-2", nil)); status.Code(err) != codes.Unavailable {
		t.Fatalf("ControllerModifyVolume with a fault armed = %v, want Unavailable", err)
	}

	calls := d.ModifyCalls()
	if len(calls) != 2 {
		t.Fatalf("got %d modify calls, want 2: %+v", len(calls), calls)
	}
	first, second := calls[0], calls[1]
	if first.Seq != 1 || first.VolumeID != "vol-1" || first.Code != codes.OK || first.Pid != os.Getpid() ||
		!maps.Equal(first.MutableParameters, params) || !maps.Equal(first.Secrets, secrets) {
		t.Errorf("first call = %+v", first)
	}
	if first.Start.IsZero() || first.End.Before(first.Start) || first.Deadline.IsZero() || !first.CallerGone.IsZero() {
		t.Errorf("first call's times = %+v", first)
	}
	// The expand call in between took Seq 2: the numbers are shared.
	if second.Seq != 3 || second.VolumeID != "vol-2" || second.Code != codes.Unavailable || second.MutableParameters != nil {
		t.Errorf("second call = %+v", second)
	}
	if expands := d.Calls(); len(expands) != 1 || expands[0].Seq != 2 {
		t.Errorf("expand calls = %+v, want the one in between with Seq 2", expands)
	}

	// The log hands out copies.
	first.MutableParameters["iops"] = "changed"
	first.Secrets["password"] = "changed"
	again := d.ModifyCalls()[0]
	if again.MutableParameters["iops"] != "3000" || again.Secrets["password"] != secrets["password"] {
		t.Errorf("changing a returned call changed the log: %+v", again)
	}
}

// TestOnModifyCall checks what the observer sees of a call whose caller
// gives up while it is held: its arrival, the caller's leaving, and its end.
func TestOnModifyCall(t *testing.T) {
	var mu sync.Mutex
	var seen []Call
	d, c := dial(t, Config{OnCall: func(call Call) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, call)
	}})
	release := d.Hold(MethodModify)
	defer release()
	ctx, cancel := context.WithCancel(testContext(t))
	errc := make(chan error, 1)
	go func() {
		_, err := c.controller.ControllerModifyVolume(ctx, modifyRequest("vol-1", map[string]string{"iops": "3000"}))
		errc <- err
	}()
	waitFor(t, "the call to be held", func() bool { return d.InFlight("vol-1") == 1 })
	cancel()
	if err := <-errc; status.Code(err) != codes.Canceled {
		t.Fatalf("cancelled call = %v, want Canceled", err)
	}
	waitFor(t, "the driver to end the call", func() bool { return d.InFlight("vol-1") == 0 })

	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("observer saw %d records, want 3 (arrival, caller gone, end): %+v", len(seen), seen)
	}
	var arrived, gone, ended bool
	for _, call := range seen {
		if call.MutableParameters["iops"] != "3000" {
			t.Errorf("observed call without its parameters: %+v", call)
		}
		switch {
		case !call.End.IsZero():
			ended = true
			if call.CallerGone.IsZero() {
				t.Errorf("the end was observed without the caller's leaving: %+v", call)
			}
		case !call.CallerGone.IsZero():
			gone = true
		default:
			arrived = true
		}
	}
	if !arrived || !gone || !ended {
		t.Errorf("observed arrival %v, caller gone %v, end %v; want all", arrived, gone, ended)
	}
}

// TestInFlightCountsBothMethods checks that an expand and a modify call of
// one volume at once count as an overlap.
func TestInFlightCountsBothMethods(t *testing.T) {
	d, c := dial(t, Config{})
	releaseExpand, releaseModify := d.HoldExpand(), d.Hold(MethodModify)
	ctx := testContext(t)
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-a", 10)); err != nil {
			t.Errorf("ControllerExpandVolume: %v", err)
		}
	})
	wg.Go(func() {
		if _, err := c.controller.ControllerModifyVolume(ctx, modifyRequest("vol-a", nil)); err != nil {
			t.Errorf("ControllerModifyVolume: %v", err)
		}
	})
	wg.Go(func() {
		if _, err := c.controller.ControllerModifyVolume(ctx, modifyRequest("vol-b", nil)); err != nil {
			t.Errorf("ControllerModifyVolume: %v", err)
		}
	})
	waitFor(t, "every call to be in flight", func() bool { return d.InFlight("vol-a") == 2 && d.InFlight("vol-b") == 1 })
	releaseExpand()
	releaseModify()
	wg.Wait()
	for id, want := range map[string]int{"vol-a": 2, "vol-b": 1} {
		if got := d.MaxConcurrent(id); got != want {
			t.Errorf("MaxConcurrent(%s) = %d, want %d", id, got, want)
		}
		if got := d.InFlight(id); got != 0 {
			t.Errorf("InFlight(%s) = %d after all calls ended", id, got)
		}
	}
}

func TestModifyCallDeadline(t *testing.T) {
	d, c := dial(t, Config{})
	if _, err := c.controller.ControllerModifyVolume(t.Context(), modifyRequest("vol-1", nil)); err != nil {
		t.Fatalf("ControllerModifyVolume: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	if _, err := c.controller.ControllerModifyVolume(ctx, modifyRequest("vol-1", nil)); err != nil {
		t.Fatalf("ControllerModifyVolume: %v", err)
	}
	calls := d.ModifyCalls()
	if !calls[0].Deadline.IsZero() {
		t.Errorf("call without a deadline recorded one: %v", calls[0].Deadline)
	}
	if got := calls[1].Deadline.Sub(calls[1].Start); got > time.Hour || got < time.Hour-time.Minute {
		t.Errorf("deadline %v after the start, want about an hour", got)
	}
}
