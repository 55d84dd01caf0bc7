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
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// ControllerGetCapabilities returns EXPAND_VOLUME, SINGLE_NODE_MULTI_WRITER
// and MODIFY_VOLUME as configured.
func (d *Driver) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	var caps []*csi.ControllerServiceCapability
	for _, typ := range enabled([]csi.ControllerServiceCapability_RPC_Type{csi.ControllerServiceCapability_RPC_EXPAND_VOLUME,
		csi.ControllerServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER, csi.ControllerServiceCapability_RPC_MODIFY_VOLUME},
		d.cfg.ControllerExpand, d.cfg.SingleNodeMultiWriter, d.cfg.ControllerModify) {
		caps = append(caps, &csi.ControllerServiceCapability{Type: &csi.ControllerServiceCapability_Rpc{
			Rpc: &csi.ControllerServiceCapability_RPC{Type: typ},
		}})
	}
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: caps}, nil
}

// ControllerExpandVolume grows the volume: it answers capacity_bytes =
// required bytes (rounded up to Config.AllocationUnit), or the volume's size
// when that is larger, and node_expansion_required from the Config.
func (d *Driver) ControllerExpandVolume(_ context.Context, req *csi.ControllerExpandVolumeRequest) (*csi.ControllerExpandVolumeResponse, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := req.GetVolumeId()
	required, limit := req.GetCapacityRange().GetRequiredBytes(), req.GetCapacityRange().GetLimitBytes()
	err := missing("volume_id", id)
	if err == nil && req.GetCapacityRange() == nil {
		err = status.Error(codes.InvalidArgument, "capacity_range is required")
	}
	if err = cmp.Or(err, checkRange(required, limit)); err != nil {
		return nil, err
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
	return &csi.ControllerExpandVolumeResponse{CapacityBytes: size, NodeExpansionRequired: d.cfg.NodeExpansionRequired}, nil
}

// missing returns InvalidArgument for the first of the name, value pairs
// whose value is empty, or nil.
func missing(pairs ...string) error {
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return status.Errorf(codes.InvalidArgument, "%s is required", pairs[i])
		}
	}
	return nil
}

// checkRange checks the required and limit bytes of a capacity_range.
func checkRange(required, limit int64) error {
	switch {
	case required < 0 || limit < 0:
		return status.Error(codes.InvalidArgument, "capacity_range must not be negative")
	case limit > 0 && required > limit:
		return status.Errorf(codes.OutOfRange, "required_bytes %d exceeds limit_bytes %d", required, limit)
	}
	return nil
}

// roundUp rounds bytes up to a multiple of unit, when unit is positive and
// the multiple fits in an int64.
func roundUp(bytes, unit int64) int64 {
	if unit <= 0 || bytes%unit == 0 || bytes > math.MaxInt64-unit {
		return bytes
	}
	return (bytes/unit + 1) * unit
}

// ControllerModifyVolume applies the request's mutable parameters to the
// volume. They are merged into the parameters applied before (a key that is
// not sent keeps its value), as a backend changes only the attributes it is
// asked to change.
func (d *Driver) ControllerModifyVolume(_ context.Context, req *csi.ControllerModifyVolumeRequest) (*csi.ControllerModifyVolumeResponse, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	id := req.GetVolumeId()
	if err := missing("volume_id", id); err != nil {
		return nil, err
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
	if err := putLocked(d, d.parameters, id, applied); err != nil {
		return nil, status.Errorf(codes.Internal, "modify volume %q: %v", id, err)
	}
	return &csi.ControllerModifyVolumeResponse{}, nil
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

// VolumeParameters returns a copy of the mutable parameters applied to
// volumeID so far, and whether any ControllerModifyVolume call succeeded for it.
func (d *Driver) VolumeParameters(volumeID string) (map[string]string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	params, ok := d.parameters[volumeID]
	return maps.Clone(params), ok
}

// state is the content of Config.StateFile. State files written before
// ControllerModifyVolume or the Node service were served have no Parameters
// or Node.
type state struct {
	Volumes    map[string]int64             `json:"volumes"`              // volume ID -> size in bytes
	Parameters map[string]map[string]string `json:"parameters,omitempty"` // volume ID -> applied mutable parameters
	Node       map[string]NodeVolume        `json:"node,omitempty"`       // volume ID -> what the node side did with it
}

// ReadState returns the volume sizes saved in a state file; a missing file
// holds no volumes.
func ReadState(path string) (map[string]int64, error) {
	s, err := readState(path)
	return s.Volumes, err
}

// ReadVolumeParameters returns the applied mutable parameters of each volume
// saved in a state file; a missing file holds none.
func ReadVolumeParameters(path string) (map[string]map[string]string, error) {
	s, err := readState(path)
	return s.Parameters, err
}

// ReadNodeVolumes returns what the node side of the driver knew of each
// volume, as saved in a state file; a missing file holds none.
func ReadNodeVolumes(path string) (map[string]NodeVolume, error) {
	s, err := readState(path)
	return s.Node, err
}

// readState reads a state file into maps that are never nil.
func readState(path string) (state, error) {
	s := state{Volumes: map[string]int64{}, Parameters: map[string]map[string]string{}, Node: map[string]NodeVolume{}}
	if path == "" {
		return s, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return state{}, fmt.Errorf("read driver state: %w", err)
	}
	var saved state
	if err := json.Unmarshal(data, &saved); err != nil {
		return state{}, fmt.Errorf("read driver state %s: %w", path, err)
	}
	maps.Copy(s.Volumes, saved.Volumes)
	maps.Copy(s.Parameters, saved.Parameters)
	maps.Copy(s.Node, saved.Node)
	return s, nil
}

// WriteState replaces the state file at path with volumes, and no mutable
// parameters. The new content is renamed into place, so that a driver killed
// while writing leaves the old state or the new one, never half of it.
func WriteState(path string, volumes map[string]int64) error {
	return writeState(path, state{Volumes: volumes})
}

func writeState(path string, s state) error {
	data, err := json.Marshal(s)
	if err == nil {
		err = replaceFile(path, data)
	}
	if err != nil {
		return fmt.Errorf("write driver state: %w", err)
	}
	return nil
}

// resizeLocked sets the size of a volume and saves the state, as putLocked.
func (d *Driver) resizeLocked(id string, size int64) error {
	return putLocked(d, d.volumes, id, size)
}

// putLocked sets m[id] (one of the maps of d's state) and saves the state, if
// the driver keeps one; on a failure to save, m is left as it was. d.mu must
// be held, so that saves happen in the order of the changes.
func putLocked[V any](d *Driver, m map[string]V, id string, v V) error {
	old, known := m[id]
	m[id] = v
	if d.cfg.StateFile == "" {
		return nil
	}
	if err := writeState(d.cfg.StateFile, state{Volumes: d.volumes, Parameters: d.parameters, Node: d.node}); err != nil {
		if known {
			m[id] = old
		} else {
			delete(m, id)
		}
		return err
	}
	return nil
}
