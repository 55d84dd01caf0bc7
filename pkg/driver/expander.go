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

// The two ways a volume is expanded: through the CSI
// driver's ControllerExpandVolume, or, for drivers that expand on the node
// only, by handing the new size straight to kubelet.

package driver

import (
	"context"
	"fmt"
	"math"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
)

// ExpandCaller is the driver call CSI needs; *Client implements it.
type ExpandCaller interface {
	Expand(ctx context.Context, req ExpandRequest) (capacityBytes int64, nodeExpansionRequired bool, err error)
}

// VolumeExpander expands volumes with the driver's ControllerExpandVolume.
type VolumeExpander struct {
	Driver ExpandCaller
	// SingleNodeMultiWriter is the driver's controller capability, read
	// once at start-up; it decides how ReadWriteOncePod is passed.
	SingleNodeMultiWriter bool
	// Timeout bounds each ControllerExpandVolume call (--resize-timeout);
	// zero leaves the bound to the CSI client's own timeout.
	Timeout time.Duration
}

// Expand calls ControllerExpandVolume for pv with target as required bytes.
//
// A request that cannot be built is refused before any call (Refuse)
// with codes.InvalidArgument (or codes.OutOfRange for a size beyond int64),
// as Client refuses its own: nothing reached the driver, so the failure
// is certain, and a claim whose request can never be sent must not be held
// at that size as if the call might still complete.
func (r *VolumeExpander) Expand(ctx context.Context, pv *v1.PersistentVolume, target resource.Quantity, secrets map[string]string) (resource.Quantity, bool, error) {
	src, err := ownership.Source(pv)
	if err != nil {
		return resource.Quantity{}, false, Refuse(codes.InvalidArgument, err)
	}
	if pv.Spec.CSI == nil {
		pv = pv.DeepCopy()
		pv.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{CSI: src}
	}
	capability, err := VolumeCapability(pv, r.SingleNodeMultiWriter)
	if err != nil {
		return resource.Quantity{}, false, Refuse(codes.InvalidArgument, err)
	}
	bytes, err := bytesOf(target)
	if err != nil {
		return resource.Quantity{}, false, err
	}
	got, nodeStep, err := r.Driver.Expand(ctx, ExpandRequest{
		VolumeID: src.VolumeHandle, RequiredBytes: bytes, Secrets: secrets, Capability: capability,
		Timeout: r.Timeout,
	})
	if err != nil {
		return resource.Quantity{}, false, err
	}
	if got == bytes {
		return target, nodeStep, nil
	}
	return *resource.NewQuantity(got, resource.BinarySI), nodeStep, nil
}

// UsesSecrets is true: drivers may require the expansion secret.
func (r *VolumeExpander) UsesSecrets() bool { return true }

// bytesOf converts a size to the int64 bytes of the CSI call, rounding a
// fraction up, and rejects sizes a driver cannot be asked for with a gRPC
// status (InvalidArgument, OutOfRange) that classes them infeasible.
func bytesOf(q resource.Quantity) (int64, error) {
	if q.Sign() <= 0 {
		return 0, Refuse(codes.InvalidArgument, fmt.Errorf("invalid size %s", q.String()))
	}
	if err := decide.CheckSize(q); err != nil {
		return 0, Refuse(codes.OutOfRange, err)
	}
	if q.Cmp(*resource.NewQuantity(math.MaxInt64, resource.BinarySI)) > 0 {
		return 0, Refuse(codes.OutOfRange, fmt.Errorf("size %s is too large for a CSI request", q.String()))
	}
	return q.Value(), nil
}

// NodeOnly stands in for drivers that expand on the node only: there is no
// controller call; the new size goes to the PV and kubelet does the rest.
type NodeOnly struct{}

// Expand returns target and asks for the node step.
func (NodeOnly) Expand(context.Context, *v1.PersistentVolume, resource.Quantity, map[string]string) (resource.Quantity, bool, error) {
	return resource.Quantity{}, true, nil
}

// UsesSecrets is false: no driver call takes them.
func (NodeOnly) UsesSecrets() bool { return false }
