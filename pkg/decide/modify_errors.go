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
)

// ModifyRules class the errors of ControllerModifyVolume as upstream does:
// InvalidArgument alone is infeasible (the class's parameters), every other
// code that is not uncertain is final.
var ModifyRules = Rules{Infeasible: []codes.Code{codes.InvalidArgument}}

// ModifyFailure is what the controller remembers of a claim's last failed
// modification; the recorded ModifyVolumeError condition stands in for it
// after a restart.
type ModifyFailure = Failure[string]
