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

// Package claimstatus reads and builds the status a claim and its volume
// carry at each step of both jobs, and the merge patches that write the
// difference. The builders are pure: they return changed copies and never
// touch the input.
package claimstatus

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotation keys and messages shared with kubelet and other tools; they are
// the upstream strings, byte for byte.
const (
	// AnnNodeExpansionNotRequired marks a claim whose last resize needed no
	// node step.
	AnnNodeExpansionNotRequired = "volume.kubernetes.io/node-expansion-not-required"
	// AnnPreResizeCapacity records on the PV the claim's capacity before a
	// resize that still needs the node step (feature AnnotateFsResize).
	AnnPreResizeCapacity = "volume.alpha.kubernetes.io/pre-resize-capacity"
	// FileSystemResizePendingMessage is the message of the
	// FileSystemResizePending condition.
	FileSystemResizePendingMessage = "Waiting for user to (re-)start a pod to finish file system resize of volume on node."
)

// ResizeIntent returns a copy of pvc that records target as being expanded
// by the controller: allocatedResources, ControllerResizeInProgress,
// Resizing=True. The conditions of one size share one transition time, when
// the resizer began expanding to it: a retry of a size whose failure is
// recorded keeps the failure's, and ResizeFailed keeps Resizing's, so a
// claim that keeps failing shows how long it has been stuck.
func ResizeIntent(pvc *v1.PersistentVolumeClaim, target resource.Quantity, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	resizing := condition(v1.PersistentVolumeClaimResizing, "")
	if allocated, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]; ok && allocated.Cmp(target) == 0 {
		if failure := Find(pvc.Status.Conditions, v1.PersistentVolumeClaimControllerResizeError); failure != nil {
			resizing.LastTransitionTime = failure.LastTransitionTime
		}
	}
	put(&out.Status.AllocatedResources, v1.ResourceStorage, target)
	put(&out.Status.AllocatedResourceStatuses, v1.ResourceStorage, v1.PersistentVolumeClaimControllerResizeInProgress)
	out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now, resizing)
	delete(out.Annotations, AnnNodeExpansionNotRequired)
	return out
}

// NodePending returns a copy of pvc handed over to kubelet for the file
// system step. allocatedResources stays the size the intent recorded, even
// when the driver allocated more: kubelet expands the file system to it, and
// marks the claim NodeResizeInfeasible on a second final node failure when
// it differs from the request. The driver's larger size is recorded after
// kubelet has finished (VolumeSizeRecorded).
func NodePending(pvc *v1.PersistentVolumeClaim, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	put(&out.Status.AllocatedResourceStatuses, v1.ResourceStorage, v1.PersistentVolumeClaimNodeResizePending)
	out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now,
		condition(v1.PersistentVolumeClaimFileSystemResizePending, FileSystemResizePendingMessage))
	delete(out.Annotations, AnnNodeExpansionNotRequired)
	return out
}

// NodeRetry returns a copy of pvc handed back to kubelet at size, the
// lowered request, after kubelet found the recorded size infeasible:
// allocatedResources = size, as NodePending otherwise.
func NodeRetry(pvc *v1.PersistentVolumeClaim, size resource.Quantity, now metav1.Time) *v1.PersistentVolumeClaim {
	out := NodePending(pvc, now)
	put(&out.Status.AllocatedResources, v1.ResourceStorage, size)
	return out
}

// ShortAnswer returns a copy of pvc recording a driver that answered
// success with size, below the size asked for: what the volume has is the
// claim's. With a node step and a size the claim does not have yet, kubelet
// gets it (allocatedResources = size, NodeResizePending). Otherwise the
// capacity is the size (without a node step) and allocatedResources the
// capacity, with no step in progress, so that a request lowered to what the
// volume has leaves nothing behind (ResourceQuota charges
// allocatedResources). ControllerResizeError, of reason ReasonBelowTarget,
// says with message that the request is not reached.
func ShortAnswer(pvc *v1.PersistentVolumeClaim, size resource.Quantity, nodeStep bool, message string, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	failure := condition(v1.PersistentVolumeClaimControllerResizeError, message)
	failure.Reason = ReasonBelowTarget
	capacity := out.Status.Capacity[v1.ResourceStorage]
	if nodeStep && size.Cmp(capacity) > 0 {
		put(&out.Status.AllocatedResources, v1.ResourceStorage, size)
		put(&out.Status.AllocatedResourceStatuses, v1.ResourceStorage, v1.PersistentVolumeClaimNodeResizePending)
		out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now,
			condition(v1.PersistentVolumeClaimFileSystemResizePending, FileSystemResizePendingMessage), failure)
		delete(out.Annotations, AnnNodeExpansionNotRequired)
		return out
	}
	if !nodeStep && size.Cmp(capacity) > 0 {
		capacity = size
		put(&out.Status.Capacity, v1.ResourceStorage, size)
	}
	put(&out.Status.AllocatedResources, v1.ResourceStorage, capacity)
	clearResizeStatus(out)
	out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now, failure)
	return out
}

// ResizeFinished returns a copy of pvc whose resize is complete at size.
// allocatedResources is raised to size, the capacity the driver reported,
// never lowered (it is the attempt's target, and size at least that):
// ResourceQuota charges a claim max(request, allocatedResources), so the
// quota counts what was really allocated from this write on.
func ResizeFinished(pvc *v1.PersistentVolumeClaim, size resource.Quantity, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	if current, ok := out.Status.AllocatedResources[v1.ResourceStorage]; !ok || current.Cmp(size) < 0 {
		put(&out.Status.AllocatedResources, v1.ResourceStorage, size)
	}
	put(&out.Status.Capacity, v1.ResourceStorage, size)
	out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now)
	clearResizeStatus(out)
	put(&out.Annotations, AnnNodeExpansionNotRequired, "true")
	return out
}

// ResizeFailed returns a copy of pvc recording a failed controller
// expansion; infeasible sizes are marked ControllerResizeInfeasible, for the
// user and a restarted controller. ControllerResizeError replaces Resizing
// with its transition time; its reason is code, the driver's gRPC code's
// name, so that nothing parses the message (upstream leaves it empty).
func ResizeFailed(pvc *v1.PersistentVolumeClaim, infeasible bool, code, message string, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	if infeasible {
		put(&out.Status.AllocatedResourceStatuses, v1.ResourceStorage, v1.PersistentVolumeClaimControllerResizeInfeasible)
	}
	failure := condition(v1.PersistentVolumeClaimControllerResizeError, message)
	failure.Reason = code
	if resizing := Find(pvc.Status.Conditions, v1.PersistentVolumeClaimResizing); resizing != nil {
		failure.LastTransitionTime = resizing.LastTransitionTime
	}
	out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now, failure)
	return out
}

// ReasonBelowTarget is the reason of the ControllerResizeError of a driver
// that answered success with less than it was asked for.
const ReasonBelowTarget = "BelowTarget"

// ErrorRecorded reports whether pvc carries ControllerResizeError=True.
func ErrorRecorded(pvc *v1.PersistentVolumeClaim) bool {
	return Find(pvc.Status.Conditions, v1.PersistentVolumeClaimControllerResizeError) != nil
}

// VolumeWithCapacity returns a copy of pv whose capacity is raised to size,
// never lowered. preResize, when not nil, is recorded as the claim's
// capacity before the resize (feature AnnotateFsResize).
func VolumeWithCapacity(pv *v1.PersistentVolume, size resource.Quantity, preResize *resource.Quantity) *v1.PersistentVolume {
	out := pv.DeepCopy()
	if current := out.Spec.Capacity[v1.ResourceStorage]; size.Cmp(current) > 0 {
		put(&out.Spec.Capacity, v1.ResourceStorage, size)
	}
	if preResize != nil {
		put(&out.Annotations, AnnPreResizeCapacity, preResize.String())
	}
	return out
}

// VolumeWithoutPreResize returns a copy of pv without AnnPreResizeCapacity.
func VolumeWithoutPreResize(pv *v1.PersistentVolume) *v1.PersistentVolume {
	out := pv.DeepCopy()
	delete(out.Annotations, AnnPreResizeCapacity)
	return out
}

// VolumeSizeRecorded returns a copy of pvc whose complete resize is
// recorded at size, the volume's, which the driver allocated beyond what
// kubelet finished at: status.capacity and allocatedResources.
func VolumeSizeRecorded(pvc *v1.PersistentVolumeClaim, size resource.Quantity) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	put(&out.Status.AllocatedResources, v1.ResourceStorage, size)
	put(&out.Status.Capacity, v1.ResourceStorage, size)
	return out
}

// put sets m[k] to v, making m first when it is nil.
func put[M ~map[K]V, K comparable, V any](m *M, k K, v V) {
	if *m == nil {
		*m = M{}
	}
	(*m)[k] = v
}

func clearResizeStatus(pvc *v1.PersistentVolumeClaim) {
	delete(pvc.Status.AllocatedResourceStatuses, v1.ResourceStorage)
	if len(pvc.Status.AllocatedResourceStatuses) == 0 {
		pvc.Status.AllocatedResourceStatuses = nil
	}
}

// conditionSet is a set of condition types one operation owns. Merging the
// conditions of one operation keeps every other condition as it is: the
// other operation's, and kubelet's NodeResizeError.
type conditionSet map[v1.PersistentVolumeClaimConditionType]bool

// resizeConditions and modifyConditions are what each job's steps own.
var resizeConditions = conditionSet{
	v1.PersistentVolumeClaimResizing:                true,
	v1.PersistentVolumeClaimFileSystemResizePending: true,
	v1.PersistentVolumeClaimControllerResizeError:   true,
}

var modifyConditions = conditionSet{
	v1.PersistentVolumeClaimVolumeModifyingVolume:   true,
	v1.PersistentVolumeClaimVolumeModifyVolumeError: true,
}

func condition(t v1.PersistentVolumeClaimConditionType, message string) v1.PersistentVolumeClaimCondition {
	return v1.PersistentVolumeClaimCondition{Type: t, Status: v1.ConditionTrue, Message: message}
}

// merge replaces the conditions of owned in existing with set. A condition
// that was already true keeps its place and transition time, and its probe
// time unless set gives one, so that repeating a step writes nothing new. A
// new condition's transition time is now, unless set gives one (a step that
// carries when its attempt began).
func (owned conditionSet) merge(existing []v1.PersistentVolumeClaimCondition, now metav1.Time, set ...v1.PersistentVolumeClaimCondition) []v1.PersistentVolumeClaimCondition {
	wanted := make(map[v1.PersistentVolumeClaimConditionType]v1.PersistentVolumeClaimCondition, len(set))
	for _, c := range set {
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
		}
		wanted[c.Type] = c
	}
	var out []v1.PersistentVolumeClaimCondition
	for _, old := range existing {
		if !owned[old.Type] {
			out = append(out, old)
			continue
		}
		c, ok := wanted[old.Type]
		if !ok {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
			if c.LastProbeTime.IsZero() {
				c.LastProbeTime = old.LastProbeTime
			}
		}
		out = append(out, c)
		delete(wanted, old.Type)
	}
	for _, c := range set {
		if w, ok := wanted[c.Type]; ok {
			out = append(out, w)
		}
	}
	return out
}
