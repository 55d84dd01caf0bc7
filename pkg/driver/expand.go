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
	"fmt"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// ExpandRequest is one ControllerExpandVolume call.
type ExpandRequest struct {
	// VolumeID is the volume's handle, pv.spec.csi.volumeHandle.
	VolumeID string
	// RequiredBytes is the size to expand to.
	RequiredBytes int64
	// Secrets are sent to the driver and never logged nor put in errors.
	Secrets map[string]string
	// Capability describes how the volume is used, see VolumeCapability.
	Capability *csi.VolumeCapability
	// Timeout bounds the call when positive (--resize-timeout); zero means
	// the client's timeout.
	Timeout time.Duration
}

// Expand calls ControllerExpandVolume, bounded by req.Timeout or else the
// client's timeout. It returns the driver's capacity_bytes (0 means not
// reported) and node_expansion_required. Errors keep the gRPC status of the cause, so
// status.Code and status.FromError give the driver's code; a request that
// cannot be valid is refused without a call, with codes.InvalidArgument.
func (c *Client) Expand(ctx context.Context, req ExpandRequest) (capacityBytes int64, nodeExpansionRequired bool, err error) {
	switch {
	case req.VolumeID == "":
		err = status.Error(codes.InvalidArgument, "volume ID is empty")
	case req.RequiredBytes <= 0:
		err = status.Errorf(codes.InvalidArgument, "required size must be positive")
	}
	if err != nil {
		return 0, false, fmt.Errorf("expand volume %q to %d bytes: %w", req.VolumeID, req.RequiredBytes, err)
	}

	logger := klog.FromContext(ctx)
	logger.V(4).Info("Calling ControllerExpandVolume", "volumeID", req.VolumeID, "requiredBytes", req.RequiredBytes)
	callCtx, cancel := c.callContextWithin(ctx, req.Timeout)
	defer cancel()
	resp, err := c.controller.ControllerExpandVolume(callCtx, &csi.ControllerExpandVolumeRequest{
		VolumeId:         req.VolumeID,
		CapacityRange:    &csi.CapacityRange{RequiredBytes: req.RequiredBytes},
		Secrets:          req.Secrets,
		VolumeCapability: req.Capability,
	})
	if err != nil {
		return 0, false, fmt.Errorf("expand volume %q to %d bytes: %w", req.VolumeID, req.RequiredBytes, err)
	}
	logger.V(4).Info("ControllerExpandVolume succeeded", "volumeID", req.VolumeID,
		"capacityBytes", resp.GetCapacityBytes(), "nodeExpansionRequired", resp.GetNodeExpansionRequired())
	return resp.GetCapacityBytes(), resp.GetNodeExpansionRequired(), nil
}
