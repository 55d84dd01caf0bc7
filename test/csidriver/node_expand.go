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
	"slices"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// NodeExpandVolume grows the file system of a volume published at
// volume_path or staged at staging_target_path to required_bytes (0 means
// the volume's size), and answers the file system's new size. The file
// system cannot outgrow the volume: a larger size is OutOfRange, unless the
// driver is node-only (no controller expansion), where the node grows the
// volume too. A driver without Config.NodeExpand answers Unimplemented.
func (d *Driver) NodeExpandVolume(ctx context.Context, req *csi.NodeExpandVolumeRequest) (*csi.NodeExpandVolumeResponse, error) {
	if !d.cfg.NodeExpand {
		return nil, status.Error(codes.Unimplemented, "the node does not advertise EXPAND_VOLUME")
	}
	d.mu.Lock()
	f := callFaults{delay: d.faults.nodeExpandDelay, hold: d.faults.nodeExpandHold}
	d.mu.Unlock()
	if err := f.suffer(ctx); err != nil {
		return nil, err
	}

	id, volumePath, staging := req.GetVolumeId(), req.GetVolumePath(), req.GetStagingTargetPath()
	required, limit := req.GetCapacityRange().GetRequiredBytes(), req.GetCapacityRange().GetLimitBytes()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "volume_id is required")
	case volumePath == "":
		return nil, status.Error(codes.InvalidArgument, "volume_path is required")
	case required < 0 || limit < 0:
		return nil, status.Error(codes.InvalidArgument, "capacity_range must not be negative")
	case limit > 0 && required > limit:
		return nil, status.Errorf(codes.OutOfRange, "required_bytes %d exceeds limit_bytes %d", required, limit)
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	nv, ok := d.node[id]
	if !ok || !slices.Contains(nv.Published, volumePath) && (staging == "" || !slices.Contains(nv.Staged, staging)) {
		if staging == "" {
			return nil, status.Errorf(codes.NotFound, "volume %q is not published at %q", id, volumePath)
		}
		return nil, status.Errorf(codes.NotFound, "volume %q is neither published at %q nor staged at %q", id, volumePath, staging)
	}
	size := d.volumes[id]
	if required == 0 {
		required = size
	}
	if required > size {
		if !d.nodeOnly() {
			return nil, status.Errorf(codes.OutOfRange, "cannot grow the file system to %d bytes beyond the volume's %d bytes", required, size)
		}
		if err := d.resizeLocked(id, required); err != nil {
			return nil, status.Errorf(codes.Internal, "expand volume %q: %v", id, err)
		}
	}
	if required > nv.FileSystemBytes {
		nv.FileSystemBytes = required
		if err := d.setNodeLocked(id, nv); err != nil {
			return nil, status.Errorf(codes.Internal, "expand the file system of volume %q: %v", id, err)
		}
	}
	return &csi.NodeExpandVolumeResponse{CapacityBytes: nv.FileSystemBytes}, nil
}

// nodeOnly reports whether the volumes are expanded on the node alone: the
// controller does not advertise EXPAND_VOLUME (or is not there).
func (d *Driver) nodeOnly() bool {
	return !d.cfg.ControllerExpand || d.cfg.NoControllerService
}

// SetNodeExpandDelay makes every NodeExpandVolume call wait delay before it
// is served, as SetExpandDelay does for ControllerExpandVolume. Zero
// removes the delay.
func (d *Driver) SetNodeExpandDelay(delay time.Duration) {
	d.locked(func() { d.faults.nodeExpandDelay = delay })
}

// HoldNodeExpand holds NodeExpandVolume calls as HoldExpand holds
// ControllerExpandVolume calls.
func (d *Driver) HoldNodeExpand() (release func()) {
	return d.holdOn(&d.faults.nodeExpandHold)
}
