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
	"maps"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

// ControllerCall is what the records of ControllerExpandVolume and
// ControllerModifyVolume calls share (ExpandCall, ModifyCall).
type ControllerCall struct {
	// Seq numbers the calls of one driver from 1, in order of arrival; the
	// ControllerExpandVolume, ControllerModifyVolume and node calls share
	// the numbers.
	Seq int
	// Pid is the process that made the call (0 when unknown), from the
	// socket's peer credentials.
	Pid int
	// VolumeID is the request's volume_id.
	VolumeID string
	// Secrets are the request's secrets, exactly as received.
	Secrets map[string]string
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
}

// ExpandCall is one ControllerExpandVolume call as the driver received it.
type ExpandCall struct {
	ControllerCall
	// RequiredBytes and LimitBytes are the request's capacity_range.
	RequiredBytes, LimitBytes int64
	// Capability is the request's volume_capability (nil when not sent).
	Capability *csi.VolumeCapability
	// CapacityBytes and NodeExpansionRequired are what a successful call answered.
	CapacityBytes         int64
	NodeExpansionRequired bool
}

// ModifyCall is one ControllerModifyVolume call as the driver received it.
type ModifyCall struct {
	ControllerCall
	// MutableParameters are the request's mutable_parameters.
	MutableParameters map[string]string
}

// expandOp is the record and the faults of ControllerExpandVolume.
type expandOp = controllerOp[*csi.ControllerExpandVolumeRequest, *csi.ControllerExpandVolumeResponse, ExpandCall, *ExpandCall]

// modifyOp is the record and the faults of ControllerModifyVolume.
type modifyOp = controllerOp[*csi.ControllerModifyVolumeRequest, *csi.ControllerModifyVolumeResponse, ModifyCall, *ModifyCall]

// Calls returns a copy of every ControllerExpandVolume call so far, in order
// of arrival, including calls still running.
func (d *Driver) Calls() []ExpandCall {
	return d.expand.snapshot(d)
}

// ModifyCalls returns a copy of every ControllerModifyVolume call so far, in
// order of arrival, including calls still running.
func (d *Driver) ModifyCalls() []ModifyCall {
	return d.modify.snapshot(d)
}

func (c *ExpandCall) shared() *ControllerCall { return &c.ControllerCall }

func (c *ExpandCall) request(req *csi.ControllerExpandVolumeRequest) {
	c.RequiredBytes = req.GetCapacityRange().GetRequiredBytes()
	c.LimitBytes = req.GetCapacityRange().GetLimitBytes()
	c.Capability = cloneCapability(req.GetVolumeCapability())
}

func (c *ExpandCall) answered(resp *csi.ControllerExpandVolumeResponse) {
	c.CapacityBytes = resp.GetCapacityBytes()
	c.NodeExpansionRequired = resp.GetNodeExpansionRequired()
}

func (c *ExpandCall) clone() ExpandCall {
	out := *c
	out.Secrets = maps.Clone(c.Secrets)
	out.Capability = cloneCapability(c.Capability)
	return out
}

func (c *ModifyCall) shared() *ControllerCall { return &c.ControllerCall }

func (c *ModifyCall) request(req *csi.ControllerModifyVolumeRequest) {
	c.MutableParameters = maps.Clone(req.GetMutableParameters())
}

func (c *ModifyCall) answered(*csi.ControllerModifyVolumeResponse) {}

func (c *ModifyCall) clone() ModifyCall {
	out := *c
	out.Secrets = maps.Clone(c.Secrets)
	out.MutableParameters = maps.Clone(c.MutableParameters)
	return out
}

func cloneCapability(c *csi.VolumeCapability) *csi.VolumeCapability {
	if c == nil {
		return nil
	}
	return proto.Clone(c).(*csi.VolumeCapability)
}
