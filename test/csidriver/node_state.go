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
	"slices"
)

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

// clone returns a copy of nv that shares nothing with it.
func (nv NodeVolume) clone() NodeVolume {
	nv.Staged = slices.Clone(nv.Staged)
	nv.Published = slices.Clone(nv.Published)
	return nv
}

// NodeVolume returns what the node side knows of volumeID, and whether it
// was ever staged.
func (d *Driver) NodeVolume(volumeID string) (NodeVolume, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	nv, ok := d.node[volumeID]
	return nv.clone(), ok
}

// FileSystemSize returns the size of the file system on volumeID, and
// whether the volume was ever staged (and so has one).
func (d *Driver) FileSystemSize(volumeID string) (int64, bool) {
	nv, ok := d.NodeVolume(volumeID)
	return nv.FileSystemBytes, ok
}

// withPath returns paths, sorted, with p in it once.
func withPath(paths []string, p string) []string {
	i, found := slices.BinarySearch(paths, p)
	if found {
		return paths
	}
	return slices.Insert(slices.Clone(paths), i, p)
}

// withoutPath returns paths without p.
func withoutPath(paths []string, p string) []string {
	i, found := slices.BinarySearch(paths, p)
	if !found {
		return paths
	}
	return slices.Delete(slices.Clone(paths), i, i+1)
}
