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
	At    time.Time `json:"at"`
	Claim Claim     `json:"claim"`
	// Volume is absent when the claim names none or the PV does not exist;
	// StorageClass when the claim names none.
	Volume       *Volume       `json:"volume,omitempty"`
	StorageClass *StorageClass `json:"storageClass,omitempty"`
	Owner        Owner         `json:"owner"`
	// Resizer and Operations (resize, then modify) are absent when no CSI
	// resizer handles the claim.
	Resizer    *Resizer    `json:"resizer,omitempty"`
	Operations []Operation `json:"operations,omitempty"`
	// Events are the claim's recent events, oldest first.
	Events []Event `json:"events,omitempty"`
	// Unknowns are what the API does not show; Warnings the objects that
	// could not be read, and what that leaves out.
	Unknowns []string `json:"unknowns,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Claim is what a PersistentVolumeClaim records: its phase, volume and
// StorageClass, the storage requested, of its capacity, allocated and its
// resize status, its VolumeAttributesClass, current class and modification.
type Claim struct {
	Namespace        string `json:"namespace"`
	Name             string `json:"name"`
	Phase            string `json:"phase"`
	VolumeName       string `json:"volumeName,omitempty"`
	StorageClassName string `json:"storageClassName,omitempty"`
	Request          string `json:"request,omitempty"`
	Capacity         string `json:"capacity,omitempty"`
	Allocated        string `json:"allocated,omitempty"`
	ResizeStatus     string `json:"resizeStatus,omitempty"`
	Class            string `json:"class,omitempty"`
	CurrentClass     string `json:"currentClass,omitempty"`
	ModifyStatus     string `json:"modifyStatus,omitempty"`
	ModifyTarget     string `json:"modifyTarget,omitempty"`
}

// Volume is what the claim's PV records: its capacity, CSI driver, or the
// in-tree source ("awsElasticBlockStore") of another, and its class.
type Volume struct {
	Name      string `json:"name"`
	Size      string `json:"size,omitempty"`
	CSIDriver string `json:"csiDriver,omitempty"`
	InTree    string `json:"inTree,omitempty"`
	Class     string `json:"class,omitempty"`
}

// StorageClass is what explain reads of the claim's StorageClass; without
// AllowVolumeExpansion the API server refuses a larger request.
type StorageClass struct {
	Name                 string `json:"name"`
	Exists               bool   `json:"exists"`
	Provisioner          string `json:"provisioner,omitempty"`
	AllowVolumeExpansion bool   `json:"allowVolumeExpansion"`
}

// Owner says which resizer handles a claim, and Why in plain words.
type Owner struct {
	// Driver is the PV's CSI driver (or migration's); Handled is true when
	// its resizer handles the claim; AskedFor is --driver.
	Driver   string `json:"driver,omitempty"`
	Handled  bool   `json:"handled"`
	AskedFor string `json:"askedFor,omitempty"`
	// Node is, with --node-deployment, the node whose instance handles it.
	Node string `json:"node,omitempty"`
	Why  string `json:"why"`
}

// Resizer states, from its Lease: a replica holds it and renews it; no
// Lease, or one nobody renews any more; it could not be read.
const (
	ResizerRunning    = "running"
	ResizerNotRunning = "not_running"
	ResizerUnknown    = "unknown"
)

// Resizer is what the Lease of a driver's resizer says.
type Resizer struct {
	// Lease and Namespace are the Lease's; Node, with --node-deployment,
	// the node of the instance that handles the claim.
	Lease     string `json:"lease"`
	Namespace string `json:"namespace,omitempty"`
	Node      string `json:"node,omitempty"`
	// Status is ResizerRunning, ResizerNotRunning or ResizerUnknown.
	Status string `json:"status"`
	// Holder is the identity of the replica that holds the Lease (its pod
	// name, "_", and a random part), RenewedAt when it last renewed it.
	Holder    string     `json:"holder,omitempty"`
	RenewedAt *time.Time `json:"renewedAt,omitempty"`
	Summary   string     `json:"summary"`
	Settings  Settings   `json:"settings"`
}

// Who may own the next step: ByNobody when it is the resizer's (or its
// driver's) but none runs, ByNone when nothing is left to do.
const (
	ByResizer = "resizer"
	ByDriver  = "driver"
	ByKubelet = "kubelet"
	ByUser    = "user"
	ByNobody  = "nobody"
	ByNone    = "none"
)

// StateNone is the state of an operation with nothing unfinished.
const StateNone = "none"

// Operation explains one operation of a claim.
type Operation struct {
	// Operation is "resize" or "modify"; State decide.Unfinished's, as the
	// metric csi_resizer_claims labels it, or StateNone.
	Operation string `json:"operation"`
	State     string `json:"state"`
	// Since is when the claim entered State, from the transition time of
	// the condition SinceFrom; absent when no condition records it.
	Since     *time.Time `json:"since,omitempty"`
	SinceFrom string     `json:"sinceFrom,omitempty"`
	// Summary says what the state means for this claim, NextStepBy who
	// must act next (a By constant), Next what happens next, and when.
	Summary    string `json:"summary"`
	NextStepBy string `json:"nextStepBy"`
	Next       string `json:"next"`
	// Decision is what the resizer decides on the recorded state, as one
	// just started would (its memory of the last failure is not in the API).
	Decision Decision `json:"decision"`
	// UserCan are what the user can do, each a sentence.
	UserCan []string `json:"userCan,omitempty"`
}

// Decision is the resizer's decision on the claim's recorded state.
type Decision struct {
	// Summary says it consistently with who owns the next step: "The
	// resizer will only retry 10Gi, ...", where Action alone says expand.
	Summary string `json:"summary"`
	// Action, Target and Reason are as the resizer logs them (resize none,
	// expand, wait, record-volume-size or node-retry; modify none, modify,
	// pend, refuse, cancel, wait or blocked). A refused size or class is
	// tried again (expand, modify) once its slow retry is due, and at once
	// by a resizer that has just started.
	Action string `json:"action"`
	Target string `json:"target,omitempty"`
	// RetryAfter is how long a waiting target still waits ("4m10s").
	RetryAfter string `json:"retryAfter,omitempty"`
	Reason     string `json:"reason"`
}

// Event is one event of the claim, Last seen, Count times, from Source
// ("external-resizer <driver>" for the resizer).
type Event struct {
	Last    time.Time `json:"last"`
	Type    string    `json:"type"`
	Reason  string    `json:"reason"`
	Source  string    `json:"source,omitempty"`
	Message string    `json:"message"`
	Count   int32     `json:"count,omitempty"`
}
