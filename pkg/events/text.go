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

// This file holds what the resizer's events say that others read: their
// source, their reasons (upstream's), the annotation that carries a failed
// call's code, and the fixed words of some messages. The controller writes
// them; `kubectl csi-resizer explain` reads the source, the reasons and the
// annotation from here, never the words of a message.

package events

// Source is the event source component of driver's resizer: upstream's.
func Source(driver string) string { return "external-resizer " + driver }

// Reasons of expansion events: the upstream strings, which tools parse.
const (
	ReasonResizing                 = "Resizing"
	ReasonResizeFailed             = "VolumeResizeFailed"
	ReasonFileSystemResizeRequired = "FileSystemResizeRequired"
	ReasonResizeSuccessful         = "VolumeResizeSuccessful"
)

// Reasons of modification events: the upstream strings, "Canceled" spelled
// as upstream spells it.
const (
	ReasonModify           = "VolumeModify"
	ReasonModifySuccessful = "VolumeModifySuccessful"
	ReasonModifyFailed     = "VolumeModifyFailed"
	ReasonModifyCanceled   = "VolumeModifyCanceled"
)

// ReasonNodeAffinityConflict is the reason of the warning of a resizer run
// with --node-deployment that refuses a claim of its driver: the volume's
// node affinity selects the instance's node but does not pin the volume to
// it alone, so no instance resizes or modifies it. Ours only: upstream has
// no --node-deployment.
const ReasonNodeAffinityConflict = "NodeAffinityConflict"

// AnnotationCode is the annotation of the resizer's events of a failed
// driver call: the gRPC code's name (decide.ReasonOf), so that a reader of
// the event need not find it in the message.
const AnnotationCode = "csi-resizer.io/code"

// AnsweredShort is in the message of a ReasonResizeFailed event, and of the
// ControllerResizeError condition, of a driver that answered an expansion
// with success but less than the size asked for: what it gave is recorded,
// and the size asked for is retried only on the slow lane.
const AnsweredShort = "the driver answered success with"

// Parts of the message of a ReasonResizeFailed event about a volume in use.
const (
	// OfflineOnly is in the message of an expansion held back while pods
	// use the volume because the driver expands offline only; upstream's
	// message says it too.
	OfflineOnly = "only supports offline expansion"
	// AnsweredInUse is in the message of an expansion held back while pods
	// use the volume because the driver answered FailedPrecondition (in
	// use) the last time.
	AnsweredInUse = "answered FailedPrecondition (volume in use) to the last attempt"
	// CannotExpandInUse is in the message of a failed call that the driver
	// answered FailedPrecondition (in use).
	CannotExpandInUse = "the driver cannot expand the volume while a pod uses it"
)
