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
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
)

// The failure vocabulary: for each job and each answer of its driver call
// (a gRPC code, or none), how the failure is classed, what happens next,
// and the words that explain it. The controller's events, the kubectl
// plugin's advice and the chart's alerts all read it from here.

// Next is what follows a failed driver call.
type Next int

const (
	// RetrySame: the call may still complete in the backend, so the same
	// target is asked for again until it does.
	RetrySame Next = iota
	// RetryBackoff: retried with backoff, at what the claim asks for then.
	RetryBackoff
	// RetrySlow: the target cannot be had; it is asked for again only on
	// the slow lane (every --retry-interval-max) unless the claim changes.
	RetrySlow
	// RetryWhenUnused: the driver cannot act while a pod uses the volume;
	// with in-use handling, the next call waits until no pod does.
	RetryWhenUnused
)

// Meaning is what a failed call of a job means, as the vocabulary says. Its
// words are templates: MeaningOf fills in {verb}, {method}, {target} and
// {timeout}, which name the job's call; whoever renders them fills in
// {secret} (where the call's Secret is configured: package secrets knows
// the parameter names) and the claim's facts {pv}, {handle}, {driver},
// {class} and {params} ({handle} and {class} quoted).
type Meaning struct {
	Job  Job
	Code string
	// Class is how the failure is classed (see Rules).
	Class Class
	Next  Next
	// RetargetHelps is true when another size (or class) may succeed where
	// this one failed, so advice to change the request applies.
	RetargetHelps bool
	// Means says, in a sentence, what the answer means for the job.
	Means string
	// Until says what must change before a retry can succeed, when another
	// size or class does not help.
	Until string
	// Can is what the user can do about it, each a sentence.
	Can []string
	// CanWhenUnused is said instead of Can when no pod uses the claim.
	CanWhenUnused []string
	// Alert is what the chart's CSIResizerClaimsInfeasible alert says of
	// an infeasible code; "" for the others.
	Alert string
}

// CodeNames are the answers the vocabulary knows: every gRPC code but OK,
// and ReasonUncertain for a failure without one.
func CodeNames() []string {
	names := []string{ReasonUncertain}
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		names = append(names, c.String())
	}
	return names
}

// MeaningOf is what a failed call of job that answered code means; code is
// a gRPC code's name or ReasonUncertain. A code outside gRPC's ("Code(42)")
// is final, as every code the CSI spec does not name otherwise.
func MeaningOf(job Job, code string) Meaning {
	c := Final
	if slices.Contains(CodeNames(), code) {
		c = rulesOf(job).ClassOfReason(code)
	}
	fill := strings.NewReplacer("{verb}", "expand", "{method}", "ControllerExpandVolume", "{target}", "size", "{timeout}", "--resize-timeout")
	if job == ModifyJob {
		fill = strings.NewReplacer("{verb}", "modify", "{method}", "ControllerModifyVolume", "{target}", "class", "{timeout}", "--modify-timeout")
	}
	m := row(job, code)
	m.Job, m.Code, m.Class, m.Next = job, code, c, nextOf(job, code, c)
	m.Means, m.Until = fill.Replace(m.Means), fill.Replace(m.Until)
	for i := range m.Can {
		m.Can[i] = fill.Replace(m.Can[i])
	}
	return m
}

func rulesOf(job Job) Rules {
	if job == ModifyJob {
		return ModifyRules
	}
	return ResizeRules
}

func nextOf(job Job, code string, c Class) Next {
	switch {
	case c == Uncertain:
		return RetrySame
	case c == Infeasible:
		return RetrySlow
	case job == ResizeJob && code == codes.FailedPrecondition.String():
		return RetryWhenUnused
	}
	return RetryBackoff
}

// row holds the words of job's failure with code: first what only one job
// says, then what both say.
func row(job Job, code string) Meaning {
	switch {
	case job == ResizeJob && code == codes.InvalidArgument.String():
		return Meaning{RetargetHelps: true,
			Means: "The request is invalid (InvalidArgument): most often the size, which the driver cannot have; the message says what it found invalid.",
			Can:   []string{"If the message is about the volume rather than its size (its capability, its CSI source), no size helps: fix PV {pv}."},
			Alert: "OutOfRange or InvalidArgument, a size the driver cannot have: lower the request to a size it accepts, above the claim's status.capacity"}
	case job == ResizeJob && code == codes.OutOfRange.String():
		return Meaning{RetargetHelps: true,
			Means: "The size is outside the range the driver supports for the volume (OutOfRange); the message may give the range.",
			Alert: "OutOfRange or InvalidArgument, a size the driver cannot have: lower the request to a size it accepts, above the claim's status.capacity"}
	case job == ResizeJob && code == codes.FailedPrecondition.String():
		return Meaning{Until: "until the volume's state allows it",
			Means:         "The driver cannot expand the volume in its present state (FailedPrecondition): most often because a pod uses it and the driver expands volumes only when none does.",
			CanWhenUnused: []string{"No pod uses the claim now, so the next attempt may pass; if it fails again, the message says which condition the volume does not meet."}}
	case job == ModifyJob && code == codes.InvalidArgument.String():
		return Meaning{RetargetHelps: true,
			Means: "The driver refused the parameters of class {class} (InvalidArgument): the message says which.",
			Can: []string{"Compare the parameters of VolumeAttributesClass {class} ({params}) with what driver {driver} accepts; a class cannot be edited, " +
				"so create one with parameters it accepts and set spec.volumeAttributesClassName to it."},
			Alert: "the driver refused the parameters of the VolumeAttributesClass (InvalidArgument); set the claim's class to one whose parameters the driver accepts, or back."}
	case job == ModifyJob && code == codes.OutOfRange.String():
		return Meaning{RetargetHelps: true,
			Means: "A value is beyond what the driver supports (OutOfRange), most likely a parameter of class {class}; the message says which.",
			Can:   []string{"Set spec.volumeAttributesClassName to a class whose parameters driver {driver} supports."}}
	case job == ModifyJob && code == codes.FailedPrecondition.String():
		return Meaning{Until: "until the volume's state allows it",
			Means: "The driver cannot modify the volume in its present state (FailedPrecondition): some backends allow a change only once the last one has settled, or only so often.",
			Can:   []string{"The message says what must happen first; the resizer tries again with backoff, and another class would meet the same condition."}}
	}
	return common(job, code)
}

// common holds the words of the codes whose meaning both jobs share.
func common(job Job, code string) Meaning {
	fixIt := "Fix what the driver reports: the next attempt picks it up."
	switch code {
	case codes.NotFound.String():
		m := Meaning{Until: "until the driver knows the volume",
			Means: "The driver does not know the volume (NotFound): it has no volume with the handle {handle} of PV {pv}.",
			Can: []string{"Check PV {pv}: its spec.csi.volumeHandle {handle} must name a volume that driver {driver} serves (was the volume deleted in the backend, " +
				"or the PV written by hand, or does the driver run against another backend?); the driver's log shows its lookup. Once it knows the volume, the next retry goes through."}}
		if job == ResizeJob {
			m.Alert = "NotFound, the driver does not know the volume: no request helps, check the PV's spec.csi.volumeHandle and that the driver serves the backend that holds the volume"
		}
		return m
	case codes.Canceled.String():
		return Meaning{Means: "The call was canceled before the driver answered (Canceled), as when the resizer stops: the driver may still {verb} the volume."}
	case codes.DeadlineExceeded.String():
		return Meaning{Means: "The driver did not answer within the resizer's {timeout} (DeadlineExceeded): it may still {verb} the volume.",
			Can: []string{"If the backend is only slow, a longer {timeout} spares it calls that time out."}}
	case codes.Unavailable.String():
		return Meaning{Means: "The driver could not be reached, or was not ready (Unavailable): it may still {verb} the volume.",
			Can: []string{"Check that the driver's controller plugin runs, and listens on the resizer's --csi-address."}}
	case codes.ResourceExhausted.String():
		return Meaning{Means: "The driver or its backend ran out of something (ResourceExhausted): a quota, a rate limit or free capacity; the call may still {verb} the volume.",
			Can: []string{"Check the backend's quotas, rate limits and free capacity: the resizer calls again with backoff."}}
	case codes.Aborted.String():
		return Meaning{Means: "The driver was busy with another operation on the volume (Aborted): the resizer calls again with backoff."}
	case codes.Unimplemented.String():
		return Meaning{Until: "until the driver implements {method}",
			Means: "The driver does not implement {method} (Unimplemented), though the resizer found it advertised.",
			Can:   []string{"Check the version and the configuration of driver {driver}; another {target} does not help."}}
	case codes.PermissionDenied.String(), codes.Unauthenticated.String():
		return Meaning{Until: "until the driver is allowed to",
			Means: "The driver or its backend refused the call for want of rights or credentials (" + code + ").",
			Can:   []string{"Check the driver's credentials for its backend, and the Secret the resizer sends with {method} ({secret}); another {target} does not help."}}
	case codes.DataLoss.String():
		return Meaning{Until: "until the volume is repaired",
			Means: "The driver reports data lost or corrupted (DataLoss).",
			Can:   []string{"Check PV {pv}'s volume in the backend before anything else: the resizer keeps trying with backoff."}}
	case codes.Internal.String(), codes.Unknown.String(), codes.AlreadyExists.String():
		return Meaning{RetargetHelps: true, Means: "The driver failed (" + code + "): its message, and its log, say why.", Can: []string{fixIt}}
	case ReasonUncertain:
		return Meaning{Means: "The failure carries no gRPC code (the message says what failed), so the resizer takes it for a call that may still complete, and retries the same {target}."}
	}
	return Meaning{RetargetHelps: true, Can: []string{fixIt}}
}
