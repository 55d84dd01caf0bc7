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
	"path"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Hook lets a test answer the calls of a method itself (see SetHook). It runs
// before every other fault. When handled is false the driver goes on as usual
// and resp and err are ignored.
type Hook func(ctx context.Context, req any) (resp any, handled bool, err error)

// ExpandHook is a Hook of ControllerExpandVolume, with its types.
type ExpandHook func(ctx context.Context, req *csi.ControllerExpandVolumeRequest) (resp *csi.ControllerExpandVolumeResponse, handled bool, err error)

// faults are what is armed on one method, guarded by Driver.mu.
type faults struct {
	code codes.Code // fails the next n calls with code; n < 0 fails every call
	n    int
	// delay, hold (closed by release) and capacity (for
	// ControllerExpandVolume: the capacity_bytes of every successful
	// answer) apply to every call.
	delay    time.Duration
	hold     chan struct{}
	release  func()
	capacity *int64
	hook     Hook
}

// locked runs f with d.mu held.
func (d *Driver) locked(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f()
}

// arm changes the faults of method (a full gRPC method name or its last part) with set.
func (d *Driver) arm(method string, set func(f *faults)) {
	d.locked(func() {
		m := path.Base(method)
		if d.faults[m] == nil {
			d.faults[m] = &faults{}
		}
		set(d.faults[m])
	})
}

// FailCall makes the next times calls of method (a full gRPC method name such
// as csi.Identity_Probe_FullMethodName, or its last part such as MethodModify)
// fail with code, after any delay or hold; times < 0 fails every call until
// ResetFaults, and codes.OK or times == 0 disarms it. A call of a recorded
// method (see Call) failed this way is recorded, with its code.
func (d *Driver) FailCall(method string, code codes.Code, times int) {
	d.arm(method, func(f *faults) { f.code, f.n = code, times })
}

// FailExpand is FailCall of ControllerExpandVolume.
func (d *Driver) FailExpand(code codes.Code, times int) { d.FailCall(MethodExpand, code, times) }

// FailModify is FailCall of ControllerModifyVolume.
func (d *Driver) FailModify(code codes.Code, times int) { d.FailCall(MethodModify, code, times) }

// SetDelay makes every call of method wait delay before it answers. The wait
// ends early when the caller's context ends, so a delay longer than the
// caller's timeout makes a call that hangs until the caller gives up. Zero
// removes the delay.
func (d *Driver) SetDelay(method string, delay time.Duration) {
	d.arm(method, func(f *faults) { f.delay = delay })
}

// SetExpandDelay is SetDelay of ControllerExpandVolume.
func (d *Driver) SetExpandDelay(delay time.Duration) { d.SetDelay(MethodExpand, delay) }

// SetModifyDelay is SetDelay of ControllerModifyVolume.
func (d *Driver) SetModifyDelay(delay time.Duration) { d.SetDelay(MethodModify, delay) }

// Hold makes every call of method that starts from now on wait, honouring its
// context, until release is called, so that a test keeps calls in flight for
// as long as it needs them there. release may be called more than once.
func (d *Driver) Hold(method string) (release func()) {
	hold := make(chan struct{})
	open := sync.OnceFunc(func() { close(hold) })
	d.arm(method, func(f *faults) { f.hold, f.release = hold, open })
	return func() {
		open()
		d.arm(method, func(f *faults) {
			if f.hold == hold {
				f.hold, f.release = nil, nil
			}
		})
	}
}

// HoldExpand is Hold of ControllerExpandVolume.
func (d *Driver) HoldExpand() (release func()) { return d.Hold(MethodExpand) }

// SetExpandCapacity makes every successful ControllerExpandVolume answer
// capacity_bytes = capacity (0, too small or huge) instead of the real size.
func (d *Driver) SetExpandCapacity(capacity int64) {
	d.arm(MethodExpand, func(f *faults) { f.capacity = &capacity })
}

// SetHook installs hook for method; nil removes it. Calls it answers are
// recorded too.
func (d *Driver) SetHook(method string, hook Hook) {
	d.arm(method, func(f *faults) { f.hook = hook })
}

// SetExpandHook installs hook for ControllerExpandVolume; nil removes it.
func (d *Driver) SetExpandHook(hook ExpandHook) {
	var h Hook
	if hook != nil {
		h = func(ctx context.Context, req any) (any, bool, error) {
			return hook(ctx, req.(*csi.ControllerExpandVolumeRequest))
		}
	}
	d.SetHook(MethodExpand, h)
}

// ResetFaults disarms every fault, drops the scripted answers not taken yet
// and releases held calls. Calls already waiting out a delay finish their wait.
func (d *Driver) ResetFaults() {
	d.locked(func() {
		for _, f := range d.faults {
			if f.release != nil {
				f.release()
			}
		}
		d.faults = map[string]*faults{}
		d.script.answers = nil
	})
}

// taken is what one call must suffer, fixed when the call arrives (and the
// hook declined it) so that "the next N calls" means the next N to arrive.
type taken struct {
	delay    time.Duration
	hold     chan struct{}
	err      error
	capacity *int64
}

// takeLocked returns the faults of one call of method on volumeID: those
// armed, and unless they fail the call, its scripted answer. d.mu must be held.
func (d *Driver) takeLocked(method, volumeID string) taken {
	var t taken
	if f := d.faults[method]; f != nil {
		t = taken{delay: f.delay, hold: f.hold, capacity: f.capacity}
		if f.n != 0 && f.code != codes.OK {
			if f.n > 0 {
				f.n--
			}
			t.err = status.Errorf(f.code, "injected fault %s", f.code)
		}
	}
	if t.err == nil {
		s := d.takeScriptedLocked(method, volumeID)
		t.delay += s.delay
		t.err = s.err
	}
	return t
}

// suffer applies the delay, hold and error of t, honouring ctx.
func (t taken) suffer(ctx context.Context) error {
	if t.delay > 0 {
		timer := time.NewTimer(t.delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
	if t.hold != nil {
		select {
		case <-t.hold:
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
	return t.err
}
