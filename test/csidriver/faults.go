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

// ControllerHook lets a test answer a controller call itself. It runs
// before every other fault. When handled is false the driver goes on as
// usual and resp and err are ignored.
type ControllerHook[Req, Resp any] func(ctx context.Context, req Req) (resp Resp, handled bool, err error)

// ExpandHook lets a test answer ControllerExpandVolume itself.
type ExpandHook = ControllerHook[*csi.ControllerExpandVolumeRequest, *csi.ControllerExpandVolumeResponse]

// ModifyHook lets a test answer ControllerModifyVolume itself.
type ModifyHook = ControllerHook[*csi.ControllerModifyVolumeRequest, *csi.ControllerModifyVolumeResponse]

// faults are the misbehaviours armed at run time on other methods than
// the controller ones, which keep theirs in their controllerOp. They are
// guarded by Driver.mu.
type faults struct {
	calls map[string]*errorFault // gRPC method name -> fault

	nodeExpandDelay time.Duration
	nodeExpandHold  *gate
}

// opFaults are the faults armed on one controller method.
type opFaults[Req, Resp any] struct {
	fail  errorFault
	delay time.Duration
	hook  ControllerHook[Req, Resp]
	hold  *gate
	// capacity, when set, is the capacity_bytes of every successful
	// answer (ControllerExpandVolume only).
	capacity *int64
}

// take returns the faults of one call. d.mu must be held.
func (f *opFaults[Req, Resp]) take() callFaults {
	return callFaults{delay: f.delay, hold: f.hold, err: f.fail.take(), capacity: f.capacity}
}

// errorFault fails the next n calls with code; n < 0 fails every call.
type errorFault struct {
	code codes.Code
	n    int
}

// take returns the injected error for one call, or nil when the fault is spent.
func (f *errorFault) take() error {
	if f.n == 0 || f.code == codes.OK {
		return nil
	}
	if f.n > 0 {
		f.n--
	}
	return status.Errorf(f.code, "injected fault %s", f.code)
}

// gate holds calls until it is opened.
type gate struct {
	ch   chan struct{}
	once sync.Once
}

func (g *gate) open() {
	g.once.Do(func() { close(g.ch) })
}

// FailExpand makes the next times ControllerExpandVolume calls fail with code
// (after any delay or hold); times < 0 fails every call until ResetFaults.
// codes.OK or times == 0 disarms the fault.
func (d *Driver) FailExpand(code codes.Code, times int) {
	d.locked(func() { d.expand.faults.fail = errorFault{code: code, n: times} })
}

// FailModify makes the next times ControllerModifyVolume calls fail with code
// (after any delay or hold), as FailExpand does for ControllerExpandVolume.
func (d *Driver) FailModify(code codes.Code, times int) {
	d.locked(func() { d.modify.faults.fail = errorFault{code: code, n: times} })
}

// locked runs f with d.mu held.
func (d *Driver) locked(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f()
}

// FailCall makes the next times calls of method (a full gRPC method name such
// as csi.Identity_Probe_FullMethodName, or its last part such as
// "ControllerModifyVolume") fail with code before they reach the driver;
// times < 0 fails every call until ResetFaults. A ControllerExpandVolume or
// ControllerModifyVolume call failed this way is not recorded in Calls or
// ModifyCalls: use FailExpand or FailModify for that. A node call failed
// this way is recorded in NodeCalls, with its code.
func (d *Driver) FailCall(method string, code codes.Code, times int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.faults.calls == nil {
		d.faults.calls = map[string]*errorFault{}
	}
	d.faults.calls[method] = &errorFault{code: code, n: times}
}

// takeCallFault returns the faults of one call of method (a full gRPC
// method name) with req: the error armed by FailCall, else a scripted
// answer. ControllerExpandVolume and ControllerModifyVolume take their
// scripted answers in their handlers instead, so that they are recorded.
func (d *Driver) takeCallFault(method string, req any) callFaults {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f := d.faults.calls[method]; f != nil {
		return callFaults{err: f.take()}
	}
	if f := d.faults.calls[path.Base(method)]; f != nil {
		return callFaults{err: f.take()}
	}
	switch method {
	case csi.Controller_ControllerExpandVolume_FullMethodName, csi.Controller_ControllerModifyVolume_FullMethodName:
		return callFaults{}
	}
	return d.takeScriptedLocked(method, volumeIDOf(req))
}

// SetExpandDelay makes every ControllerExpandVolume call wait delay before it
// answers. The wait ends early when the caller's context ends, so a delay
// longer than the caller's timeout makes a call that hangs until the caller
// gives up. Zero removes the delay.
func (d *Driver) SetExpandDelay(delay time.Duration) {
	d.locked(func() { d.expand.faults.delay = delay })
}

// SetModifyDelay makes every ControllerModifyVolume call wait delay before it
// answers, as SetExpandDelay does for ControllerExpandVolume.
func (d *Driver) SetModifyDelay(delay time.Duration) {
	d.locked(func() { d.modify.faults.delay = delay })
}

// SetExpandCapacity makes every successful ControllerExpandVolume answer
// capacity_bytes = capacity (0, too small or huge) instead of the real size.
func (d *Driver) SetExpandCapacity(capacity int64) {
	d.locked(func() { d.expand.faults.capacity = &capacity })
}

// SetExpandHook installs hook for ControllerExpandVolume; nil removes it.
func (d *Driver) SetExpandHook(hook ExpandHook) {
	d.locked(func() { d.expand.faults.hook = hook })
}

// SetModifyHook installs hook for ControllerModifyVolume; nil removes it.
func (d *Driver) SetModifyHook(hook ModifyHook) {
	d.locked(func() { d.modify.faults.hook = hook })
}

// HoldExpand makes every ControllerExpandVolume call that starts from now on
// wait, honouring its context, until release is called. It lets a test keep
// calls in flight for as long as it needs them there. release may be called
// more than once.
func (d *Driver) HoldExpand() (release func()) {
	return d.holdOn(&d.expand.faults.hold)
}

// HoldModify holds ControllerModifyVolume calls as HoldExpand holds
// ControllerExpandVolume calls.
func (d *Driver) HoldModify() (release func()) {
	return d.holdOn(&d.modify.faults.hold)
}

// holdOn arms a new gate in slot, a field of the faults guarded by d.mu.
func (d *Driver) holdOn(slot **gate) (release func()) {
	g := &gate{ch: make(chan struct{})}
	d.locked(func() { *slot = g })
	return func() {
		g.open()
		d.locked(func() {
			if *slot == g {
				*slot = nil
			}
		})
	}
}

// ResetFaults disarms every fault, drops the scripted answers not taken yet
// and releases held calls. Calls already waiting out a delay finish their
// wait.
func (d *Driver) ResetFaults() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expand.resetFaultsLocked()
	d.modify.resetFaultsLocked()
	if d.faults.nodeExpandHold != nil {
		d.faults.nodeExpandHold.open()
	}
	d.faults = faults{}
	d.script.answers = nil
}

// callFaults is what one call must suffer, fixed when the call arrives (and,
// for ControllerExpandVolume and ControllerModifyVolume, the hook declined
// it) so that "the next N calls" means the next N to arrive.
type callFaults struct {
	delay    time.Duration
	hold     *gate
	err      error
	capacity *int64 // expand only
}

// withScriptLocked adds to f, unless it already fails the call, the
// scripted answer of one call of method on volumeID. d.mu must be held.
func (d *Driver) withScriptLocked(f callFaults, method, volumeID string) callFaults {
	if f.err != nil {
		return f
	}
	s := d.takeScriptedLocked(method, volumeID)
	f.delay += s.delay
	f.err = s.err
	return f
}

// suffer applies the delay, hold and error of f, honouring ctx.
func (f callFaults) suffer(ctx context.Context) error {
	if f.delay > 0 {
		t := time.NewTimer(f.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
	if f.hold != nil {
		select {
		case <-f.hold.ch:
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
	return f.err
}
