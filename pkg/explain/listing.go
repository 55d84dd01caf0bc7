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

package explain

// What `kubectl csi-resizer list` (package list) takes from explain: it
// lists the unfinished claims of a scope with explain's own rules and
// words, but reads each kind of object once for all the claims instead of
// once per claim, and fills Objects from those lists itself.

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

// Resources package list reads, as RBAC names them.
const (
	ResourceClaims            = resClaims
	ResourceVolumes           = resVolumes
	ResourceEvents            = resEvents
	ResourcePods              = resPods
	ResourceAttributesClasses = resVACs
)

// DriverOf is the driver a claim bound to pv is explained for when no
// --driver is given: the CSI driver of pv, or the one CSI migration hands
// an in-tree volume to; "" when there is none.
func DriverOf(pv *v1.PersistentVolume) string { return volumeDriver(pv) }

// ClaimEvents keeps the events of pvc itself among events, oldest first,
// as Gather keeps them in Objects.Events.
func ClaimEvents(events []v1.Event, pvc *v1.PersistentVolumeClaim) []v1.Event {
	return ofClaim(events, pvc)
}

// ReadResizer reads into o what Gather reads of driver's resizer: the
// Lease (in o.Request.ResizerNamespace, else in every namespace) and the
// pod that holds it, whose flags are the resizer's settings. A Lease that
// cannot be read leaves a warning in o.
func (o *Objects) ReadResizer(ctx context.Context, r Reader, driver string) {
	o.readLease(ctx, r, driver)
}

// NodeMode reports whether the resizers of the driver whose Lease o holds
// (ReadResizer) run with --node-deployment, as far as explain can tell.
func (o *Objects) NodeMode() bool { return o.nodeMode() }

// ReadNodeOwner reads, for the claim of o (its volume set, and the node
// Leases of driver's resizers read by ReadResizer), what explain reads to
// tell which node's instance handles it: the Nodes that its volume's node
// affinity names, and the pod of that instance.
func (o *Objects) ReadNodeOwner(ctx context.Context, r Reader, driver string) {
	o.readNodes(ctx, r)
	if lease := o.resizerLease(driver); lease != nil {
		o.readLeaderPod(ctx, r, lease)
	}
}

// HeldBack is decide.HeldBack as Explain decides it for the claim of o,
// handled by driver's resizer: resize.Decide expands, pods use the claim,
// and the resizer's newest expansion event says that it holds the
// expansion back for them. A claim Explain finds waiting_in_use is the
// claim decide.Of, given it, finds so.
func HeldBack(o *Objects, driver string, now time.Time) decide.HeldBack {
	return newFacts(o, driver, now).decideExpansion().heldBack
}

// ListError is a failed list of resource in namespace ("" for all
// namespaces, or a cluster-scoped resource), worded as explain words a
// read it cannot make: a *ReadError, which names a missing permission.
func ListError(resource, namespace string, err error) error {
	return readError(access{verbList, resource, namespace, ""}, err)
}

// Age says how long before now t was, as explain says it without "ago":
// "45s", "4m10s", "3h", "2d5h".
func Age(t, now time.Time) string {
	if t.After(now) {
		return "0s" // clocks differ
	}
	return short(now.Sub(t))
}
