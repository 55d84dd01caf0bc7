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
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// ExpandCall is one ControllerExpandVolume call as the driver received it.
type ExpandCall struct {
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
	// Code is the gRPC code the call returned (OK while it runs).
	Code codes.Code
	// CapacityBytes and NodeExpansionRequired are what a successful call answered.
	CapacityBytes         int64
	NodeExpansionRequired bool
}

// beginCall records the arrival of req and returns its index in the log and
// the hook to run, if any.
func (d *Driver) beginCall(req *csi.ControllerExpandVolumeRequest) (int, ExpandHook) {
	call := ExpandCall{
		VolumeID:      req.GetVolumeId(),
		RequiredBytes: req.GetCapacityRange().GetRequiredBytes(),
		LimitBytes:    req.GetCapacityRange().GetLimitBytes(),
		Secrets:       maps.Clone(req.GetSecrets()),
		Capability:    cloneCapability(req.GetVolumeCapability()),
		Start:         time.Now(),
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, call)
	d.inFlight[call.VolumeID]++
	d.maxConcurrent[call.VolumeID] = max(d.maxConcurrent[call.VolumeID], d.inFlight[call.VolumeID])
	return len(d.calls) - 1, d.faults.hook
}

// endCall records the outcome of the call at index i.
func (d *Driver) endCall(i int, resp *csi.ControllerExpandVolumeResponse, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	call := &d.calls[i]
	call.End = time.Now()
	call.Code = status.Code(err)
	call.CapacityBytes = resp.GetCapacityBytes()
	call.NodeExpansionRequired = resp.GetNodeExpansionRequired()
	d.inFlight[call.VolumeID]--
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

// InFlight returns how many ControllerExpandVolume calls for volumeID are running now.
func (d *Driver) InFlight(volumeID string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inFlight[volumeID]
}

// MaxConcurrent returns the highest number of ControllerExpandVolume calls for
// volumeID that ever ran at the same time. Above 1 means two resizes of one
// volume overlapped.
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
