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
	"os"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DefaultNodeID is what NodeGetInfo answers when Config.NodeID is empty.
const DefaultNodeID = "csi-test-node"

// NodeGetCapabilities returns STAGE_UNSTAGE_VOLUME, and EXPAND_VOLUME when
// Config.NodeExpand is set. With Config.NoNodeService the Node service is not
// registered and callers get Unimplemented instead.
func (d *Driver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	types := []csi.NodeServiceCapability_RPC_Type{csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME}
	if d.cfg.NodeExpand {
		types = append(types, csi.NodeServiceCapability_RPC_EXPAND_VOLUME)
	}
	caps := make([]*csi.NodeServiceCapability, 0, len(types))
	for _, typ := range types {
		caps = append(caps, &csi.NodeServiceCapability{Type: &csi.NodeServiceCapability_Rpc{
			Rpc: &csi.NodeServiceCapability_RPC{Type: typ},
		}})
	}
	return &csi.NodeGetCapabilitiesResponse{Capabilities: caps}, nil
}

// NodeGetInfo returns Config.NodeID (DefaultNodeID when empty), with no
// topology and no limit of volumes.
func (d *Driver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	id := d.cfg.NodeID
	if id == "" {
		id = DefaultNodeID
	}
	return &csi.NodeGetInfoResponse{NodeId: id}, nil
}

// NodeStageVolume stages a volume at staging_target_path, which must be an
// existing directory (the CO creates it). The first staging of a volume
// makes its file system, as large as the volume. Staging a volume again at
// the same path succeeds and changes nothing.
func (d *Driver) NodeStageVolume(_ context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	id, staging := req.GetVolumeId(), req.GetStagingTargetPath()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "volume_id is required")
	case staging == "":
		return nil, status.Error(codes.InvalidArgument, "staging_target_path is required")
	case req.GetVolumeCapability() == nil:
		return nil, status.Error(codes.InvalidArgument, "volume_capability is required")
	}
	if fi, err := os.Stat(staging); err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "stage volume %q: staging_target_path: %v", id, err)
	} else if !fi.IsDir() {
		return nil, status.Errorf(codes.FailedPrecondition, "stage volume %q: staging_target_path %q is not a directory", id, staging)
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	size, err := d.knownVolumeLocked(id, true)
	if err != nil {
		return nil, err
	}
	nv, formatted := d.node[id]
	if !formatted {
		nv.FileSystemBytes = size
	}
	staged := withPath(nv.Staged, staging)
	if formatted && len(staged) == len(nv.Staged) {
		return &csi.NodeStageVolumeResponse{}, nil
	}
	nv.Staged = staged
	if err := d.setNodeLocked(id, nv); err != nil {
		return nil, status.Errorf(codes.Internal, "stage volume %q: %v", id, err)
	}
	return &csi.NodeStageVolumeResponse{}, nil
}

// NodeUnstageVolume unstages a volume from staging_target_path. It leaves
// the directory to the CO, which created it, and keeps the volume's file
// system. Unstaging a volume that is not staged there succeeds.
func (d *Driver) NodeUnstageVolume(_ context.Context, req *csi.NodeUnstageVolumeRequest) (*csi.NodeUnstageVolumeResponse, error) {
	id, staging := req.GetVolumeId(), req.GetStagingTargetPath()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "volume_id is required")
	case staging == "":
		return nil, status.Error(codes.InvalidArgument, "staging_target_path is required")
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.knownVolumeLocked(id, false); err != nil {
		return nil, err
	}
	nv, ok := d.node[id]
	staged := withoutPath(nv.Staged, staging)
	if !ok || len(staged) == len(nv.Staged) {
		return &csi.NodeUnstageVolumeResponse{}, nil
	}
	nv.Staged = staged
	if err := d.setNodeLocked(id, nv); err != nil {
		return nil, status.Errorf(codes.Internal, "unstage volume %q: %v", id, err)
	}
	return &csi.NodeUnstageVolumeResponse{}, nil
}

// knownVolumeLocked returns the size of volume id. An unknown volume is
// NotFound with Config.StrictVolumes; otherwise, when create is set, it is
// created empty, as the controller side creates one at its first use. d.mu
// must be held.
func (d *Driver) knownVolumeLocked(id string, create bool) (int64, error) {
	if size, ok := d.volumes[id]; ok {
		return size, nil
	}
	if d.cfg.StrictVolumes {
		return 0, status.Errorf(codes.NotFound, "volume %q not found", id)
	}
	if create {
		if err := d.resizeLocked(id, 0); err != nil {
			return 0, status.Errorf(codes.Internal, "create volume %q: %v", id, err)
		}
	}
	return 0, nil
}
