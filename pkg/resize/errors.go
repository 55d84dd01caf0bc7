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

package resize

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Class says how a failed expansion is treated. The zero value is Uncertain,
// the safe default: an error of unknown origin may hide a call that still
// completes in the backend.
type Class int

const (
	// Uncertain failures may still complete in the backend: the recorded
	// size must be finished, never switched for another one.
	Uncertain Class = iota
	// Infeasible failures will not succeed at this size; they are retried
	// slowly unless the user changes the request.
	Infeasible
	// Final failures did not change the volume; the user may change the
	// request.
	Final
	// InUse failures (FailedPrecondition) mean the driver cannot expand a
	// volume that a pod uses. They are final for the size, and the attempt
	// waits until no pod uses the claim.
	InUse
)

// String returns the class name used in logs and metrics.
func (c Class) String() string {
	switch c {
	case Infeasible:
		return "infeasible"
	case Final:
		return "final"
	case InUse:
		return "in-use"
	default:
		return "uncertain"
	}
}

// Final reports whether the failure left the volume unchanged, so the user's
// current request, not the recorded one, is the next target.
func (c Class) Final() bool {
	return c != Uncertain
}

// ClassOf classifies an expansion error by its gRPC code, following the CSI
// spec's ControllerExpandVolume errors.
func ClassOf(err error) Class {
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) {
		return Uncertain
	}
	switch withStatus.GRPCStatus().Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Unavailable,
		codes.ResourceExhausted, codes.Aborted:
		return Uncertain
	case codes.InvalidArgument, codes.OutOfRange, codes.NotFound:
		return Infeasible
	case codes.FailedPrecondition:
		return InUse
	default:
		return Final
	}
}
