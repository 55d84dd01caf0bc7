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

// ModifyRequest is one ControllerModifyVolume call.
type ModifyRequest struct {
	// VolumeID is the volume's handle, pv.spec.csi.volumeHandle.
	VolumeID string
	// MutableParameters are the VolumeAttributesClass's parameters (and any
	// extra metadata) the volume is to have.
	MutableParameters map[string]string
	// Secrets are sent to the driver and never logged nor put in errors.
	Secrets map[string]string
	// Timeout bounds the call when positive (--modify-timeout); zero means
	// the client's timeout.
	Timeout time.Duration
}

// Modify calls ControllerModifyVolume, bounded by req.Timeout or else the
// client's timeout. Errors keep the gRPC status of the cause, so status.Code
// and status.FromError give the driver's code; a request without a volume ID
// is refused without a call, with codes.InvalidArgument.
func (c *Client) Modify(ctx context.Context, req ModifyRequest) error {
	if req.VolumeID == "" {
		return fmt.Errorf("modify volume %q: %w", req.VolumeID, status.Error(codes.InvalidArgument, "volume ID is empty"))
	}
	logger := klog.FromContext(ctx)
	logger.V(4).Info("Calling ControllerModifyVolume", "volumeID", req.VolumeID, "mutableParameters", req.MutableParameters)
	callCtx, cancel := c.callContextWithin(ctx, req.Timeout)
	defer cancel()
	_, err := c.controller.ControllerModifyVolume(callCtx, &csi.ControllerModifyVolumeRequest{
		VolumeId:          req.VolumeID,
		MutableParameters: req.MutableParameters,
		Secrets:           req.Secrets,
	})
	if err != nil {
		return fmt.Errorf("modify volume %q: %w", req.VolumeID, err)
	}
	logger.V(4).Info("ControllerModifyVolume succeeded", "volumeID", req.VolumeID)
	return nil
}
