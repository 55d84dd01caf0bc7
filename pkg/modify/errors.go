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

package modify

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/csi-resizer/csi-resizer/pkg/resize"
)

// ClassOf classifies a modification error by its gRPC code, as upstream
// does: the codes of a call that may still complete are uncertain,
// InvalidArgument alone is infeasible, every other code is final. An error
// without a gRPC status is uncertain: it may hide a call that still runs.
func ClassOf(err error) resize.Class {
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) {
		return resize.Uncertain
	}
	return classOf(withStatus.GRPCStatus().Code())
}

// ClassOfCode classifies a code recorded by its name (the ModifyVolumeError
// condition's reason). A name that is no code is uncertain.
func ClassOfCode(name string) resize.Class {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == name {
			return classOf(c)
		}
	}
	return resize.Uncertain
}

func classOf(c codes.Code) resize.Class {
	switch c {
	case codes.Canceled, codes.DeadlineExceeded, codes.Unavailable,
		codes.ResourceExhausted, codes.Aborted:
		return resize.Uncertain
	case codes.InvalidArgument:
		return resize.Infeasible
	default:
		return resize.Final
	}
}

// ReasonOf is what the ModifyVolumeError condition records of err as its
// reason: the name of its gRPC code, or "Uncertain" for an error without
// one, which ClassOfCode reads back as uncertain after a restart.
func ReasonOf(err error) string {
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) {
		return ReasonUncertain
	}
	return withStatus.GRPCStatus().Code().String()
}

// ReasonUncertain is the reason recorded for a failure without a gRPC code.
const ReasonUncertain = "Uncertain"
