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

// ExpandHook lets a test answer ControllerExpandVolume itself. It runs before
// every other fault. When handled is false the driver goes on as usual and
// resp and err are ignored.
type ExpandHook func(ctx context.Context, req *csi.ControllerExpandVolumeRequest) (resp *csi.ControllerExpandVolumeResponse, handled bool, err error)

// ModifyHook lets a test answer ControllerModifyVolume itself, as ExpandHook
// does for ControllerExpandVolume.
type ModifyHook func(ctx context.Context, req *csi.ControllerModifyVolumeRequest) (resp *csi.ControllerModifyVolumeResponse, handled bool, err error)

// faults are the misbehaviours armed at run time. They are guarded by Driver.mu.
type faults struct {
	calls    map[string]*errorFault // gRPC method name -> fault
	expand   errorFault
	delay    time.Duration
	capacity *int64
	hook     ExpandHook
	hold     *gate

	modify      errorFault
	modifyDelay time.Duration
	modifyHook  ModifyHook
	modifyHold  *gate

	nodeExpandDelay time.Duration
	nodeExpandHold  *gate
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
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.expand = errorFault{code: code, n: times}
}

// FailModify makes the next times ControllerModifyVolume calls fail with code
// (after any delay or hold), as FailExpand does for ControllerExpandVolume.
func (d *Driver) FailModify(code codes.Code, times int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.modify = errorFault{code: code, n: times}
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
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.delay = delay
}

// SetExpandCapacity makes every successful ControllerExpandVolume answer
// capacity_bytes = capacity (0, too small or huge) instead of the real size.
func (d *Driver) SetExpandCapacity(capacity int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.capacity = &capacity
}

// SetExpandHook installs hook for ControllerExpandVolume; nil removes it.
func (d *Driver) SetExpandHook(hook ExpandHook) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.hook = hook
}

// SetModifyDelay makes every ControllerModifyVolume call wait delay before it
// answers, as SetExpandDelay does for ControllerExpandVolume.
func (d *Driver) SetModifyDelay(delay time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.modifyDelay = delay
}

// SetModifyHook installs hook for ControllerModifyVolume; nil removes it.
func (d *Driver) SetModifyHook(hook ModifyHook) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.faults.modifyHook = hook
}

// HoldExpand makes every ControllerExpandVolume call that starts from now on
// wait, honouring its context, until release is called. It lets a test keep
// calls in flight for as long as it needs them there. release may be called
// more than once.
func (d *Driver) HoldExpand() (release func()) {
	return d.holdOn(func(f *faults) **gate { return &f.hold })
}

// HoldModify holds ControllerModifyVolume calls as HoldExpand holds
// ControllerExpandVolume calls.
func (d *Driver) HoldModify() (release func()) {
	return d.holdOn(func(f *faults) **gate { return &f.modifyHold })
}

// holdOn arms a new gate in the slot of d.faults that slot returns.
func (d *Driver) holdOn(slot func(*faults) **gate) (release func()) {
	g := &gate{ch: make(chan struct{})}
	d.mu.Lock()
	*slot(&d.faults) = g
	d.mu.Unlock()
	return func() {
		g.open()
		d.mu.Lock()
		defer d.mu.Unlock()
		if s := slot(&d.faults); *s == g {
			*s = nil
		}
	}
}

// ResetFaults disarms every fault, drops the scripted answers not taken yet
// and releases held calls. Calls already waiting out a delay finish their
// wait.
func (d *Driver) ResetFaults() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, g := range []*gate{d.faults.hold, d.faults.modifyHold, d.faults.nodeExpandHold} {
		if g != nil {
			g.open()
		}
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

// takeExpandFaults returns the faults of a ControllerExpandVolume call of
// volumeID. d.mu must be held.
func (d *Driver) takeExpandFaults(volumeID string) callFaults {
	f := callFaults{delay: d.faults.delay, hold: d.faults.hold, err: d.faults.expand.take(), capacity: d.faults.capacity}
	return d.withScriptLocked(f, csi.Controller_ControllerExpandVolume_FullMethodName, volumeID)
}

// takeModifyFaults returns the faults of a ControllerModifyVolume call of
// volumeID. d.mu must be held.
func (d *Driver) takeModifyFaults(volumeID string) callFaults {
	f := callFaults{delay: d.faults.modifyDelay, hold: d.faults.modifyHold, err: d.faults.modify.take()}
	return d.withScriptLocked(f, csi.Controller_ControllerModifyVolume_FullMethodName, volumeID)
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
