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

// The builders of the status a claim and its volume should carry
// at each step of a resize, and writes the difference as a patch. The
// builders are pure: they return changed copies and never touch the input.

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

// ResizeIntent returns a copy of pvc that records target as being expanded by the
// controller: allocatedResources, ControllerResizeInProgress, Resizing=True.
//
// The conditions of one size share one transition time: when the resizer
// began expanding to it. A retry of a size whose failure is recorded keeps
// the failure's; ResizeFailed keeps Resizing's. So a claim that keeps failing
// shows how long it has been stuck, not its last attempt.
func ResizeIntent(pvc *v1.PersistentVolumeClaim, target resource.Quantity, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	resizing := condition(v1.PersistentVolumeClaimResizing, "")
	if failure := retried(pvc, target); failure != nil {
		resizing.LastTransitionTime = failure.LastTransitionTime
	}
	setAllocated(out, target)
	setResizeStatus(out, v1.PersistentVolumeClaimControllerResizeInProgress)
	out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now, resizing)
	delete(out.Annotations, AnnNodeExpansionNotRequired)
	return out
}

// retried returns pvc's ControllerResizeError when it records a failure to
// expand to target; nil otherwise.
func retried(pvc *v1.PersistentVolumeClaim, target resource.Quantity) *v1.PersistentVolumeClaimCondition {
	allocated, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]
	if !ok || allocated.Cmp(target) != 0 {
		return nil
	}
	return find(pvc, v1.PersistentVolumeClaimControllerResizeError)
}

// NodePending returns a copy of pvc handed over to kubelet for the file
// system step. allocatedResources stays the size the intent recorded, even
// when the driver allocated more: kubelet expands the file system to
// allocatedResources, and marks the claim NodeResizeInfeasible on a second
// final node failure when that differs from the request. The driver's
// larger size is recorded after kubelet has finished (Settled).
func NodePending(pvc *v1.PersistentVolumeClaim, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	setResizeStatus(out, v1.PersistentVolumeClaimNodeResizePending)
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
	setAllocated(out, size)
	return out
}

// ShortAnswer returns a copy of pvc recording a driver that answered
// success with size, below the size it was asked for: what the volume has
// is the claim's. With a node step and a size the claim does not have yet,
// the claim is handed to kubelet at that size (allocatedResources = size,
// NodeResizePending). Otherwise kubelet has nothing to do: the capacity is
// the size (without a node step) and allocatedResources the capacity, with
// no step in progress, so that a request lowered to what the volume has
// leaves nothing behind (ResourceQuota charges allocatedResources).
// ControllerResizeError says, with message, that the request is not
// reached; its reason is ReasonBelowTarget.
func ShortAnswer(pvc *v1.PersistentVolumeClaim, size resource.Quantity, nodeStep bool, message string, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	failure := condition(v1.PersistentVolumeClaimControllerResizeError, message)
	failure.Reason = ReasonBelowTarget
	capacity := out.Status.Capacity[v1.ResourceStorage]
	if nodeStep && size.Cmp(capacity) > 0 {
		setAllocated(out, size)
		setResizeStatus(out, v1.PersistentVolumeClaimNodeResizePending)
		out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now,
			condition(v1.PersistentVolumeClaimFileSystemResizePending, FileSystemResizePendingMessage), failure)
		delete(out.Annotations, AnnNodeExpansionNotRequired)
		return out
	}
	if !nodeStep && size.Cmp(capacity) > 0 {
		capacity = size
		if out.Status.Capacity == nil {
			out.Status.Capacity = v1.ResourceList{}
		}
		out.Status.Capacity[v1.ResourceStorage] = size
	}
	setAllocated(out, capacity)
	clearResizeStatus(out)
	out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now, failure)
	return out
}

// ResizeFinished returns a copy of pvc whose resize is complete at size; see
// recordAllocated.
func ResizeFinished(pvc *v1.PersistentVolumeClaim, size resource.Quantity, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	recordAllocated(out, size)
	if out.Status.Capacity == nil {
		out.Status.Capacity = v1.ResourceList{}
	}
	out.Status.Capacity[v1.ResourceStorage] = size
	out.Status.Conditions = resizeConditions.merge(out.Status.Conditions, now)
	clearResizeStatus(out)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[AnnNodeExpansionNotRequired] = "true"
	return out
}

// ResizeFailed returns a copy of pvc recording a failed controller expansion.
// Infeasible sizes are marked ControllerResizeInfeasible so that the user
// and a restarted controller see them. ControllerResizeError replaces
// Resizing with its transition time (see ResizeIntent); its reason is code,
// the name of the driver's gRPC code, so that nothing parses it out of the
// message (upstream leaves the reason empty).
func ResizeFailed(pvc *v1.PersistentVolumeClaim, infeasible bool, code, message string, now metav1.Time) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	if infeasible {
		setResizeStatus(out, v1.PersistentVolumeClaimControllerResizeInfeasible)
	}
	failure := condition(v1.PersistentVolumeClaimControllerResizeError, message)
	failure.Reason = code
	if resizing := find(pvc, v1.PersistentVolumeClaimResizing); resizing != nil {
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
	return find(pvc, v1.PersistentVolumeClaimControllerResizeError) != nil
}

// VolumeWithCapacity returns a copy of pv whose capacity is raised to size; it is never
// lowered. preResize, when not nil, is recorded as the claim's capacity
// before the resize (feature AnnotateFsResize).
func VolumeWithCapacity(pv *v1.PersistentVolume, size resource.Quantity, preResize *resource.Quantity) *v1.PersistentVolume {
	out := pv.DeepCopy()
	if out.Spec.Capacity == nil {
		out.Spec.Capacity = v1.ResourceList{}
	}
	if current := out.Spec.Capacity[v1.ResourceStorage]; size.Cmp(current) > 0 {
		out.Spec.Capacity[v1.ResourceStorage] = size
	}
	if preResize != nil {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[AnnPreResizeCapacity] = preResize.String()
	}
	return out
}

// VolumeWithoutPreResize returns a copy of pv without the annotation
// AnnPreResizeCapacity (feature AnnotateFsResize), once the claim's
// capacity has reached the volume's.
func VolumeWithoutPreResize(pv *v1.PersistentVolume) *v1.PersistentVolume {
	out := pv.DeepCopy()
	delete(out.Annotations, AnnPreResizeCapacity)
	return out
}

// VolumeSizeRecorded returns a copy of pvc whose complete resize is recorded at size,
// the volume's, which the driver allocated beyond what kubelet finished at:
// status.capacity and allocatedResources, which ResourceQuota charges.
func VolumeSizeRecorded(pvc *v1.PersistentVolumeClaim, size resource.Quantity) *v1.PersistentVolumeClaim {
	out := pvc.DeepCopy()
	setAllocated(out, size)
	if out.Status.Capacity == nil {
		out.Status.Capacity = v1.ResourceList{}
	}
	out.Status.Capacity[v1.ResourceStorage] = size
	return out
}

// recordAllocated raises allocatedResources[storage] to size, the capacity
// the driver reported, when that is more than recorded: ResourceQuota
// charges a claim max(request, allocatedResources), so the quota then
// counts what was really allocated, from the write that records the
// driver's answer on. It is never lowered: the recorded size is the target
// of the attempt, and size is at least that.
func recordAllocated(pvc *v1.PersistentVolumeClaim, size resource.Quantity) {
	if current, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]; ok && current.Cmp(size) >= 0 {
		return
	}
	setAllocated(pvc, size)
}

func setAllocated(pvc *v1.PersistentVolumeClaim, size resource.Quantity) {
	if pvc.Status.AllocatedResources == nil {
		pvc.Status.AllocatedResources = v1.ResourceList{}
	}
	pvc.Status.AllocatedResources[v1.ResourceStorage] = size
}

func setResizeStatus(pvc *v1.PersistentVolumeClaim, s v1.ClaimResourceStatus) {
	if pvc.Status.AllocatedResourceStatuses == nil {
		pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{}
	}
	pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage] = s
}

func clearResizeStatus(pvc *v1.PersistentVolumeClaim) {
	delete(pvc.Status.AllocatedResourceStatuses, v1.ResourceStorage)
	if len(pvc.Status.AllocatedResourceStatuses) == 0 {
		pvc.Status.AllocatedResourceStatuses = nil
	}
}
