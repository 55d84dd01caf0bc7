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

// VolumeModifier changes the class of a volume through the CSI driver's
// ControllerModifyVolume (VolumeAttributesClass, KEP-3751).

package driver

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
)

// ModifyCaller is the driver call CSI needs; *Client implements it.
type ModifyCaller interface {
	Modify(ctx context.Context, req ModifyRequest) error
}

// VolumeModifier modifies volumes with the driver's ControllerModifyVolume.
type VolumeModifier struct {
	Driver ModifyCaller
	// Timeout bounds each call (--modify-timeout); 0 is the client's.
	Timeout time.Duration
}

// Modify calls ControllerModifyVolume for pv with the mutable parameters
// of the target class. Only CSI volumes can carry a class: any other is
// refused before a call, with codes.InvalidArgument.
func (m *VolumeModifier) Modify(ctx context.Context, pv *v1.PersistentVolume, parameters, secrets map[string]string) error {
	if pv.Spec.CSI == nil {
		return Refuse(codes.InvalidArgument, fmt.Errorf("volume %q is not a CSI volume: Kubernetes allows a VolumeAttributesClass on CSI volumes only", pv.Name))
	}
	return m.Driver.Modify(ctx, ModifyRequest{
		VolumeID: pv.Spec.CSI.VolumeHandle, MutableParameters: parameters, Secrets: secrets, Timeout: m.Timeout,
	})
}
