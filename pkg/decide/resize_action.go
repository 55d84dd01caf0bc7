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

// ResizeAction is what the controller should do with a claim now.
type ResizeAction int

const (
	// ResizeNone: nothing to do (done, or kubelet owns the volume now).
	ResizeNone ResizeAction = iota
	// Expand: run one expansion attempt to Decision.Target.
	Expand
	// ResizeWait: an infeasible size is not retried before Decision.RetryAfter.
	ResizeWait
	// RecordVolumeSize: kubelet finished the node step at the size recorded for it,
	// and the volume is larger because the driver allocated more than it
	// was asked for that very size (State.Rounded): record
	// Decision.Target, the volume's size, as the claim's capacity and
	// allocated size. No driver call.
	RecordVolumeSize
	// NodeRetry: the volume already holds the request, and only kubelet's
	// part is left: kubelet found the recorded size infeasible and the
	// user lowered the request, or kubelet finished below the volume's
	// size and the user raised the request within it. Hand the claim to
	// kubelet at Decision.Target, the request. No driver call: the volume
	// is large enough.
	NodeRetry
	// DropPreResizeCapacity: the claim's capacity has reached the volume's,
	// and the PV still carries the annotation
	// volume.alpha.kubernetes.io/pre-resize-capacity of feature
	// AnnotateFsResize: remove it, as upstream does. No driver call.
	DropPreResizeCapacity
	// RecordShort: the driver answered the target short, the resizer
	// remembers it, and the claim no longer says so (kubelet removed the
	// resizer's ControllerResizeError when it finished the node step at
	// what the driver gave): record the condition again, so that the claim
	// says why its request waits. No driver call; the target then waits
	// for the slow lane (Wait).
	RecordShort
)

// String names the action for logs.
func (a ResizeAction) String() string {
	switch a {
	case Expand:
		return "expand"
	case ResizeWait:
		return "wait"
	case RecordVolumeSize:
		return "record-volume-size"
	case NodeRetry:
		return "node-retry"
	case DropPreResizeCapacity:
		return "drop-pre-resize-capacity"
	case RecordShort:
		return "record-short"
	default:
		return "none"
	}
}

// Acts reports whether the action is a step for the claim's worker to take:
// a driver call or a write.
func (a ResizeAction) Acts() bool {
	return a == Expand || a == RecordVolumeSize || a == NodeRetry || a == DropPreResizeCapacity || a == RecordShort
}

// CallsDriver reports whether the action calls the driver.
func (a ResizeAction) CallsDriver() bool { return a == Expand }
