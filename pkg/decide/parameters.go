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

import "maps"

// The keys under which --extra-modify-metadata adds the claim and volume
// names to the mutable parameters: upstream's keys, which drivers read.
const (
	ParamPVCName      = "csi.storage.k8s.io/pvc/name"
	ParamPVCNamespace = "csi.storage.k8s.io/pvc/namespace"
	ParamPVName       = "csi.storage.k8s.io/pv/name"
)

// Parameters returns the mutable parameters of a ControllerModifyVolume
// call: the class's parameters, plus the claim's and volume's names when
// extra is set. The class's map is never changed.
func Parameters(class map[string]string, namespace, claim, volume string, extra bool) map[string]string {
	if !extra {
		return class
	}
	out := make(map[string]string, len(class)+3)
	maps.Copy(out, class)
	out[ParamPVCName] = claim
	out[ParamPVCNamespace] = namespace
	out[ParamPVName] = volume
	return out
}
