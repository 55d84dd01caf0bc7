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

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ControllerModifyVolume records the call, suffers the armed faults and then
// applies the request's mutable parameters to the volume. They are merged
// into the parameters applied before (a key that is not sent keeps its
// value), as a backend changes only the attributes it is asked to change.
func (d *Driver) ControllerModifyVolume(ctx context.Context, req *csi.ControllerModifyVolumeRequest) (*csi.ControllerModifyVolumeResponse, error) {
	return d.modify.serve(d, ctx, req, d.modifyVolume)
}

// modifyVolume applies the parameters of a call that no fault failed.
func (d *Driver) modifyVolume(req *csi.ControllerModifyVolumeRequest, _ callFaults) (*csi.ControllerModifyVolumeResponse, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := req.GetVolumeId()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "volume_id is required")
	}
	_, sized := d.volumes[id]
	applied, modified := d.parameters[id]
	if !sized && !modified && d.cfg.StrictVolumes {
		return nil, status.Errorf(codes.NotFound, "volume %q not found", id)
	}
	applied = maps.Clone(applied)
	if applied == nil {
		applied = map[string]string{}
	}
	maps.Copy(applied, req.GetMutableParameters())
	if err := d.setParametersLocked(id, applied); err != nil {
		return nil, status.Errorf(codes.Internal, "modify volume %q: %v", id, err)
	}
	return &csi.ControllerModifyVolumeResponse{}, nil
}

// VolumeParameters returns a copy of the mutable parameters applied to
// volumeID so far, and whether any ControllerModifyVolume call succeeded
// for it.
func (d *Driver) VolumeParameters(volumeID string) (map[string]string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	params, ok := d.parameters[volumeID]
	return maps.Clone(params), ok
}
