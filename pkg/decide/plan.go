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

// Package decide holds every decision of the resizer's two jobs, volume
// expansion and volume modification, as pure functions of what a claim, its
// volume and the resizer's memory say: which job runs, what it does next,
// who owns the next step, why, and what a failed driver call means. It does
// no I/O; the controller carries the decisions out, and the metrics and the
// kubectl plugin render the same values.
package decide

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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

func (j Job) String() string { return nameIn([]string{"none", "resize", "modify"}, j) }

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

func (o Owner) String() string { return nameIn([]string{"nobody", "resizer", "kubelet", "user"}, o) }

// Why is the reason of a plan, as a code: callers render it.
type Why int

const (
	// Settled: what the claim asks for is recorded.
	Settled Why = iota
	// StepDue: the next job has a step to take now (Plan.Resize or Plan.Modify).
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
	return nameIn([]string{"settled", "step-due", "writes-left", "held-back-by-pods", "slow-lane", "kubelet-step", "unusable-size"}, w)
}

// nameIn is the name of v in names, or the first name (the zero value's) for
// a value outside them: a String method never panics.
func nameIn[T ~int](names []string, v T) string {
	if v < 0 || int(v) >= len(names) {
		return names[0]
	}
	return names[v]
}

// Settings are the resizer's settings a plan depends on.
type Settings struct {
	// Driver is the CSI driver's name.
	Driver string
	// Resize and Modify say which jobs the resizer does.
	Resize, Modify bool
	// Recovery and AnnotateFsResize are the feature gates of those names
	// (Recovery: RecoverVolumeExpansionFailure).
	Recovery, AnnotateFsResize bool
	// OnlyOffline is true for a driver that expands only volumes no pod uses.
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
	Claim       *v1.PersistentVolumeClaim
	Volume      *v1.PersistentVolume
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
	Owner  Owner
	Why    Why
	Resize ResizeDecision
	Modify ModifyDecision
	// WritesOnly: the driver has done Next's target; record it, do not
	// call the driver again (nor read what the call needed, which may be
	// gone).
	WritesOnly bool
	// HeldBackBy are the pods that hold Next's expansion back: no call is
	// made while they use the claim.
	HeldBackBy []string
	// Wait is how long until a waiting decision is due again; 0 when none waits.
	Wait time.Duration
	// Again: the job done in this sync (Input.Done) has a driver call due
	// now, for the next sync. The resizer's own writes queue no sync, so
	// the claim must be queued again.
	Again bool
	// Invalid says why a size cannot be decided on: a warning to give.
	Invalid error
}

// Claim makes the plan of a claim of the resizer's driver and its volume.
func Claim(in Input) Plan {
	var p Plan
	s, m := in.Settings, in.Memory
	resizeFailed := false
	if s.Resize {
		state := ResizeStateFor(in)
		p.Invalid = state.Validate()
		p.Resize = DecideResize(state, in.Now, s.RetryMax)
		resizeFailed = state.LastFailure != nil || state.ErrorRecorded
	}
	if s.Modify {
		p.Modify = DecideModify(ModifyStateOf(s.Driver, in.Claim, in.Volume, in.ClassDriver, m.ModifyFailure), in.Now, s.RetryMax)
	}
	if p.Next = firstJob(p.Resize, p.Modify, resizeFailed, m); p.Next != NoJob && p.Next == in.Done {
		// Its step made a driver call due at once (a record of a short
		// answer as the slow lane ran out): the next sync makes it.
		p.Again = p.Next == ResizeJob && p.Resize.Action.CallsDriver() || p.Next == ModifyJob && p.Modify.Action.CallsDriver()
		p.Next = NoJob
	}
	p.Wait = Soonest(p.Resize.RetryAfter, p.Modify.RetryAfter)
	switch p.Next {
	case ResizeJob:
		p.WritesOnly = p.Resize.Action == Expand && m.ResizeApplied != nil && m.ResizeApplied.Cmp(p.Resize.Target) == 0
		if p.Resize.Action == Expand && !p.WritesOnly && (s.OnlyOffline || InUse(m.ResizeFailure)) {
			p.HeldBackBy = in.PodsUsing
		}
	case ModifyJob:
		p.WritesOnly = p.Modify.Action == ModifyCall && m.ModifyApplied != nil && *m.ModifyApplied == p.Modify.Target
	}
	switch {
	case len(p.HeldBackBy) > 0:
		p.Owner, p.Why = OwnedByUser, HeldBackByPods
	case p.Next != NoJob && p.WritesOnly:
		p.Owner, p.Why = OwnedByResizer, WritesLeft
	case p.Next != NoJob || p.Again:
		p.Owner, p.Why = OwnedByResizer, StepDue
	case p.Invalid != nil:
		p.Owner, p.Why = OwnedByUser, UnusableSize
	case p.Wait > 0:
		p.Owner, p.Why = OwnedByUser, SlowLane
	case nodeStep(in.Claim.Status.AllocatedResourceStatuses[v1.ResourceStorage]):
		p.Owner, p.Why = OwnedByKubelet, KubeletStep
	}
	return p
}

// firstJob picks the job whose step runs now. Both decisions are made in
// the same sync by one worker, so a claim's expansion and modification
// never run at once: the driver gets one call per volume at a time, and
// the two never race on the claim's status. When both have a step and one
// failed last (its remembered failure is the more recent), the other goes
// first: turns are fair, so a job that keeps failing never holds the other
// back. Otherwise:
//  1. a modification whose driver call may still be running (recorded in
//     progress, not known to have failed), then such an expansion: what the
//     backend may still be doing is finished before anything new starts;
//  2. an expansion, unless its last attempt failed: capacity is what a
//     full volume needs, and a class change can wait a few seconds;
//  3. the modification (so that a failing expansion does not hold back a
//     class change), then the expansion that failed.
//
// Either way an uncertain target of a job is finished before any new
// target of that same job (the decisions see to it).
func firstJob(r ResizeDecision, m ModifyDecision, resizeFailed bool, mem Memory) Job {
	expands, modifies := r.Action.Acts(), m.Action.Acts()
	rf, mf := mem.ResizeFailure, mem.ModifyFailure
	resizedLast := rf != nil && (mf == nil || rf.At.After(mf.At))
	switch {
	case expands && modifies && resizedLast:
		return ModifyJob
	case expands && modifies && mf != nil:
		return ResizeJob
	case m.Action.CallsDriver() && !m.RecordIntent:
		return ModifyJob
	case expands && (r.Action.CallsDriver() && !r.RecordIntent || !resizeFailed):
		return ResizeJob
	case modifies:
		return ModifyJob
	case expands:
		return ResizeJob
	}
	return NoJob
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
