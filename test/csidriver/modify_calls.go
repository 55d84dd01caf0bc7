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
)

// ModifyCall is one ControllerModifyVolume call as the driver received it.
type ModifyCall struct {
	// Seq numbers the call among all the calls of the driver, see ExpandCall.
	Seq int
	// Pid is the process that made the call (0 when unknown), from the
	// socket's peer credentials.
	Pid int
	// VolumeID is the request's volume_id.
	VolumeID string
	// MutableParameters are the request's mutable_parameters.
	MutableParameters map[string]string
	// Secrets are the request's secrets, exactly as received.
	Secrets map[string]string
	// Start is when the call arrived; End is when it returned, zero while it runs.
	Start, End time.Time
	// Deadline is the caller's deadline, zero when it set none.
	Deadline time.Time
	// CallerGone is when the caller stopped waiting while the call still
	// ran; zero when the caller got the answer.
	CallerGone time.Time
	// Code is the gRPC code the call returned (OK while it runs).
	Code codes.Code
}

// beginModify records the arrival of req and returns its index in the log
// and the hook to run, if any.
func (d *Driver) beginModify(ctx context.Context, req *csi.ControllerModifyVolumeRequest) (int, ModifyHook) {
	call := ModifyCall{
		Pid:               CallerPid(ctx),
		VolumeID:          req.GetVolumeId(),
		MutableParameters: maps.Clone(req.GetMutableParameters()),
		Secrets:           maps.Clone(req.GetSecrets()),
		Start:             time.Now(),
	}
	if deadline, ok := ctx.Deadline(); ok {
		call.Deadline = deadline
	}
	d.mu.Lock()
	call.Seq = d.arriveLocked(call.VolumeID)
	d.modifyCalls = append(d.modifyCalls, call)
	i := len(d.modifyCalls) - 1
	hook := d.faults.modifyHook
	d.mu.Unlock()
	d.observeModify(call)
	return i, hook
}

// modifyCallerGone records that the caller of the call at index i stopped waiting.
func (d *Driver) modifyCallerGone(i int) {
	d.mu.Lock()
	call := &d.modifyCalls[i]
	if !call.End.IsZero() || !call.CallerGone.IsZero() {
		d.mu.Unlock()
		return
	}
	call.CallerGone = time.Now()
	gone := *call
	d.mu.Unlock()
	d.observeModify(gone)
}

// endModify records the outcome of the call at index i.
func (d *Driver) endModify(i int, err error) {
	d.mu.Lock()
	call := &d.modifyCalls[i]
	call.End = time.Now()
	call.Code = status.Code(err)
	d.leaveLocked(call.VolumeID)
	ended := *call
	d.mu.Unlock()
	d.observeModify(ended)
}

// observeModify hands a copy of call to Config.OnModifyCall.
func (d *Driver) observeModify(call ModifyCall) {
	if d.cfg.OnModifyCall == nil {
		return
	}
	d.cfg.OnModifyCall(call.clone())
}

// ModifyCalls returns a copy of every ControllerModifyVolume call so far, in
// order of arrival, including calls still running.
func (d *Driver) ModifyCalls() []ModifyCall {
	d.mu.Lock()
	defer d.mu.Unlock()
	calls := make([]ModifyCall, len(d.modifyCalls))
	for i, c := range d.modifyCalls {
		calls[i] = c.clone()
	}
	return calls
}

func (c ModifyCall) clone() ModifyCall {
	c.MutableParameters = maps.Clone(c.MutableParameters)
	c.Secrets = maps.Clone(c.Secrets)
	return c
}
