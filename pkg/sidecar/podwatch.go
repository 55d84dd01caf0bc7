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

package sidecar

import (
	"github.com/csi-resizer/csi-resizer/pkg/driver"
)

// podWatch is whether the resizer watches pods, and why, for the start-up
// log.
type podWatch struct {
	watch bool
	why   string
}

// podWatchOf decides whether pods are watched. Only a driver that expands
// offline only needs them: its calls are held back while a pod uses the
// claim. The pod watch is the largest cache and the busiest stream a busy
// cluster sends the resizer, so a driver that expands online (or does not
// say, which CSI reads as online) goes without it: after a
// FailedPrecondition (volume in use) answer such a driver's claim is
// retried with backoff instead of waiting for the pods to go. A driver
// that does not expand at all (modification only) needs no pods either.
// node is the instance's node with --node-deployment, "" without: only its
// pods are then watched.
func podWatchOf(handleInUse bool, caps driver.Capabilities, node string) podWatch {
	switch {
	case !handleInUse:
		return podWatch{why: "--handle-volume-inuse-error is off"}
	case caps.Mode() == driver.ModeUnsupported:
		return podWatch{why: "the CSI driver does not expand volumes"}
	case caps.OnlineExpansion:
		return podWatch{why: "the CSI driver advertises ONLINE expansion: it expands volumes in use; " + afterInUse}
	case !caps.OfflineExpansion:
		return podWatch{why: "the CSI driver advertises no VolumeExpansion type, which reads as ONLINE; " + afterInUse}
	case node != "":
		return podWatch{watch: true, why: "the CSI driver advertises OFFLINE expansion only: its volumes are not expanded while a pod uses them; only the pods of node " + node + " (--node-deployment)"}
	default:
		return podWatch{watch: true, why: "the CSI driver advertises OFFLINE expansion only: its volumes are not expanded while a pod uses them"}
	}
}

// afterInUse says what an online driver's in-use answer leads to without
// the pod watch.
const afterInUse = "after a FailedPrecondition (volume in use) answer the claim is retried with backoff"

// message is the start-up log line: whether pods are watched (its
// reason says why).
func (p podWatch) message() string {
	if p.watch {
		return "Watching pods"
	}
	return "Not watching pods"
}
