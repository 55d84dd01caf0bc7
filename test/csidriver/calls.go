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

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// ExpandCall is one ControllerExpandVolume call as the driver received it.
type ExpandCall struct {
	// Seq numbers the calls of one driver from 1, in order of arrival; the
	// ControllerExpandVolume and ControllerModifyVolume calls share the
	// numbers.
	Seq int
	// Pid is the process that made the call (0 when unknown), from the
	// socket's peer credentials.
	Pid int
	// VolumeID is the request's volume_id.
	VolumeID string
	// RequiredBytes and LimitBytes are the request's capacity_range.
	RequiredBytes, LimitBytes int64
	// Secrets are the request's secrets, exactly as received.
	Secrets map[string]string
	// Capability is the request's volume_capability (nil when not sent).
	Capability *csi.VolumeCapability
	// Start is when the call arrived; End is when it returned, zero while it runs.
	Start, End time.Time
	// Deadline is the caller's deadline, zero when it set none.
	Deadline time.Time
	// CallerGone is when the caller stopped waiting (its deadline passed, it
	// cancelled, or its connection closed) while the call still ran; zero
	// when the caller got the answer.
	CallerGone time.Time
	// Code is the gRPC code the call returned (OK while it runs).
	Code codes.Code
	// CapacityBytes and NodeExpansionRequired are what a successful call answered.
	CapacityBytes         int64
	NodeExpansionRequired bool
}

// beginCall records the arrival of req and returns its index in the log and
// the hook to run, if any.
func (d *Driver) beginCall(ctx context.Context, req *csi.ControllerExpandVolumeRequest) (int, ExpandHook) {
	call := ExpandCall{
		Pid:           CallerPid(ctx),
		VolumeID:      req.GetVolumeId(),
		RequiredBytes: req.GetCapacityRange().GetRequiredBytes(),
		LimitBytes:    req.GetCapacityRange().GetLimitBytes(),
		Secrets:       maps.Clone(req.GetSecrets()),
		Capability:    cloneCapability(req.GetVolumeCapability()),
		Start:         time.Now(),
	}
	if deadline, ok := ctx.Deadline(); ok {
		call.Deadline = deadline
	}
	d.mu.Lock()
	call.Seq = d.arriveLocked(call.VolumeID)
	d.calls = append(d.calls, call)
	i := len(d.calls) - 1
	hook := d.faults.hook
	d.mu.Unlock()
	d.observe(call)
	return i, hook
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

// callerGone records that the caller of the call at index i stopped waiting.
func (d *Driver) callerGone(i int) {
	d.mu.Lock()
	call := &d.calls[i]
	if !call.End.IsZero() || !call.CallerGone.IsZero() {
		d.mu.Unlock()
		return
	}
	call.CallerGone = time.Now()
	gone := *call
	d.mu.Unlock()
	// Observed now, not only with the end: the call may never end (a
	// driver killed while it hangs).
	d.observe(gone)
}

// endCall records the outcome of the call at index i.
func (d *Driver) endCall(i int, resp *csi.ControllerExpandVolumeResponse, err error) {
	d.mu.Lock()
	call := &d.calls[i]
	call.End = time.Now()
	call.Code = status.Code(err)
	call.CapacityBytes = resp.GetCapacityBytes()
	call.NodeExpansionRequired = resp.GetNodeExpansionRequired()
	d.leaveLocked(call.VolumeID)
	ended := *call
	d.mu.Unlock()
	d.observe(ended)
}

// observe hands a copy of call to Config.OnExpandCall.
func (d *Driver) observe(call ExpandCall) {
	if d.cfg.OnExpandCall == nil {
		return
	}
	call.Secrets = maps.Clone(call.Secrets)
	call.Capability = cloneCapability(call.Capability)
	d.cfg.OnExpandCall(call)
}

// Calls returns a copy of every ControllerExpandVolume call so far, in order
// of arrival, including calls still running.
func (d *Driver) Calls() []ExpandCall {
	d.mu.Lock()
	defer d.mu.Unlock()
	calls := make([]ExpandCall, len(d.calls))
	for i, c := range d.calls {
		c.Secrets = maps.Clone(c.Secrets)
		c.Capability = cloneCapability(c.Capability)
		calls[i] = c
	}
	return calls
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

func cloneCapability(c *csi.VolumeCapability) *csi.VolumeCapability {
	if c == nil {
		return nil
	}
	return proto.Clone(c).(*csi.VolumeCapability)
}
