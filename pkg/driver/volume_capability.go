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

package driver

import (
	"errors"
	"fmt"
	"slices"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/accessmodes"
	v1 "k8s.io/api/core/v1"
)

// VolumeCapability builds the volume capability sent with ControllerExpandVolume
// from a CSI PV: Block for volumeMode Block, else Mount with the PV's fsType and
// mountOptions, and the access mode mapped from the PV's access modes
// (singleNodeMultiWriter is the driver's SINGLE_NODE_MULTI_WRITER capability).
// An in-tree PV must be translated to CSI first.
func VolumeCapability(pv *v1.PersistentVolume, singleNodeMultiWriter bool) (*csi.VolumeCapability, error) {
	if pv == nil {
		return nil, errors.New("build volume capability: no persistent volume")
	}
	if pv.Spec.CSI == nil {
		return nil, fmt.Errorf("build volume capability of PV %q: not a CSI volume", pv.Name)
	}
	mode, err := accessmodes.ToCSIAccessMode(pv.Spec.AccessModes, singleNodeMultiWriter)
	if err != nil {
		return nil, fmt.Errorf("build volume capability of PV %q: %w", pv.Name, err)
	}
	capability := &csi.VolumeCapability{AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode}}
	if pv.Spec.VolumeMode != nil && *pv.Spec.VolumeMode == v1.PersistentVolumeBlock {
		capability.AccessType = &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}}
	} else {
		capability.AccessType = &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{
			FsType:     pv.Spec.CSI.FSType,
			MountFlags: slices.Clone(pv.Spec.MountOptions),
		}}
	}
	return capability, nil
}
