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

// Package plugin is the kubectl plugin `kubectl csi-resizer` (Command; the
// binary is cmd/kubectl-csi_resizer). `explain` says in plain words where a
// claim stands: the state the resizer records (decide.Unfinished, as the
// metric csi_resizer_claims counts it), since when, who owns the next step,
// what the resizer decides next (decide.Claim) and what the user can do. It
// reads with get and list only (Gather), then explains without I/O
// (Explain; Text, JSON). `list` lists the unfinished operations of a scope
// with explain's rules and words, from one list per kind of object (Read,
// List; Table, JSON).
package plugin

import (
	"fmt"
	"slices"
	"time"
	"unicode"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/inuse"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// maxEvents bounds the events an explanation lists.
const maxEvents = 10

// Explain explains the objects read of one claim, at now.
func Explain(o *Objects, now time.Time) Explanation {
	x := Explanation{
		At:           now.UTC(),
		Claim:        claimOf(o.Claim),
		Volume:       volumeOf(o.Volume),
		StorageClass: storageClassOf(o),
		Owner:        ownerOf(o),
		Events:       eventsOf(o.Events, maxEvents),
		Warnings:     o.Warnings,
	}
	if !x.Owner.Handled {
		return x
	}
	f := newFacts(o, x.Owner.Driver, now)
	x.Resizer = f.resizer
	x.Operations = []Operation{f.expansion(), f.modification()}
	x.Unknowns = f.unknowns(x.Operations)
	return x
}

// facts are what explaining a handled claim's operations reads; users are
// the pods that may have it mounted, as the resizer's pod tracker counts.
// The rest is what the resizer's own decisions (decide.Claim) say of the
// recorded state, as a resizer just started would (its memory of the last
// failure is not in the API), and the entries of decide.Unfinished.
type facts struct {
	o                        *Objects
	driver                   string
	resizer                  *Resizer
	settings                 Settings
	settingsUnread           string
	now                      time.Time
	users                    []string
	plan                     decide.Plan
	resizeState              decide.ResizeState
	modifyState              decide.ModifyState
	resizeEntry, modifyEntry decide.Entry
	resizing, modifying      bool
}

// newFacts reads the facts of o for driver's resizer, with every call the
// plugin makes of the resizer's decisions.
func newFacts(o *Objects, driver string, now time.Time) *facts {
	f := &facts{o: o, driver: driver, resizer: resizerOf(o, driver, now), now: now,
		users: inuse.UsersOf(o.Pods, o.Claim.Namespace, o.Claim.Name)}
	f.settings, f.settingsUnread = settingsOf(o.resizerLease(driver))
	f.resizer.Settings = f.settings
	in := decide.Input{Claim: o.Claim, Volume: o.Volume, Now: now,
		ClassDriver: func(name string) (string, bool) {
			vac, ok := o.AttributesClasses[name]
			if !ok {
				return "", false
			}
			return vac.DriverName, true
		},
		Settings: decide.Settings{Driver: driver, Resize: true, Modify: true, Recovery: f.settings.Recovery,
			AnnotateFsResize: f.settings.AnnotateFsResize, OnlyOffline: f.settings.OfflineOnly, RetryMax: f.settings.retryMax()}}
	if f.settings.OfflineOnly && f.settings.HandleVolumeInUseError {
		in.PodsUsing = f.users // the resizer watches pods for such a driver only
	}
	f.plan, f.resizeState = decide.Claim(in), decide.ResizeStateFor(in)
	f.modifyState = decide.ModifyStateOf(driver, o.Claim, o.Volume, in.ClassDriver, nil)
	heldBack := func(*slim.Claim) bool { return len(f.plan.HeldBackBy) > 0 }
	claim := slim.NewClaim(o.Claim)
	f.resizeEntry, f.resizing = decide.UnfinishedResize(claim, heldBack)
	f.modifyEntry, f.modifying = decide.UnfinishedModify(claim)
	return f
}

// settle is the operation of decision d and entry, said by step s; a step
// of the resizer or its driver is nobody's when no resizer runs.
func (f *facts) settle(name decide.Operation, d Decision, retryAfter time.Duration, entry decide.Entry, inState bool, s step) Operation {
	op := &Operation{Operation: string(name), State: StateNone, Decision: d}
	if retryAfter > 0 {
		op.Decision.RetryAfter = retryAfter.Round(time.Second).String()
	}
	if inState {
		op.State = string(entry.State)
		if !entry.Since.IsZero() {
			since := entry.Since.UTC()
			op.Since, op.SinceFrom = &since, string(entry.SinceFrom)
		}
	}
	op.Summary, op.NextStepBy, op.Next, op.UserCan = s.summary, s.by, s.next, s.can
	if f.resizer.Status == ResizerNotRunning && (s.by == ByResizer || s.by == ByDriver) {
		op.NextStepBy = ByNobody
		node, then := "", s.next
		if f.resizer.Node != "" {
			node = " on node " + f.resizer.Node
		}
		if then != "" && unicode.IsUpper(rune(then[0])) {
			then = string(unicode.ToLower(rune(then[0]))) + then[1:]
		}
		op.Next = fmt.Sprintf("No resizer is running for driver %s%s, so nothing happens until one runs; then %s", f.driver, node, then)
	}
	op.Decision.Summary = decisionSummary(*op, s.decision)
	return *op
}

// step is what explain says of an operation; decision (continuing "the
// resizer will") words it where the action alone would mislead.
type step struct {
	summary, by, next string
	can               []string
	decision          string
}

// unknowns are what the explanation of ops cannot know.
func (f *facts) unknowns(ops []Operation) []string {
	var out []string
	// The resizer's next call depends on a backoff or slow retry that only
	// its memory holds: its own (or its driver's) step, or a refused target.
	if slices.ContainsFunc(ops, func(op Operation) bool {
		return op.NextStepBy == ByResizer || op.NextStepBy == ByDriver ||
			op.State == string(decide.ControllerInfeasible) || op.State == string(decide.ModifyInfeasible)
	}) {
		out = append(out, "When exactly the resizer retries: its backoff and the last failure it remembers live in its memory, "+
			"which the API does not show (a restarted resizer remembers none and tries at once).")
	}
	if f.settings.From == defaultsFrom {
		out = append(out, fmt.Sprintf("The resizer's settings: %s, so explain assumes the defaults "+
			"(--retry-interval-start=%s, --retry-interval-max=%s, RecoverVolumeExpansionFailure %s).",
			f.whySettingsUnread(), f.settings.retryStart(), f.settings.retryMax(), onOff(f.settings.Recovery)))
	}
	if f.resizer.Status == ResizerNotRunning && len(f.o.Leases) == 0 && len(f.o.NodeLeases) == 0 {
		out = append(out, "A resizer started without --leader-election holds no Lease: explain cannot see it, and takes it for not running.")
	}
	if len(f.users) > 0 && ops[0].Decision.Action == decide.Expand.String() {
		out = append(out, "Whether the driver expands volumes in use: explain reads it from the resizer's events, which expire (after an hour by default).")
	}
	if ops[1].State != StateNone || ops[1].Decision.Action != "none" {
		out = append(out, "Whether the resizer modifies volumes at all: it does only when its driver advertises MODIFY_VOLUME and its gate "+
			"VolumeAttributesClass is on, neither of which the API shows.")
	}
	return out
}

// whySettingsUnread says why explain has no settings of the resizer.
func (f *facts) whySettingsUnread() string {
	switch {
	case f.o.LeaseUnread:
		return "explain could not read the resizer's Lease, which publishes them"
	case f.o.nodeMode() && f.o.resizerLease(f.driver) == nil:
		return fmt.Sprintf("there is no node Lease of the resizer on node %s, which would publish them", f.resizer.Node)
	case len(f.o.Leases) == 0 && !f.o.nodeMode():
		return "there is no Lease of the resizer, which would publish them"
	case freshest(f.o.Leases) == nil && !f.o.nodeMode():
		return "no replica holds the resizer's Lease, which would publish them"
	}
	return f.settingsUnread
}

func claimOf(pvc *v1.PersistentVolumeClaim) Claim {
	c := Claim{
		Namespace:        pvc.Namespace,
		Name:             pvc.Name,
		Phase:            string(pvc.Status.Phase),
		VolumeName:       pvc.Spec.VolumeName,
		StorageClassName: ptr.Deref(pvc.Spec.StorageClassName, ""),
		Request:          sizeOf(pvc.Spec.Resources.Requests),
		Capacity:         sizeOf(pvc.Status.Capacity),
		Allocated:        sizeOf(pvc.Status.AllocatedResources),
		ResizeStatus:     string(pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage]),
		Class:            ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""),
		CurrentClass:     ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, ""),
	}
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		c.ModifyStatus, c.ModifyTarget = string(m.Status), m.TargetVolumeAttributesClassName
	}
	return c
}

func volumeOf(pv *v1.PersistentVolume) *Volume {
	if pv == nil {
		return nil
	}
	v := &Volume{Name: pv.Name, Size: sizeOf(pv.Spec.Capacity), InTree: inTreeSource(pv), Class: ptr.Deref(pv.Spec.VolumeAttributesClassName, "")}
	if pv.Spec.CSI != nil {
		v.CSIDriver = pv.Spec.CSI.Driver
	}
	return v
}

func storageClassOf(o *Objects) *StorageClass {
	name := ptr.Deref(o.Claim.Spec.StorageClassName, "")
	switch {
	case name == "":
		return nil
	case o.StorageClass != nil:
		sc := o.StorageClass
		return &StorageClass{Name: name, Exists: true, Provisioner: sc.Provisioner, AllowVolumeExpansion: ptr.Deref(sc.AllowVolumeExpansion, false)}
	case o.StorageClassMissing:
		return &StorageClass{Name: name}
	}
	return nil // unread: a warning says so
}

func sizeOf(list v1.ResourceList) string {
	q, ok := list[v1.ResourceStorage]
	if !ok {
		return ""
	}
	return q.String()
}

func size(q resource.Quantity) string { return q.String() }

// trueCondition is pvc's condition t when True, else the zero condition.
func trueCondition(pvc *v1.PersistentVolumeClaim, t v1.PersistentVolumeClaimConditionType) v1.PersistentVolumeClaimCondition {
	for _, c := range pvc.Status.Conditions {
		if c.Type == t && c.Status == v1.ConditionTrue {
			return c
		}
	}
	return v1.PersistentVolumeClaimCondition{}
}
