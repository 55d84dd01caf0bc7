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
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DefaultNodeID is what NodeGetInfo answers when Config.NodeID is empty.
const DefaultNodeID = "csi-test-node"

// NodeVolume is what the node side of the driver knows of a volume: the file
// system it "made" on it when the volume was first staged, and where the
// volume is staged and published now. With Config.StateFile it survives
// restarts of the driver, as mounts and file systems survive a real driver's
// restart.
type NodeVolume struct {
	// FileSystemBytes is the size of the volume's file system: the volume's
	// size when it was first staged, grown by NodeExpandVolume. It stays
	// when the volume is unstaged.
	FileSystemBytes int64 `json:"fileSystemBytes"`
	// Staged are the staging_target_paths the volume is staged at, sorted.
	Staged []string `json:"staged,omitempty"`
	// Published are the target_paths the volume is published at, sorted.
	Published []string `json:"published,omitempty"`
}

// NodeGetCapabilities returns STAGE_UNSTAGE_VOLUME, and EXPAND_VOLUME when
// Config.NodeExpand is set.
func (d *Driver) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	var caps []*csi.NodeServiceCapability
	for _, typ := range enabled([]csi.NodeServiceCapability_RPC_Type{csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME,
		csi.NodeServiceCapability_RPC_EXPAND_VOLUME}, true, d.cfg.NodeExpand) {
		caps = append(caps, &csi.NodeServiceCapability{Type: &csi.NodeServiceCapability_Rpc{
			Rpc: &csi.NodeServiceCapability_RPC{Type: typ},
		}})
	}
	return &csi.NodeGetCapabilitiesResponse{Capabilities: caps}, nil
}

// NodeGetInfo returns Config.NodeID (DefaultNodeID when empty), with no
// topology and no limit of volumes.
func (d *Driver) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: cmp.Or(d.cfg.NodeID, DefaultNodeID)}, nil
}

// NodeStageVolume stages a volume at staging_target_path, which must be an
// existing directory (the CO creates it). The first staging of a volume
// makes its file system, as large as the volume. Staging a volume again at
// the same path succeeds and changes nothing.
func (d *Driver) NodeStageVolume(_ context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	id, staging := req.GetVolumeId(), req.GetStagingTargetPath()
	if err := cmp.Or(missing("volume_id", id, "staging_target_path", staging), needCapability(req.GetVolumeCapability())); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(staging); err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "stage volume %q: staging_target_path: %v", id, err)
	} else if !fi.IsDir() {
		return nil, status.Errorf(codes.FailedPrecondition, "stage volume %q: staging_target_path %q is not a directory", id, staging)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	size, err := d.knownVolumeLocked(id, true)
	if err == nil {
		err = d.updateNodeLocked("stage volume", id, func(nv *NodeVolume, formatted bool) bool {
			if !formatted {
				nv.FileSystemBytes = size
			}
			return setPath(&nv.Staged, staging, true) || !formatted
		})
	}
	return respond(&csi.NodeStageVolumeResponse{}, err)
}

// NodeUnstageVolume unstages a volume from staging_target_path. It leaves
// the directory to the CO, which created it, and keeps the volume's file
// system. Unstaging a volume that is not staged there succeeds.
func (d *Driver) NodeUnstageVolume(_ context.Context, req *csi.NodeUnstageVolumeRequest) (*csi.NodeUnstageVolumeResponse, error) {
	id, staging := req.GetVolumeId(), req.GetStagingTargetPath()
	if err := missing("volume_id", id, "staging_target_path", staging); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err := d.knownVolumeLocked(id, false)
	if err == nil {
		err = d.updateNodeLocked("unstage volume", id, func(nv *NodeVolume, _ bool) bool { return setPath(&nv.Staged, staging, false) })
	}
	return respond(&csi.NodeUnstageVolumeResponse{}, err)
}

// NodePublishVolume publishes a volume staged at staging_target_path at
// target_path. As the CSI spec makes it the plugin's job, it creates
// target_path: a directory for a mount volume, an empty file for a block
// volume (whose parent directory the CO creates). Publishing a volume again
// at the same path succeeds.
func (d *Driver) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	id, target, staging := req.GetVolumeId(), req.GetTargetPath(), req.GetStagingTargetPath()
	if err := cmp.Or(missing("volume_id", id, "target_path", target), needCapability(req.GetVolumeCapability())); err != nil {
		return nil, err
	} else if staging == "" {
		// The spec's answer when STAGE_UNSTAGE_VOLUME is advertised.
		return nil, status.Error(codes.FailedPrecondition, "staging_target_path is required: the plugin stages volumes")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.knownVolumeLocked(id, false); err != nil {
		return nil, err
	}
	if !slices.Contains(d.node[id].Staged, staging) { // an unknown volume is not staged either
		return nil, status.Errorf(codes.FailedPrecondition, "volume %q is not staged at %q", id, staging)
	}
	if err := createTarget(target, req.GetVolumeCapability().GetBlock() != nil); err != nil {
		return nil, status.Errorf(codes.Internal, "publish volume %q: %v", id, err)
	}
	err := d.updateNodeLocked("publish volume", id, func(nv *NodeVolume, _ bool) bool { return setPath(&nv.Published, target, true) })
	return respond(&csi.NodePublishVolumeResponse{}, err)
}

// createTarget creates the target path of a publication, unless it exists.
func createTarget(target string, block bool) error {
	if !block {
		return os.MkdirAll(target, 0o750)
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	return f.Close()
}

// NodeUnpublishVolume unpublishes a volume from target_path and removes
// target_path, which the plugin created; a missing target_path is fine.
// Unpublishing a volume that is not published there succeeds.
func (d *Driver) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	id, target := req.GetVolumeId(), req.GetTargetPath()
	if err := missing("volume_id", id, "target_path", target); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.knownVolumeLocked(id, false); err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Clean(target)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, status.Errorf(codes.Internal, "unpublish volume %q: %v", id, err)
	}
	err := d.updateNodeLocked("unpublish volume", id, func(nv *NodeVolume, _ bool) bool { return setPath(&nv.Published, target, false) })
	return respond(&csi.NodeUnpublishVolumeResponse{}, err)
}

// NodeExpandVolume grows the file system of a volume published at
// volume_path or staged at staging_target_path to required_bytes (0 means
// the volume's size), and answers the file system's new size. The file
// system cannot outgrow the volume: a larger size is OutOfRange, unless the
// driver is node-only (no controller expansion), where the node grows the
// volume too. A driver without Config.NodeExpand answers Unimplemented.
func (d *Driver) NodeExpandVolume(_ context.Context, req *csi.NodeExpandVolumeRequest) (*csi.NodeExpandVolumeResponse, error) {
	if !d.cfg.NodeExpand {
		return nil, status.Error(codes.Unimplemented, "the node does not advertise EXPAND_VOLUME")
	}
	id, volumePath, staging := req.GetVolumeId(), req.GetVolumePath(), req.GetStagingTargetPath()
	required, limit := req.GetCapacityRange().GetRequiredBytes(), req.GetCapacityRange().GetLimitBytes()
	if err := cmp.Or(missing("volume_id", id, "volume_path", volumePath), checkRange(required, limit)); err != nil {
		return nil, err
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
	required = cmp.Or(required, size)
	if required > size {
		if d.cfg.ControllerExpand && !d.cfg.NoControllerService { // not node-only
			return nil, status.Errorf(codes.OutOfRange, "cannot grow the file system to %d bytes beyond the volume's %d bytes", required, size)
		}
		if err := d.resizeLocked(id, required); err != nil {
			return nil, status.Errorf(codes.Internal, "expand volume %q: %v", id, err)
		}
	}
	err := d.updateNodeLocked("expand the file system of volume", id, func(nv *NodeVolume, _ bool) bool {
		grow := required > nv.FileSystemBytes
		nv.FileSystemBytes = max(nv.FileSystemBytes, required)
		return grow
	})
	if err != nil {
		return nil, err
	}
	return &csi.NodeExpandVolumeResponse{CapacityBytes: max(nv.FileSystemBytes, required)}, nil
}

// needCapability fails a request without volume_capability.
func needCapability(c *csi.VolumeCapability) error {
	if c == nil {
		return status.Error(codes.InvalidArgument, "volume_capability is required")
	}
	return nil
}

// respond returns resp, or err when it is not nil.
func respond[R any](resp *R, err error) (*R, error) {
	if err != nil {
		return nil, err
	}
	return resp, nil
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

// updateNodeLocked applies change to what the node side knows of volume id
// (and whether it knows it) and, when change reports a change, saves it; a
// failure to save is Internal, its message led by what. d.mu must be held.
func (d *Driver) updateNodeLocked(what, id string, change func(nv *NodeVolume, known bool) bool) error {
	nv, known := d.node[id]
	if !change(&nv, known) {
		return nil
	}
	if err := putLocked(d, d.node, id, nv); err != nil {
		return status.Errorf(codes.Internal, "%s %q: %v", what, id, err)
	}
	return nil
}

// setPath adds p to the sorted paths, or removes it, on a copy, and reports
// whether that changed them.
func setPath(paths *[]string, p string, add bool) bool {
	switch i, found := slices.BinarySearch(*paths, p); {
	case add && !found:
		*paths = slices.Insert(slices.Clone(*paths), i, p)
	case !add && found:
		*paths = slices.Delete(slices.Clone(*paths), i, i+1)
	default:
		return false
	}
	return true
}
