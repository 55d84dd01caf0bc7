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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

// Job is one of a claim's two jobs.
type Job int

const (
	// NoJob: neither job has a step to take now.
	NoJob Job = iota
	// ResizeJob is volume expansion: spec.resources.requests.storage.
	ResizeJob
	// ModifyJob is volume modification: spec.volumeAttributesClassName.
	ModifyJob
)

func (j Job) String() string {
	switch j {
	case ResizeJob:
		return "resize"
	case ModifyJob:
		return "modify"
	}
	return "none"
}

// Owner is who takes a claim's next step.
type Owner int

const (
	// OwnedByNobody: nothing is left to do.
	OwnedByNobody Owner = iota
	// OwnedByResizer: the resizer takes the next step, now or after a wait.
	OwnedByResizer
	// OwnedByKubelet: kubelet finishes the expansion on the node.
	OwnedByKubelet
	// OwnedByUser: nothing moves until the user changes the claim (a
	// request or class that cannot be had) or deletes the pods that hold an
	// expansion back.
	OwnedByUser
)

func (o Owner) String() string {
	return [...]string{"nobody", "resizer", "kubelet", "user"}[o]
}

// Why is the reason of a plan, as a code: callers render it.
type Why int

const (
	// Settled: what the claim asks for is recorded.
	Settled Why = iota
	// StepDue: the next job has a step to take now (Plan.Resize or
	// Plan.Modify says which).
	StepDue
	// WritesLeft: the driver has done the next job's call, and only the
	// writes that record it are left (Plan.WritesOnly).
	WritesLeft
	// HeldBackByPods: the expansion waits until the pods that use the
	// claim are gone (Plan.HeldBackBy).
	HeldBackByPods
	// SlowLane: a target the driver found infeasible waits before it is
	// asked for again (Plan.Wait).
	SlowLane
	// KubeletStep: kubelet owns the node step of the expansion.
	KubeletStep
	// UnusableSize: a size of the claim or its volume cannot be decided on
	// (Plan.Invalid); nothing is done until it changes.
	UnusableSize
)

func (w Why) String() string {
	return [...]string{"settled", "step-due", "writes-left", "held-back-by-pods", "slow-lane", "kubelet-step", "unusable-size"}[w]
}

// Settings are the resizer's settings a plan depends on.
type Settings struct {
	// Driver is the CSI driver's name.
	Driver string
	// Resize and Modify say which jobs the resizer does.
	Resize, Modify bool
	// Recovery is the RecoverVolumeExpansionFailure feature gate.
	Recovery bool
	// AnnotateFsResize is the AnnotateFsResize feature gate.
	AnnotateFsResize bool
	// OnlyOffline is true for a driver that expands only volumes no pod
	// uses.
	OnlyOffline bool
	// RetryMax is --retry-interval-max: the slow lane's wait.
	RetryMax time.Duration
}

// Memory is what the resizer remembers of a claim between syncs, as plain
// values; nil fields are nothing remembered.
type Memory struct {
	// ResizeFailure and ModifyFailure are each job's last failed call.
	ResizeFailure *ResizeFailure
	ModifyFailure *ModifyFailure
	// Rounded and HandedBack: see Rounding and HandBack.
	Rounded    *Rounding
	HandedBack *HandBack
	// ResizeApplied and ModifyApplied are targets the driver has done but
	// whose writes have not all succeeded: only the writes are retried.
	ResizeApplied *resource.Quantity
	ModifyApplied *string
}

// Input is everything a claim's plan is made from.
type Input struct {
	Claim  *v1.PersistentVolumeClaim
	Volume *v1.PersistentVolume
	// ClassDriver tells the driver of a VolumeAttributesClass.
	ClassDriver ClassDriver
	// PodsUsing are the pods that use the claim, when the resizer watches
	// pods (nil otherwise).
	PodsUsing []string
	Memory    Memory
	Settings  Settings
	Now       time.Time
	// Done is a job that has taken its step in this sync already: the
	// other may still take one, this one waits for the next sync.
	Done Job
}

// Plan is everything decided about a claim now.
type Plan struct {
	// Next is the job whose step runs now; NoJob when none does.
	Next Job
	// Owner is who takes the next step, and Why says why, of Next when a
	// job is next, else of what the claim waits for.
	Owner Owner
	Why   Why
	// Resize and Modify are each job's decision.
	Resize ResizeDecision
	Modify ModifyDecision
	// WritesOnly: the driver has done Next's target; record it, do not
	// call the driver again (nor read what the call needed, which may be
	// gone).
	WritesOnly bool
	// HeldBackBy are the pods that hold Next's expansion back: no call is
	// made while they use the claim.
	HeldBackBy []string
	// Wait is how long until a waiting decision is due again; 0 when none
	// waits.
	Wait time.Duration
	// Invalid says why a size cannot be decided on: a warning to give.
	Invalid error
}

// Claim makes the plan of a claim of the resizer's driver and its volume.
func Claim(in Input) Plan {
	var p Plan
	s := in.Settings
	resizeFailed := false
	if s.Resize {
		state := ResizeStateFor(in)
		p.Invalid = state.Validate()
		p.Resize = DecideResize(state, in.Now, s.RetryMax)
		resizeFailed = state.LastFailure != nil || state.ErrorRecorded
	}
	if s.Modify {
		p.Modify = DecideModify(ModifyStateOf(s.Driver, in.Claim, in.Volume, in.ClassDriver, in.Memory.ModifyFailure), in.Now, s.RetryMax)
	}
	p.Next = turn{p.Resize, p.Modify, resizeFailed, failedLast(in.Memory)}.first()
	if p.Next == in.Done {
		p.Next = NoJob
	}
	p.Wait = Soonest(p.Resize.RetryAfter, p.Modify.RetryAfter)
	switch p.Next {
	case ResizeJob:
		p.WritesOnly = p.Resize.Action == Expand && in.Memory.ResizeApplied != nil && in.Memory.ResizeApplied.Cmp(p.Resize.Target) == 0
		if p.Resize.Action == Expand && !p.WritesOnly && (s.OnlyOffline || InUse(in.Memory.ResizeFailure)) {
			p.HeldBackBy = in.PodsUsing
		}
	case ModifyJob:
		p.WritesOnly = p.Modify.Action == ModifyCall && in.Memory.ModifyApplied != nil && *in.Memory.ModifyApplied == p.Modify.Target
	}
	p.Owner, p.Why = p.owner(in.Claim)
	return p
}

// ResizeStateFor is what the resize decision reads of in.
func ResizeStateFor(in Input) ResizeState {
	s := ResizeStateOf(in.Claim, in.Volume, in.Settings.Recovery, in.Memory.ResizeFailure)
	s.Rounded, s.HandedBack = in.Memory.Rounded, in.Memory.HandedBack
	_, annotated := in.Volume.Annotations[claimstatus.AnnPreResizeCapacity]
	s.PreResizeAnnotated = in.Settings.AnnotateFsResize && annotated
	return s
}

// owner says who owns the claim's next step, and why.
func (p Plan) owner(pvc *v1.PersistentVolumeClaim) (Owner, Why) {
	switch {
	case len(p.HeldBackBy) > 0:
		return OwnedByUser, HeldBackByPods
	case p.Next != NoJob && p.WritesOnly:
		return OwnedByResizer, WritesLeft
	case p.Next != NoJob:
		return OwnedByResizer, StepDue
	case p.Invalid != nil:
		return OwnedByUser, UnusableSize
	case p.Wait > 0:
		return OwnedByUser, SlowLane
	case kubeletStep(pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage]):
		return OwnedByKubelet, KubeletStep
	}
	return OwnedByNobody, Settled
}

func kubeletStep(s v1.ClaimResourceStatus) bool {
	return s == v1.PersistentVolumeClaimNodeResizePending || s == v1.PersistentVolumeClaimNodeResizeInProgress
}

// Soonest is the smallest positive duration of a and b; 0 when neither is.
func Soonest(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return max(b, 0)
	case b <= 0 || a < b:
		return a
	}
	return b
}
