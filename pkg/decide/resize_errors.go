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
	"google.golang.org/grpc/codes"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

// ResizeRules class the errors of ControllerExpandVolume as the CSI spec defines
// them: a size the driver cannot have (InvalidArgument, OutOfRange) or a
// volume it does not know (NotFound) is infeasible.
var ResizeRules = Rules{Infeasible: []codes.Code{codes.InvalidArgument, codes.OutOfRange, codes.NotFound}}

// ResizeFailure is what the controller remembers of a claim's last failed
// expansion.
type ResizeFailure = Failure[resource.Quantity]

// ReasonShort is the Reason of the failure remembered when the driver
// answered success with less than the target: what it gave is recorded,
// and the target is infeasible (asked for again only on the slow lane).
const ReasonShort = claimstatus.ReasonBelowTarget

// InUse reports whether f says the driver cannot expand the volume while a
// pod uses it (FailedPrecondition). Such a failure is final for the size;
// with in-use handling on, the next attempt waits until no pod uses the
// claim.
func InUse(f *ResizeFailure) bool {
	return f != nil && f.Reason == codes.FailedPrecondition.String()
}

// ResizeResult names a failed attempt for the resize duration metric: its class,
// or "in-use".
func ResizeResult(f ResizeFailure) string {
	if InUse(&f) {
		return "in-use"
	}
	return f.Class.String()
}
