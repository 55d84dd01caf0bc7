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

package plugin

import (
	"cmp"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
)

type expansion struct {
	*facts
	s decide.ResizeState
	d decide.ResizeDecision
}

// expansion explains the claim's expansion from the resizer's decision on
// its recorded state.
func (f *facts) expansion() Operation {
	x := expansion{facts: f, s: f.resizeState, d: f.plan.Resize}
	target := ""
	if !x.d.Target.IsZero() {
		target = x.d.Target.String()
	}
	return f.settle(decide.OpResize, Decision{Action: x.d.Action.String(), Target: target, Reason: x.d.Reason},
		x.d.RetryAfter, f.resizeEntry, f.resizing, x.step(f.resizeEntry.State, f.resizing))
}

// expansionSteps explain the states with a step of their own.
var expansionSteps = map[decide.Stage]func(expansion) step{decide.ControllerInProgress: expansion.inProgress,
	decide.ControllerError: expansion.failed, decide.ControllerInfeasible: expansion.infeasible,
	decide.WaitingInUse: expansion.waitingInUse, decide.NodePending: expansion.nodePending}

func (x expansion) step(state decide.Stage, inState bool) step {
	switch explain, ok := expansionSteps[state]; {
	case !inState:
		return x.idle()
	case ok:
		return explain(x)
	case state == decide.NodeInProgress:
		return step{summary: fmt.Sprintf("The volume is expanded to %s; kubelet is growing the file system on the node.", x.allocated()),
			by: ByKubelet, next: "kubelet finishes the expansion and records the new capacity in the claim."}
	}
	return x.nodeInfeasible()
}

// allocated is the recorded size, or the request when none is recorded.
func (x expansion) allocated() string {
	if x.s.Allocated == nil {
		return size(x.s.Request)
	}
	return size(*x.s.Allocated)
}

// idle explains a claim whose status records no unfinished expansion.
func (x expansion) idle() step {
	switch {
	case x.d.Action == decide.Expand:
		return step{summary: fmt.Sprintf("The request %s exceeds the capacity %s, and no expansion is recorded yet.", size(x.s.Request), size(x.s.Capacity)),
			by: ByResizer, next: fmt.Sprintf("The resizer records the expansion to %s and calls the driver as soon as it sees the claim.", size(x.d.Target))}
	case x.d.Action == decide.NodeRetry:
		return step{summary: fmt.Sprintf("The request %s exceeds the capacity %s, which kubelet grew the file system to; the volume already holds %s.", size(x.s.Request), size(x.s.Capacity), size(x.s.PVSize)),
			by: ByResizer, next: fmt.Sprintf("The resizer hands the claim to kubelet at %s as soon as it sees the claim, without calling the driver: only the file system grows.", size(x.d.Target))}
	case x.d.Action == decide.RecordVolumeSize:
		return step{summary: fmt.Sprintf("kubelet finished the expansion at %s, and the driver allocated more: the volume is %s.", size(x.s.Capacity), size(x.d.Target)),
			by: ByResizer, next: fmt.Sprintf("The resizer records %s as the claim's capacity as soon as it sees the claim, without calling the driver.", size(x.d.Target))}
	case x.s.Validate() != nil:
		return step{summary: "No decision can be made about the claim: " + x.d.Reason + ".", by: ByUser,
			next: "The resizer leaves the claim alone until that size changes.", can: []string{"Set a request of a usual size."}}
	}
	s := step{summary: fmt.Sprintf("Nothing to do: the claim has %s, and requests %s.", size(x.s.Capacity), size(x.s.Request)), by: ByNone,
		next: "Nothing, until the request is raised above the capacity."}
	// Why the API server refuses a larger request, as its admission plugin
	// PersistentVolumeClaimResize does; "" when the class could not be read.
	why, sc := "", storageClassOf(x.o)
	switch {
	case ptr.Deref(x.o.Claim.Spec.StorageClassName, "") == "":
		why = "the claim has no StorageClass"
	case sc == nil:
	case !sc.Exists:
		why = fmt.Sprintf("its StorageClass %s does not exist", sc.Name)
	case !sc.AllowVolumeExpansion:
		why = fmt.Sprintf("its StorageClass %s does not allow volume expansion", sc.Name)
	}
	s.can = []string{"Raise spec.resources.requests.storage to expand the volume."}
	if why != "" {
		s.can = []string{"Nothing for a larger size: " + why + ", so the API server refuses a larger request."}
	}
	return s
}

// inProgress: the resizer recorded the intent; the call is in flight, or
// is retried after an answer that was not final.
func (x expansion) inProgress() step {
	target := x.allocated()
	s := step{summary: fmt.Sprintf("The resizer recorded the expansion to %s and calls the driver.", target), by: ByResizer,
		can: []string{fmt.Sprintf("Nothing but wait: %s must be finished first, as the driver may still be expanding the volume to it.", target)}}
	if req := size(x.s.Request); req != target {
		s.can = append(s.can, fmt.Sprintf("Your request of %s is followed once %s is done.", req, target))
	}
	newest := newestOf(x.o.Events, x.driver, resizeReasons)
	what := fmt.Sprintf("for %s until the driver answers (no event of the resizer shows whether a call is in flight now)", target)
	switch {
	case newest != nil && newest.Reason == events.ReasonResizing:
		s.by = ByDriver
		s.next = fmt.Sprintf("The driver is expanding the volume to %s: the resizer called it %s (event %s) and records its answer.",
			target, ago(lastSeen(newest), x.now), events.ReasonResizing)
		return s
	case newest != nil && newest.Reason == events.ReasonResizeFailed:
		s.summary = sentences(s.summary, "Its last call got no final answer: "+newest.Message)
		if code := newest.Annotations[events.AnnotationCode]; knownCode(code) {
			a := x.advice(decide.ResizeJob, code, "")
			s.summary = sentences(s.summary, a.Means)
			s.can = append(s.can, a.Can...)
		}
		what = fmt.Sprintf("for %s, which is finished before any other size, whatever the request says meanwhile", target)
	}
	s.next = fmt.Sprintf("The resizer calls the driver again %s, with backoff (from --retry-interval-start %s, doubling up to --retry-interval-max %s).",
		what, x.settings.retryStart(), x.settings.retryMax())
	return s
}

// waitingInUse: the resizer holds the expansion back while pods use it.
func (x expansion) waitingInUse() step {
	pods := strings.Join(x.users, ", ")
	why := "(no event)"
	if newest := newestOf(x.o.Events, x.driver, resizeReasons); newest != nil {
		why = newest.Message
	}
	return step{
		summary:  fmt.Sprintf("The driver cannot expand the volume while a pod uses it, and pod(s) %s use it: %s", pods, why),
		by:       ByUser,
		next:     fmt.Sprintf("The resizer expands the volume to %s once the pods that use the claim are deleted (it watches pods; a finished pod counts until it is deleted).", size(x.d.Target)),
		can:      []string{fmt.Sprintf("Delete pod(s) %s, or scale their workload down: the driver expands only volumes that no pod uses.", pods)},
		decision: fmt.Sprintf("expand the volume to %s once no pod uses the claim, and not before", size(x.d.Target)),
	}
}

// nodePending: the volume is expanded; kubelet must grow the file system.
func (x expansion) nodePending() step {
	s := step{summary: fmt.Sprintf("The volume is expanded to %s; kubelet must grow the file system on the node.", x.allocated())}
	if x.d.Action == decide.Expand {
		s.by = ByResizer
		s.next = fmt.Sprintf("The PV records %s, less than %s: the resizer finishes the controller step first.", size(x.s.PVSize), x.allocated())
		return s
	}
	if len(x.users) > 0 {
		s.by = ByKubelet
		s.next = fmt.Sprintf("kubelet grows the file system for pod(s) %s: at its next sync if the driver expands mounted volumes on the node, "+
			"else when a pod mounts the volume again.", strings.Join(x.users, ", "))
		s.can = []string{"If it does not finish, restart the pod(s) using the claim."}
		return s
	}
	s.by = ByUser
	s.next = "kubelet grows the file system when a pod mounts the claim; no pod uses it now."
	s.can = []string{"Start a pod that uses the claim (or restart the one that did)."}
	return s
}

// nodeInfeasible: kubelet said the size cannot be had on the node.
func (x expansion) nodeInfeasible() step {
	s := step{summary: fmt.Sprintf("kubelet found %s infeasible on the node: %s", x.allocated(),
		cmp.Or(trueCondition(x.o.Claim, v1.PersistentVolumeClaimNodeResizeError).Message, noMessage))}
	switch x.d.Action {
	case decide.Expand:
		s.by = ByResizer
		s.next = fmt.Sprintf("The request asks for another size: the resizer expands to %s.", size(x.d.Target))
		return s
	case decide.NodeRetry:
		s.by = ByResizer
		s.next = fmt.Sprintf("The request is lowered to %s, which the volume holds: the resizer hands the claim back to kubelet at that size.", size(x.d.Target))
		return s
	}
	s.by = ByUser
	s.next = "Nothing, until the request asks for another size."
	s.can = append(x.lowerAdvice(&s), "Raise the request to a larger size: the resizer expands the volume to it, and kubelet tries again.")
	return s
}

// noMessage stands for the message of a condition that records none.
const noMessage = "(no message recorded)"
