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
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
)

// state is the content of Config.StateFile.
type state struct {
	// Volumes maps volume IDs to sizes in bytes.
	Volumes map[string]int64 `json:"volumes"`
	// Parameters maps volume IDs to their applied mutable parameters. State
	// files written before ControllerModifyVolume was served have none.
	Parameters map[string]map[string]string `json:"parameters,omitempty"`
	// Node maps volume IDs to what the node side did with them. State
	// files written before the Node service was served have none.
	Node map[string]NodeVolume `json:"node,omitempty"`
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
	if err != nil {
		return fmt.Errorf("write driver state: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write driver state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write driver state: %w", err)
	}
	return nil
}

// resizeLocked sets the size of a volume and saves the state, if the driver
// keeps one; on a failure to save, the size is left as it was. d.mu must be
// held, so that saves happen in the order of the changes.
func (d *Driver) resizeLocked(id string, size int64) error {
	return putLocked(d, d.volumes, id, size)
}

// setParametersLocked sets the applied mutable parameters of a volume and
// saves the state, as resizeLocked does for its size.
func (d *Driver) setParametersLocked(id string, params map[string]string) error {
	return putLocked(d, d.parameters, id, params)
}

// setNodeLocked sets what the node side knows of a volume and saves the
// state, as resizeLocked does for its size.
func (d *Driver) setNodeLocked(id string, nv NodeVolume) error {
	return putLocked(d, d.node, id, nv)
}

// putLocked sets m[id] (one of the maps of d's state) and saves the state;
// on a failure to save, m is left as it was. d.mu must be held.
func putLocked[V any](d *Driver, m map[string]V, id string, v V) error {
	old, known := m[id]
	m[id] = v
	if err := d.saveLocked(); err != nil {
		if known {
			m[id] = old
		} else {
			delete(m, id)
		}
		return err
	}
	return nil
}

// saveLocked writes the state file, if the driver keeps one. d.mu must be held.
func (d *Driver) saveLocked() error {
	if d.cfg.StateFile == "" {
		return nil
	}
	return writeState(d.cfg.StateFile, state{Volumes: d.volumes, Parameters: d.parameters, Node: d.node})
}
