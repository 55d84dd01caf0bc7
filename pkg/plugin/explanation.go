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

import "time"

// Explanation is what explain says about one claim. Its JSON form (-o json)
// is meant for scripts: the field names are stable, and a field that does
// not apply is left out rather than set to a placeholder.
type Explanation struct {
	// At is when the explanation was made; ages are counted from it.
	At time.Time `json:"at"`
	// Claim is what the claim records.
	Claim Claim `json:"claim"`
	// Volume is the claim's PV; absent when the claim names none or the PV
	// does not exist.
	Volume *Volume `json:"volume,omitempty"`
	// StorageClass is the claim's StorageClass; absent when it names none.
	StorageClass *StorageClass `json:"storageClass,omitempty"`
	// Owner says whose resizer handles the claim.
	Owner Owner `json:"owner"`
	// Resizer is what the Lease of the owner's resizer says; absent when no
	// CSI resizer handles the claim.
	Resizer *Resizer `json:"resizer,omitempty"`
	// Operations are the claim's expansion ("resize"), then its
	// modification ("modify"); empty when no CSI resizer handles the claim.
	Operations []Operation `json:"operations,omitempty"`
	// Events are the claim's recent events, oldest first.
	Events []Event `json:"events,omitempty"`
	// Unknowns are what cannot be known from the API, which the
	// explanation may therefore miss.
	Unknowns []string `json:"unknowns,omitempty"`
	// Warnings are objects that could not be read, and what is missing
	// from the explanation because of it.
	Warnings []string `json:"warnings,omitempty"`
}

// Claim is what a PersistentVolumeClaim records.
type Claim struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Phase is status.phase: Pending, Bound or Lost.
	Phase string `json:"phase"`
	// VolumeName is spec.volumeName.
	VolumeName string `json:"volumeName,omitempty"`
	// StorageClassName is spec.storageClassName.
	StorageClassName string `json:"storageClassName,omitempty"`
	// Request, Capacity and Allocated are spec.resources.requests.storage,
	// status.capacity.storage and status.allocatedResources.storage.
	Request   string `json:"request,omitempty"`
	Capacity  string `json:"capacity,omitempty"`
	Allocated string `json:"allocated,omitempty"`
	// ResizeStatus is status.allocatedResourceStatuses.storage.
	ResizeStatus string `json:"resizeStatus,omitempty"`
	// Class and CurrentClass are spec.volumeAttributesClassName and
	// status.currentVolumeAttributesClassName.
	Class        string `json:"class,omitempty"`
	CurrentClass string `json:"currentClass,omitempty"`
	// ModifyStatus and ModifyTarget are status.modifyVolumeStatus.
	ModifyStatus string `json:"modifyStatus,omitempty"`
	ModifyTarget string `json:"modifyTarget,omitempty"`
}

// Volume is what the claim's PersistentVolume records.
type Volume struct {
	Name string `json:"name"`
	// Size is spec.capacity.storage.
	Size string `json:"size,omitempty"`
	// CSIDriver is spec.csi.driver; absent for an in-tree volume.
	CSIDriver string `json:"csiDriver,omitempty"`
	// InTree names the in-tree volume source ("awsElasticBlockStore",
	// ...) of a volume that is not a CSI volume.
	InTree string `json:"inTree,omitempty"`
	// Class is spec.volumeAttributesClassName.
	Class string `json:"class,omitempty"`
}

// StorageClass is what explain reads of the claim's StorageClass.
type StorageClass struct {
	Name string `json:"name"`
	// Exists is false when the class could not be found.
	Exists bool `json:"exists"`
	// Provisioner is the class's provisioner.
	Provisioner string `json:"provisioner,omitempty"`
	// AllowVolumeExpansion is the class's allowVolumeExpansion: without
	// it, the API server refuses a larger request.
	AllowVolumeExpansion bool `json:"allowVolumeExpansion"`
}

// Owner says which resizer handles a claim.
type Owner struct {
	// Driver is the CSI driver whose resizer would handle the claim: the
	// PV's CSI driver, or the one CSI migration hands an in-tree volume
	// to; absent when there is none.
	Driver string `json:"driver,omitempty"`
	// Handled is true when the resizer of Driver handles the claim.
	Handled bool `json:"handled"`
	// AskedFor is the driver given with --driver, when it was.
	AskedFor string `json:"askedFor,omitempty"`
	// Node is, when the driver's resizers run with --node-deployment, the
	// node whose instance handles the claim.
	Node string `json:"node,omitempty"`
	// Why says why, in plain words.
	Why string `json:"why"`
}

// Resizer states, from the Lease of a driver's resizer.
const (
	// ResizerRunning: a replica holds the Lease and renews it.
	ResizerRunning = "running"
	// ResizerNotRunning: no Lease, or one nobody renews any more.
	ResizerNotRunning = "not_running"
	// ResizerUnknown: the Lease could not be read.
	ResizerUnknown = "unknown"
)

// Resizer is what the Lease of a driver's resizer says.
type Resizer struct {
	// Lease is the Lease's name; Namespace its namespace, when found.
	Lease     string `json:"lease"`
	Namespace string `json:"namespace,omitempty"`
	// Node is, with --node-deployment, the node of the instance that
	// handles the claim, whose node Lease Lease is.
	Node string `json:"node,omitempty"`
	// Status is ResizerRunning, ResizerNotRunning or ResizerUnknown.
	Status string `json:"status"`
	// Holder is the identity of the replica that holds the Lease: its pod
	// name, "_", and a random part.
	Holder string `json:"holder,omitempty"`
	// RenewedAt is when the holder last renewed the Lease.
	RenewedAt *time.Time `json:"renewedAt,omitempty"`
	// Summary says it in plain words.
	Summary string `json:"summary"`
	// Settings are the resizer's settings explain reasons with.
	Settings Settings `json:"settings"`
}

// Who may own the next step of an operation.
const (
	ByResizer = "resizer"
	ByDriver  = "driver"
	ByKubelet = "kubelet"
	ByUser    = "user"
	// ByNobody: the step is the resizer's (or its driver's), but no
	// resizer runs.
	ByNobody = "nobody"
	// ByNone: nothing is left to do.
	ByNone = "none"
)

// StateNone is the state of an operation with nothing unfinished
// recorded.
const StateNone = "none"

// Operation explains one operation of a claim.
type Operation struct {
	// Operation is "resize" or "modify".
	Operation string `json:"operation"`
	// State is the state package unfinished gives the claim, as the metric
	// csi_resizer_claims labels it, or StateNone.
	State string `json:"state"`
	// Since is when the claim entered State, from the transition time of
	// the condition SinceFrom; absent when no condition records it.
	Since     *time.Time `json:"since,omitempty"`
	SinceFrom string     `json:"sinceFrom,omitempty"`
	// Summary says what the state means for this claim.
	Summary string `json:"summary"`
	// NextStepBy is who must act next: ByResizer, ByDriver, ByKubelet,
	// ByUser, ByNobody or ByNone.
	NextStepBy string `json:"nextStepBy"`
	// Next says what happens next, and when.
	Next string `json:"next"`
	// Decision is what the resizer decides on the claim's recorded state,
	// as a resizer that has just started would (its memory of the last
	// failure is not in the API).
	Decision Decision `json:"decision"`
	// UserCan are what the user can do, each a sentence.
	UserCan []string `json:"userCan,omitempty"`
}

// Decision is a decision of package resize or modify, as explain made it
// on the claim's recorded state.
type Decision struct {
	// Summary says the decision in plain words, consistent with who owns
	// the next step: "The resizer will only retry 10Gi, which the driver
	// refused, ...", where Action alone says expand.
	Summary string `json:"summary"`
	// Action is the decision's action, as the resizer logs it: resize
	// none, expand, wait, record-volume-size or node-retry; modify none,
	// modify, pend, refuse, cancel, wait or blocked. A refused size or
	// class is tried again (expand, modify) once its slow retry is due,
	// and at once by a resizer that has just started.
	Action string `json:"action"`
	// Target is the size or class the action is for.
	Target string `json:"target,omitempty"`
	// RetryAfter is how long a waiting target still waits, as a Go
	// duration ("4m10s").
	RetryAfter string `json:"retryAfter,omitempty"`
	// Reason is the decision's reason, as the resizer logs it.
	Reason string `json:"reason"`
}

// Event is one event of the claim.
type Event struct {
	// Last is when it was last seen.
	Last time.Time `json:"last"`
	// Type is Normal or Warning.
	Type   string `json:"type"`
	Reason string `json:"reason"`
	// Source is the component that reported it ("external-resizer
	// <driver>" for the resizer).
	Source  string `json:"source,omitempty"`
	Message string `json:"message"`
	// Count is how many times it was seen.
	Count int32 `json:"count,omitempty"`
}
