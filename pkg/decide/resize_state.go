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
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

// ResizeState is everything the decision looks at.
type ResizeState struct {
	// Request is pvc.spec.resources.requests[storage].
	Request resource.Quantity
	// Capacity is pvc.status.capacity[storage]; zero when unset.
	Capacity resource.Quantity
	// PVSize is pv.spec.capacity[storage].
	PVSize resource.Quantity
	// Allocated is pvc.status.allocatedResources[storage], nil when unset:
	// the size being expanded to, and the size kubelet expands the file
	// system to; once the resize is complete, the capacity the driver
	// reported, which may be above the request (see RecordVolumeSize).
	Allocated *resource.Quantity
	// Status is pvc.status.allocatedResourceStatuses[storage], "" when unset.
	Status v1.ClaimResourceStatus
	// ErrorRecorded is true when the claim carries ControllerResizeError: the
	// last recorded attempt ended in a final failure (what a restarted
	// controller's lost memory knew).
	ErrorRecorded bool
	// LastFailure is the remembered failure of the last attempt, if any.
	LastFailure *ResizeFailure
	// Rounded is the resizer's last successful call when the driver grew the
	// volume beyond the size asked for (a driver that allocates whole
	// units); nil when it remembers none (after a restart, or for a reader
	// that is not the resizer). Only it tells that a volume larger than the
	// size kubelet finished at is the driver's rounding, not an earlier
	// target that kubelet refused (KEP-1790's recovery).
	Rounded *Rounding
	// HandedBack is the last size the resizer handed back to kubelet
	// (NodeRetry) since it started; nil when none.
	HandedBack *HandBack
	// Recovery is the RecoverVolumeExpansionFailure gate: when off, a
	// lowered request never replaces a recorded size.
	Recovery bool
	// PreResizeAnnotated: the AnnotateFsResize gate is on and the PV carries
	// its pre-resize-capacity annotation.
	PreResizeAnnotated bool
}

// Rounding is a successful ControllerExpandVolume that grew the volume
// beyond its target: Target is the size asked for, Size the larger one the
// driver gave.
type Rounding struct {
	Target, Size resource.Quantity
}

// HandBack is a size the resizer handed back to kubelet (NodeRetry), and
// whether it handed it back a second time.
type HandBack struct {
	Target resource.Quantity
	Again  bool
}

// ResizeStateFor is what the resize decision reads of in. in.Memory is nil
// after a restart, or for a reader that is not the resizer.
func ResizeStateFor(in Input) ResizeState {
	pvc, pv := in.Claim, in.Volume
	_, annotated := pv.Annotations[claimstatus.AnnPreResizeCapacity]
	s := ResizeState{
		Request:            pvc.Spec.Resources.Requests[v1.ResourceStorage],
		Capacity:           pvc.Status.Capacity[v1.ResourceStorage],
		PVSize:             pv.Spec.Capacity[v1.ResourceStorage],
		Status:             pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage],
		ErrorRecorded:      claimstatus.ErrorRecorded(pvc),
		LastFailure:        in.Memory.ResizeFailure,
		Rounded:            in.Memory.Rounded,
		HandedBack:         in.Memory.HandedBack,
		Recovery:           in.Settings.Recovery,
		PreResizeAnnotated: in.Settings.AnnotateFsResize && annotated,
	}
	if a, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]; ok {
		s.Allocated = &a
	}
	return s
}

// maxSize bounds, in bytes, the sizes the resizer compares: far beyond any
// volume (and the int64 of a CSI request, refused later with a clear
// error), yet cheap to compare. resource.Quantity.Cmp of a valid quantity
// such as "1e2000000000" (which an API server accepts in a request) writes
// the whole number out in digits and does not return in any useful time.
// maxScale bounds the decimal exponent likewise: a zero can carry a huge
// one too ("0e2000000000"), as costly to compare.
const (
	maxSize  = 1e30
	maxScale = 1000
)

// CheckSize returns an error when q is too large or, not being zero, too
// small (in magnitude), or carries too large an exponent, to be compared in
// bounded time. It looks only at the quantity's exponent, sign and
// approximate value, which are cheap whatever the quantity holds.
func CheckSize(q resource.Quantity) error {
	// AsDec converts this copy of q (cheaply), never the caller's.
	if scale := q.AsDec().Scale(); scale > maxScale || scale < -maxScale {
		// q.String() of such a size may not even show it right.
		return fmt.Errorf("size with decimal exponent %d is out of range", -int64(scale))
	}
	v := q.AsApproximateFloat64()
	switch {
	case math.IsNaN(v) || math.Abs(v) > maxSize:
		// A quantity may hold a mantissa of any length: show 40 characters.
		if t := q.String(); len(t) > 40 {
			return fmt.Errorf("size %s...(%d characters) is out of range (more than %.0e bytes)", t[:40], len(t), maxSize)
		}
		return fmt.Errorf("size %s is out of range (more than %.0e bytes)", q.String(), maxSize)
	case q.Sign() != 0 && math.Abs(v) < 1/maxSize:
		// q.String() of a size below a nanobyte is wrong: show the value.
		return fmt.Errorf("size %.3g is out of range (less than %.0e bytes)", v, 1/maxSize)
	}
	return nil
}

// Validate returns an error when a size of s is out of range (see
// CheckSize): no decision can be made about such a claim.
func (s ResizeState) Validate() error {
	type named struct {
		what string
		q    *resource.Quantity
	}
	sizes := []named{{"requested size", &s.Request}, {"status capacity", &s.Capacity}, {"PV capacity", &s.PVSize}}
	if s.Allocated != nil {
		sizes = append(sizes, named{"allocated size", s.Allocated})
	}
	if s.LastFailure != nil {
		sizes = append(sizes, named{"size of the last failure", &s.LastFailure.Target})
	}
	if s.Rounded != nil {
		sizes = append(sizes, named{"target the driver gave more for", &s.Rounded.Target}, named{"size the driver gave", &s.Rounded.Size})
	}
	for _, size := range sizes {
		if err := CheckSize(*size.q); err != nil {
			return fmt.Errorf("%s: %w", size.what, err)
		}
	}
	return nil
}

// LowerRange is the range, both ends exclusive, of sizes the user may lower
// the request to after an attempt at target failed with a final error, so
// that DecideResize tries a size below target: above the claim's capacity
// (the API server refuses a request at or below status.capacity) and below
// target. After a failure on the controller, DecideResize expands to the
// lowered request; after NodeResizeInfeasible, it hands the claim back to
// kubelet at it (NodeRetry). ok is false when no lowered request leads to
// another size: recovery is off (the recorded size stays the target), the
// controller failed and the volume already holds target (a driver is never
// asked for less than the volume's size), or nothing lies in between.
func (s ResizeState) LowerRange(target resource.Quantity) (above, below resource.Quantity, ok bool) {
	onNode := s.Status == v1.PersistentVolumeClaimNodeResizeInfeasible
	if !s.Recovery || (!onNode && s.PVSize.Cmp(target) >= 0) || s.Capacity.Cmp(target) >= 0 {
		return resource.Quantity{}, resource.Quantity{}, false
	}
	return s.Capacity, target, true
}

// nodeInfeasibleUnchanged is true when kubelet found the recorded size
// infeasible and the user has not asked for another size since: the request
// is still the recorded size (a volume holding more, the driver's rounding,
// is no new request), or another attempt would ask for that size again (a
// volume already holding it never goes below).
func (s ResizeState) nodeInfeasibleUnchanged() bool {
	if s.Status != v1.PersistentVolumeClaimNodeResizeInfeasible || s.Allocated == nil {
		return false
	}
	target, _ := s.target()
	return s.Request.Cmp(*s.Allocated) == 0 || target.Cmp(*s.Allocated) == 0
}

// handBackAgain is true when kubelet marked infeasible the very size the
// resizer handed back to it (NodeRetry), once. On an RWX volume, a node
// whose call for the larger size was in flight records that call's final
// failure as NodeResizeInfeasible on the claim that now asks for the
// handed-back size, which no node has tried (kubelet marks a size
// infeasible when a final failure comes while the request differs from its
// target). A second hand-back lets the nodes try it; refused again, it
// waits for the user.
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
// size, below the volume's (it refused a larger target and the user lowered
// the request, or the driver gave more than asked for), and the user now
// asks for more, which the volume holds: asking the driver again would ask
// for less than the volume has, which drivers refuse. Kubelet grows the
// file system to the request.
func (s ResizeState) nodeGrowable() bool {
	return s.Status == "" && s.Allocated != nil && s.Capacity.Sign() > 0 && s.Capacity.Cmp(*s.Allocated) == 0 &&
		s.Request.Cmp(s.Capacity) > 0 && s.PVSize.Cmp(s.Request) >= 0
}
