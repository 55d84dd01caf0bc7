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
	"math"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
)

// ExpandRequest is one ControllerExpandVolume call. Secrets are never logged
// nor put in errors. A positive Timeout (--resize-timeout) bounds the call
// instead of the client's timeout.
type ExpandRequest struct {
	VolumeID      string // pv.spec.csi.volumeHandle
	RequiredBytes int64
	Secrets       map[string]string
	Capability    *csi.VolumeCapability // see VolumeCapability
	Timeout       time.Duration
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
	callCtx, cancel := c.callContext(ctx, req.Timeout)
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

// ModifyRequest is one ControllerModifyVolume call, as ExpandRequest is
// (Timeout: --modify-timeout). MutableParameters are the
// VolumeAttributesClass's parameters and any extra metadata.
type ModifyRequest struct {
	VolumeID                   string
	MutableParameters, Secrets map[string]string
	Timeout                    time.Duration
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
	callCtx, cancel := c.callContext(ctx, req.Timeout)
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

// ExpandCaller is the driver call CSI needs; *Client implements it.
type ExpandCaller interface {
	Expand(ctx context.Context, req ExpandRequest) (capacityBytes int64, nodeExpansionRequired bool, err error)
}

// VolumeExpander expands volumes with the driver's ControllerExpandVolume.
type VolumeExpander struct {
	Driver ExpandCaller
	// SingleNodeMultiWriter, the driver's capability, decides how
	// ReadWriteOncePod is passed.
	SingleNodeMultiWriter bool
	// Timeout is each call's ExpandRequest.Timeout (--resize-timeout).
	Timeout time.Duration
}

// Expand calls ControllerExpandVolume for pv with target as required bytes.
// A request that cannot be built is refused before any call (Refuse) with
// codes.InvalidArgument (or OutOfRange for a size beyond int64): the failure
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

// Refuse returns err as a request refused before it reached the driver. The
// error reads as its cause and carries code as its gRPC status, so that
// status.Code (and so the resize and modify decisions) see how final the
// failure is without the message pretending that the driver answered.
// errors.Is and errors.As see through it to err.
func Refuse(code codes.Code, err error) error { return &refusal{code: code, err: err} }

// Refused reports whether err is, or wraps, a request that Refuse turned
// down before it reached the driver, so that a message does not present
// its code as the driver's answer.
func Refused(err error) bool {
	var r *refusal
	return errors.As(err, &r)
}

// refusal is what Refuse returns.
type refusal struct {
	code codes.Code
	err  error
}

func (r *refusal) Error() string { return r.err.Error() }

func (r *refusal) Unwrap() error { return r.err }

// GRPCStatus returns the status the refusal stands for.
func (r *refusal) GRPCStatus() *status.Status { return status.New(r.code, r.err.Error()) }
