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

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
