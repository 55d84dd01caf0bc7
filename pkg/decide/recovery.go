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
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// LowerRange is the range of sizes the user may lower the request to after
// an attempt at target failed with a final (infeasible, in-use or other
// final) error, so that Decide tries a size below target: above the
// claim's capacity (the API server refuses a request at or below
// status.capacity) and below target (target itself is the size that
// failed), both exclusive. After a failure on the controller, Decide
// expands to the lowered request; after kubelet found target infeasible on
// the node (NodeResizeInfeasible), it hands the claim back to kubelet at
// the lowered request (NodeRetry). ok is false when no lowered request
// leads to another size: with the RecoverVolumeExpansionFailure gate off
// (the recorded size stays the target), when the controller failed and
// the volume already holds target (a driver is never asked for less than
// the volume's size), or when nothing lies between the capacity and target.
func (s ResizeState) LowerRange(target resource.Quantity) (above, below resource.Quantity, ok bool) {
	onNode := s.Status == v1.PersistentVolumeClaimNodeResizeInfeasible
	if !s.Recovery || (!onNode && s.PVSize.Cmp(target) >= 0) || s.Capacity.Cmp(target) >= 0 {
		return resource.Quantity{}, resource.Quantity{}, false
	}
	return s.Capacity, target, true
}

// nodeInfeasibleUnchanged is true when kubelet found the recorded size
// infeasible and the user has not asked for another size since: the
// request is still the recorded size (the volume may hold more, when the
// driver allocated more than asked for, and that is no new request), or
// another attempt would ask for that same size again (a request within
// the recorded size, which may be above the request, and which a volume
// already holding it never goes below).
func (s ResizeState) nodeInfeasibleUnchanged() bool {
	if s.Status != v1.PersistentVolumeClaimNodeResizeInfeasible || s.Allocated == nil {
		return false
	}
	target, _ := s.target()
	return s.Request.Cmp(*s.Allocated) == 0 || target.Cmp(*s.Allocated) == 0
}

// handBackAgain is true when kubelet marked infeasible the very size the
// resizer handed back to it (NodeRetry), once. On an RWX volume, a node
// whose call for the larger size was in flight when the size was handed
// back records that call's final failure as NodeResizeInfeasible on the
// claim that now asks for the handed-back size, which no node has tried
// (kubelet marks a size infeasible when a final failure comes while the
// request differs from the size it was expanding to). A second hand-back
// lets the nodes try it; a size that kubelet refuses again waits for the
// user, as any refused size does.
func (s ResizeState) handBackAgain() bool {
	h := s.HandedBack
	return s.Recovery && h != nil && !h.Again && s.Status == v1.PersistentVolumeClaimNodeResizeInfeasible && s.Allocated != nil &&
		h.Target.Cmp(*s.Allocated) == 0 && s.Request.Sign() > 0 && s.Request.Cmp(h.Target) == 0 && s.Request.Cmp(s.Capacity) > 0 && s.PVSize.Cmp(h.Target) >= 0
}

// nodeRecoverable is true when kubelet found the recorded size infeasible
// and the user asks for a smaller size that the claim does not have yet but
// its volume holds (KEP-1790's recovery, on the node).
func (s ResizeState) nodeRecoverable() bool {
	return s.Recovery && s.Status == v1.PersistentVolumeClaimNodeResizeInfeasible && s.Allocated != nil && s.Request.Sign() > 0 &&
		s.Request.Cmp(*s.Allocated) < 0 && s.Request.Cmp(s.Capacity) > 0 && s.PVSize.Cmp(s.Request) >= 0
}

// nodeGrowable is true when kubelet finished the last resize at the recorded
// size, below the volume's (after it refused a larger target and the user
// lowered the request, or when the driver gave more than asked for), and
// the user now asks for more, which the volume already holds: the driver
// has done its part, and asking it again would ask for less than the
// volume has, which drivers refuse. Kubelet grows the file system to the
// request.
func (s ResizeState) nodeGrowable() bool {
	return s.Status == "" && s.Allocated != nil && s.Capacity.Sign() > 0 && s.Capacity.Cmp(*s.Allocated) == 0 &&
		s.Request.Cmp(s.Capacity) > 0 && s.PVSize.Cmp(s.Request) >= 0
}
