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
}

// ReadState returns the volume sizes saved in a state file; a missing file
// holds no volumes.
func ReadState(path string) (map[string]int64, error) {
	volumes := map[string]int64{}
	if path == "" {
		return volumes, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return volumes, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read driver state: %w", err)
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("read driver state %s: %w", path, err)
	}
	maps.Copy(volumes, s.Volumes)
	return volumes, nil
}

// WriteState replaces the state file at path with volumes. The new content
// is renamed into place, so that a driver killed while writing leaves the
// old state or the new one, never half of it.
func WriteState(path string, volumes map[string]int64) error {
	data, err := json.Marshal(state{Volumes: volumes})
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
	old, known := d.volumes[id]
	d.volumes[id] = size
	if d.cfg.StateFile == "" {
		return nil
	}
	if err := WriteState(d.cfg.StateFile, d.volumes); err != nil {
		if known {
			d.volumes[id] = old
		} else {
			delete(d.volumes, id)
		}
		return err
	}
	return nil
}
