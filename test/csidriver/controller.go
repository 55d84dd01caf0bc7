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
	"math"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// ControllerGetCapabilities returns EXPAND_VOLUME, SINGLE_NODE_MULTI_WRITER
// and MODIFY_VOLUME as configured.
func (d *Driver) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	var caps []*csi.ControllerServiceCapability
	for _, e := range []struct {
		on  bool
		typ csi.ControllerServiceCapability_RPC_Type
	}{
		{d.cfg.ControllerExpand, csi.ControllerServiceCapability_RPC_EXPAND_VOLUME},
		{d.cfg.SingleNodeMultiWriter, csi.ControllerServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER},
		{d.cfg.ControllerModify, csi.ControllerServiceCapability_RPC_MODIFY_VOLUME},
	} {
		if e.on {
			caps = append(caps, &csi.ControllerServiceCapability{Type: &csi.ControllerServiceCapability_Rpc{
				Rpc: &csi.ControllerServiceCapability_RPC{Type: e.typ},
			}})
		}
	}
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: caps}, nil
}

// ControllerExpandVolume records the call, suffers the armed faults and then
// grows the volume: it answers capacity_bytes = required bytes (rounded up to
// Config.AllocationUnit), or the volume's size when that is larger, and
// node_expansion_required from the Config.
func (d *Driver) ControllerExpandVolume(ctx context.Context, req *csi.ControllerExpandVolumeRequest) (*csi.ControllerExpandVolumeResponse, error) {
	return d.expand.serve(d, ctx, req, d.expandVolume)
}

// expandVolume grows the volume of a call that no fault failed.
func (d *Driver) expandVolume(req *csi.ControllerExpandVolumeRequest, f callFaults) (*csi.ControllerExpandVolumeResponse, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := req.GetVolumeId()
	required := req.GetCapacityRange().GetRequiredBytes()
	limit := req.GetCapacityRange().GetLimitBytes()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "volume_id is required")
	case req.GetCapacityRange() == nil:
		return nil, status.Error(codes.InvalidArgument, "capacity_range is required")
	case required < 0 || limit < 0:
		return nil, status.Error(codes.InvalidArgument, "capacity_range must not be negative")
	case limit > 0 && required > limit:
		return nil, status.Errorf(codes.OutOfRange, "required_bytes %d exceeds limit_bytes %d", required, limit)
	}
	if required = roundUp(required, d.cfg.AllocationUnit); limit > 0 {
		required = min(required, limit)
	}
	size, known := d.volumes[id]
	if !known && d.cfg.StrictVolumes {
		return nil, status.Errorf(codes.NotFound, "volume %q not found", id)
	}
	if required > size || !known {
		size = max(size, required)
		if err := d.resizeLocked(id, size); err != nil {
			return nil, status.Errorf(codes.Internal, "expand volume %q: %v", id, err)
		}
	}
	if f.capacity != nil {
		size = *f.capacity
	}
	return &csi.ControllerExpandVolumeResponse{CapacityBytes: size, NodeExpansionRequired: d.cfg.NodeExpansionRequired}, nil
}

// roundUp rounds bytes up to a multiple of unit, when unit is positive and
// the multiple fits in an int64.
func roundUp(bytes, unit int64) int64 {
	if unit <= 0 || bytes%unit == 0 || bytes > math.MaxInt64-unit {
		return bytes
	}
	return (bytes/unit + 1) * unit
}

// AddVolume makes the driver know volumeID with size bytes, replacing any size
// it had. With Config.StateFile, a failure to save the new size is logged.
func (d *Driver) AddVolume(volumeID string, size int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.resizeLocked(volumeID, size); err != nil {
		klog.Background().Error(err, "Failed to save test driver volume", "volumeID", volumeID)
	}
}

// VolumeSize returns the size of volumeID and whether the driver knows it.
func (d *Driver) VolumeSize(volumeID string) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	size, ok := d.volumes[volumeID]
	return size, ok
}
