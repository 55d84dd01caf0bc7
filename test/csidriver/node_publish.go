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
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// NodePublishVolume publishes a volume staged at staging_target_path at
// target_path. As the CSI spec makes it the plugin's job, it creates
// target_path: a directory for a mount volume, an empty file for a block
// volume (whose parent directory the CO creates). Publishing a volume again
// at the same path succeeds.
func (d *Driver) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	id, target, staging := req.GetVolumeId(), req.GetTargetPath(), req.GetStagingTargetPath()
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "volume_id is required")
	case target == "":
		return nil, status.Error(codes.InvalidArgument, "target_path is required")
	case req.GetVolumeCapability() == nil:
		return nil, status.Error(codes.InvalidArgument, "volume_capability is required")
	case staging == "":
		// The spec's answer when STAGE_UNSTAGE_VOLUME is advertised.
		return nil, status.Error(codes.FailedPrecondition, "staging_target_path is required: the plugin stages volumes")
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.knownVolumeLocked(id, false); err != nil {
		return nil, err
	}
	nv := d.node[id] // an unknown volume is not staged either
	if !slices.Contains(nv.Staged, staging) {
		return nil, status.Errorf(codes.FailedPrecondition, "volume %q is not staged at %q", id, staging)
	}
	if err := createTarget(target, req.GetVolumeCapability().GetBlock() != nil); err != nil {
		return nil, status.Errorf(codes.Internal, "publish volume %q: %v", id, err)
	}
	published := withPath(nv.Published, target)
	if len(published) == len(nv.Published) {
		return &csi.NodePublishVolumeResponse{}, nil
	}
	nv.Published = published
	if err := d.setNodeLocked(id, nv); err != nil {
		return nil, status.Errorf(codes.Internal, "publish volume %q: %v", id, err)
	}
	return &csi.NodePublishVolumeResponse{}, nil
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
	switch {
	case id == "":
		return nil, status.Error(codes.InvalidArgument, "volume_id is required")
	case target == "":
		return nil, status.Error(codes.InvalidArgument, "target_path is required")
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.knownVolumeLocked(id, false); err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Clean(target)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, status.Errorf(codes.Internal, "unpublish volume %q: %v", id, err)
	}
	nv, ok := d.node[id]
	published := withoutPath(nv.Published, target)
	if !ok || len(published) == len(nv.Published) {
		return &csi.NodeUnpublishVolumeResponse{}, nil
	}
	nv.Published = published
	if err := d.setNodeLocked(id, nv); err != nil {
		return nil, status.Errorf(codes.Internal, "unpublish volume %q: %v", id, err)
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}
