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

package decide

import (
	"errors"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Class says how a failed driver call is treated. The zero value is
// Uncertain, the safe default: an error of unknown origin may hide a call
// that still completes in the backend.
type Class int

const (
	// Uncertain failures may still complete in the backend: the recorded
	// target must be finished, never switched for another one.
	Uncertain Class = iota
	// Infeasible failures will not succeed at this target; they are retried
	// slowly (InfeasibleWait) unless the user changes what is asked for.
	Infeasible
	// Final failures did not change the volume; the user may ask for
	// something else.
	Final
)

// String returns the class name used in logs and metrics.
func (c Class) String() string {
	switch c {
	case Infeasible:
		return "infeasible"
	case Final:
		return "final"
	default:
		return "uncertain"
	}
}

// Final reports whether the failure left the volume unchanged, so what the
// user asks for now, not the recorded target, is the next target.
func (c Class) Final() bool { return c != Uncertain }

// Rules class the errors of one operation's driver call by gRPC code,
// following the CSI spec: the codes of a call that may still complete are
// uncertain for every operation, the operation names its infeasible codes,
// every other code is final. An error without a gRPC status is uncertain.
type Rules struct {
	// Infeasible lists the codes that say the target cannot be had.
	Infeasible []codes.Code
}

// uncertain are the codes of a call that may still complete in the backend.
var uncertain = []codes.Code{codes.Canceled, codes.DeadlineExceeded, codes.Unavailable, codes.ResourceExhausted, codes.Aborted}

// ClassOf classes err.
func (r Rules) ClassOf(err error) Class {
	code, ok := CodeOf(err)
	if !ok {
		return Uncertain
	}
	return r.classOf(code)
}

// ClassOfReason classes a failure recorded by its reason (see ReasonOf),
// which a restarted resizer reads back. A reason that names no code is
// uncertain.
func (r Rules) ClassOfReason(reason string) Class {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == reason {
			return r.classOf(c)
		}
	}
	return Uncertain
}

func (r Rules) classOf(c codes.Code) Class {
	switch {
	case slices.Contains(uncertain, c):
		return Uncertain
	case slices.Contains(r.Infeasible, c):
		return Infeasible
	}
	return Final
}

// CodeOf returns the gRPC code err carries, wrapped or not; ok is false
// when it carries none.
func CodeOf(err error) (code codes.Code, ok bool) {
	var withStatus interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &withStatus) || withStatus.GRPCStatus() == nil {
		return codes.Unknown, false
	}
	return withStatus.GRPCStatus().Code(), true
}

// ReasonUncertain is the reason recorded for a failure without a gRPC code
// (upstream records no condition then). It names no code on purpose:
// Unknown is a code drivers answer, which the CSI spec counts as final,
// while a call that failed without a status may still complete.
const ReasonUncertain = "Uncertain"

// ReasonOf is the reason a failure of err is recorded with: the name of its
// gRPC code, or ReasonUncertain.
func ReasonOf(err error) string {
	if code, ok := CodeOf(err); ok {
		return code.String()
	}
	return ReasonUncertain
}
