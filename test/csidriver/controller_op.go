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
	"time"

	"google.golang.org/grpc/status"
)

// controllerOp is what the driver keeps of one controller method,
// ControllerExpandVolume or ControllerModifyVolume: the calls it received
// and the faults armed on it, both guarded by Driver.mu. Req and Resp are
// the method's request and answer, C the record of one call (ExpandCall,
// ModifyCall) and P a pointer to it.
type controllerOp[Req volumeRequest, Resp any, C any, P record[C, Req, Resp]] struct {
	// method is the full gRPC method name, which scripted answers name.
	method string
	// observer is Config.OnExpandCall or Config.OnModifyCall.
	observer func(C)
	calls    []C
	faults   opFaults[Req, Resp]
}

// volumeRequest is the request of a controller method the driver records.
type volumeRequest interface {
	GetVolumeId() string
	GetSecrets() map[string]string
}

// record is a pointer to the record of one call of a controller method
// whose request is Req and answer Resp.
type record[C, Req, Resp any] interface {
	*C
	// shared returns the part all controller methods record.
	shared() *ControllerCall
	// request records what is the method's own in req.
	request(req Req)
	// answered records what is the method's own in the answer; resp is
	// nil when the call failed.
	answered(resp Resp)
	// clone returns a copy that shares nothing with the record.
	clone() C
}

// answerFunc serves a call that no hook answered and no fault failed.
type answerFunc[Req, Resp any] func(req Req, f callFaults) (Resp, error)

// serve records a call, lets the hook answer it or else makes it suffer
// its faults and answers it with answer, and records its end.
func (o *controllerOp[Req, Resp, C, P]) serve(d *Driver, ctx context.Context, req Req, answer answerFunc[Req, Resp]) (Resp, error) {
	i, hook := o.begin(d, ctx, req)
	stop := watchCaller(ctx, func() { o.callerGone(d, i) })
	resp, err := o.run(d, ctx, req, hook, answer)
	stop()
	o.end(d, i, resp, err)
	return resp, err
}

// run answers a call: the hook when it handles it, else the faults
// armed when the hook declined it, else answer.
func (o *controllerOp[Req, Resp, C, P]) run(d *Driver, ctx context.Context, req Req, hook ControllerHook[Req, Resp], answer answerFunc[Req, Resp]) (Resp, error) {
	if hook != nil {
		if resp, handled, err := hook(ctx, req); handled {
			return resp, err
		}
	}
	d.mu.Lock()
	f := d.withScriptLocked(o.faults.take(), o.method, req.GetVolumeId())
	d.mu.Unlock()
	if err := f.suffer(ctx); err != nil {
		var none Resp
		return none, err
	}
	return answer(req, f)
}

// begin records the arrival of req and returns its index in the log and
// the hook to run, if any.
func (o *controllerOp[Req, Resp, C, P]) begin(d *Driver, ctx context.Context, req Req) (int, ControllerHook[Req, Resp]) {
	var call C
	P(&call).request(req)
	s := P(&call).shared()
	s.Pid, s.VolumeID, s.Secrets, s.Start = CallerPid(ctx), req.GetVolumeId(), maps.Clone(req.GetSecrets()), time.Now()
	if deadline, ok := ctx.Deadline(); ok {
		s.Deadline = deadline
	}
	d.mu.Lock()
	s.Seq = d.arriveLocked(s.VolumeID)
	o.calls = append(o.calls, call)
	i := len(o.calls) - 1
	hook := o.faults.hook
	d.mu.Unlock()
	o.observe(call)
	return i, hook
}

// callerGone records that the caller of the call at index i stopped waiting.
func (o *controllerOp[Req, Resp, C, P]) callerGone(d *Driver, i int) {
	d.mu.Lock()
	s := P(&o.calls[i]).shared()
	if !s.End.IsZero() || !s.CallerGone.IsZero() {
		d.mu.Unlock()
		return
	}
	s.CallerGone = time.Now()
	gone := o.calls[i]
	d.mu.Unlock()
	// Observed now, not only with the end: the call may never end (a
	// driver killed while it hangs).
	o.observe(gone)
}

// end records the outcome of the call at index i.
func (o *controllerOp[Req, Resp, C, P]) end(d *Driver, i int, resp Resp, err error) {
	d.mu.Lock()
	call := P(&o.calls[i])
	s := call.shared()
	s.End, s.Code = time.Now(), status.Code(err)
	call.answered(resp)
	d.leaveLocked(s.VolumeID)
	ended := o.calls[i]
	d.mu.Unlock()
	o.observe(ended)
}

// observe hands a copy of call to the observer.
func (o *controllerOp[Req, Resp, C, P]) observe(call C) {
	if o.observer != nil {
		o.observer(P(&call).clone())
	}
}

// snapshot returns a copy of every call so far, in order of arrival,
// including calls still running.
func (o *controllerOp[Req, Resp, C, P]) snapshot(d *Driver) []C {
	d.mu.Lock()
	defer d.mu.Unlock()
	calls := make([]C, len(o.calls))
	for i := range o.calls {
		calls[i] = P(&o.calls[i]).clone()
	}
	return calls
}

// resetFaultsLocked disarms the faults of the method and releases its held calls.
// d.mu must be held.
func (o *controllerOp[Req, Resp, C, P]) resetFaultsLocked() {
	if o.faults.hold != nil {
		o.faults.hold.open()
	}
	o.faults = opFaults[Req, Resp]{}
}

// arriveLocked numbers a call of volumeID that arrives and counts it in
// flight. d.mu must be held.
func (d *Driver) arriveLocked(volumeID string) (seq int) {
	d.seq++
	d.inFlight[volumeID]++
	d.maxConcurrent[volumeID] = max(d.maxConcurrent[volumeID], d.inFlight[volumeID])
	return d.seq
}

// leaveLocked counts a call of volumeID out of flight. d.mu must be held.
func (d *Driver) leaveLocked(volumeID string) {
	d.inFlight[volumeID]--
}

// watchCaller calls gone when the caller of ctx stops waiting (ctx ends
// before the call returns). The call's handler calls stop when it returns:
// stop calls gone itself whenever ctx has ended, since the watch may not
// have fired yet — and stopping it may even cancel it after ctx ended, when
// the cancellation has not reached it. gone must tolerate being called
// twice.
func watchCaller(ctx context.Context, gone func()) (stop func()) {
	stopWatch := context.AfterFunc(ctx, gone)
	return func() {
		stopWatch()
		if ctx.Err() != nil {
			gone()
		}
	}
}

// InFlight returns how many ControllerExpandVolume and ControllerModifyVolume
// calls for volumeID are running now.
func (d *Driver) InFlight(volumeID string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inFlight[volumeID]
}

// MaxConcurrent returns the highest number of ControllerExpandVolume and
// ControllerModifyVolume calls for volumeID that ever ran at the same time.
// Above 1 means two calls for one volume overlapped (two resizes, two
// modifications, or one of each), which CSI does not allow.
func (d *Driver) MaxConcurrent(volumeID string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.maxConcurrent[volumeID]
}
