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
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/accessmodes"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// Capabilities are what the driver can do for the resizer, read once at
// start-up: the controller (ControllerExpand, SingleNodeMultiWriter, which
// changes how access modes map to CSI, and ControllerModify: MODIFY_VOLUME),
// node (NodeExpand) and plugin (VolumeExpansion ONLINE, OFFLINE) capabilities.
type Capabilities struct {
	ControllerExpand, NodeExpand, OnlineExpansion, OfflineExpansion bool
	SingleNodeMultiWriter, ControllerModify                         bool
}

// Mode is how the resizer works with a driver.
type Mode int

const (
	// ModeUnsupported means the driver cannot expand volumes at all.
	ModeUnsupported Mode = iota
	// ModeController means the resizer calls ControllerExpandVolume.
	ModeController
	// ModeNodeOnly means there is no controller step: the resizer records the
	// new size and hands the volume to kubelet for NodeExpandVolume.
	ModeNodeOnly
)

// String returns the mode's name for logs.
func (m Mode) String() string {
	if names := []string{"unsupported", "controller", "node-only"}; m >= 0 && int(m) < len(names) {
		return names[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Mode returns ModeController when the controller expands volumes, else
// ModeNodeOnly when the node does, else ModeUnsupported.
func (c Capabilities) Mode() Mode {
	switch {
	case c.ControllerExpand:
		return ModeController
	case c.NodeExpand:
		return ModeNodeOnly
	default:
		return ModeUnsupported
	}
}

// OnlyOffline reports whether the driver advertises OFFLINE expansion and not
// ONLINE. Only then do pods using a volume block its resize.
func (c Capabilities) OnlyOffline() bool {
	return c.OfflineExpansion && !c.OnlineExpansion
}

// Capabilities reads the plugin capabilities, the controller capabilities
// (only when the plugin has CONTROLLER_SERVICE) and the node capabilities.
// A socket without the Node service (Unimplemented) has no node capabilities.
// Any other failure to read node capabilities is an error only when they
// matter, that is when the controller cannot expand volumes.
func (c *Client) Capabilities(ctx context.Context) (Capabilities, error) {
	logger := klog.FromContext(ctx)
	var caps Capabilities
	controllerService, err := c.pluginCapabilities(ctx, &caps)
	if err != nil {
		return Capabilities{}, fmt.Errorf("get CSI plugin capabilities: %w", err)
	}
	if controllerService {
		callCtx, cancel := c.callContext(ctx, 0)
		ctrl, err := rpc.GetControllerCapabilities(callCtx, c.conn)
		cancel()
		if err != nil {
			return Capabilities{}, fmt.Errorf("get CSI controller capabilities: %w", err)
		}
		caps.ControllerExpand = ctrl[csi.ControllerServiceCapability_RPC_EXPAND_VOLUME]
		caps.SingleNodeMultiWriter = ctrl[csi.ControllerServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER]
		caps.ControllerModify = ctrl[csi.ControllerServiceCapability_RPC_MODIFY_VOLUME]
	}
	switch nodeExpand, err := c.nodeExpand(ctx); {
	case err == nil:
		caps.NodeExpand = nodeExpand
	case status.Code(err) == codes.Unimplemented:
		logger.V(2).Info("CSI driver has no Node service on this socket", "address", c.address)
	case caps.ControllerExpand:
		logger.Info("Ignoring failure to read CSI node capabilities, the controller expands volumes", "err", err)
	default:
		return Capabilities{}, fmt.Errorf("get CSI node capabilities: %w", err)
	}
	logger.V(2).Info("CSI driver capabilities", "mode", caps.Mode(),
		"controllerExpand", caps.ControllerExpand, "nodeExpand", caps.NodeExpand,
		"online", caps.OnlineExpansion, "offline", caps.OfflineExpansion,
		"singleNodeMultiWriter", caps.SingleNodeMultiWriter, "controllerModify", caps.ControllerModify)
	return caps, nil
}

// pluginCapabilities fills the expansion types of caps and reports whether the
// plugin has CONTROLLER_SERVICE. (rpc.GetPluginCapabilities only reads services.)
func (c *Client) pluginCapabilities(ctx context.Context, caps *Capabilities) (controllerService bool, err error) {
	ctx, cancel := c.callContext(ctx, 0)
	defer cancel()
	resp, err := c.identity.GetPluginCapabilities(ctx, &csi.GetPluginCapabilitiesRequest{})
	if err != nil {
		return false, err
	}
	for _, pc := range resp.GetCapabilities() {
		if pc.GetService().GetType() == csi.PluginCapability_Service_CONTROLLER_SERVICE {
			controllerService = true
		}
		switch pc.GetVolumeExpansion().GetType() {
		case csi.PluginCapability_VolumeExpansion_ONLINE:
			caps.OnlineExpansion = true
		case csi.PluginCapability_VolumeExpansion_OFFLINE:
			caps.OfflineExpansion = true
		}
	}
	return controllerService, nil
}

// nodeExpand reports whether the node capabilities include EXPAND_VOLUME.
func (c *Client) nodeExpand(ctx context.Context) (bool, error) {
	ctx, cancel := c.callContext(ctx, 0)
	defer cancel()
	resp, err := c.node.NodeGetCapabilities(ctx, &csi.NodeGetCapabilitiesRequest{})
	if err != nil {
		return false, err
	}
	for _, nc := range resp.GetCapabilities() {
		if nc.GetRpc().GetType() == csi.NodeServiceCapability_RPC_EXPAND_VOLUME {
			return true, nil
		}
	}
	return false, nil
}

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
