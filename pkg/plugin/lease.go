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
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"

	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// ofName keeps the Leases called name: a fake client, unlike the API
// server, ignores the field selector that asks for them.
func ofName(leases []coordinationv1.Lease, name string) []coordinationv1.Lease {
	var out []coordinationv1.Lease
	for _, l := range leases {
		if l.Name == name {
			out = append(out, l)
		}
	}
	return out
}

// freshest returns the Lease renewed last (there may be one per namespace
// the driver's resizers were installed in); nil when none is held.
func freshest(leases []coordinationv1.Lease) *coordinationv1.Lease {
	var best *coordinationv1.Lease
	for i := range leases {
		l := &leases[i]
		if ptr.Deref(l.Spec.HolderIdentity, "") == "" {
			continue
		}
		if best == nil || renewed(l).After(renewed(best)) {
			best = l
		}
	}
	return best
}

func renewed(l *coordinationv1.Lease) time.Time {
	if l.Spec.RenewTime == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Time
}

// fresh reports whether l's holder renewed it within its duration: it is
// alive, as far as another replica can tell.
func fresh(l *coordinationv1.Lease, now time.Time) bool {
	d := time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second
	return l.Spec.RenewTime != nil && !renewed(l).Add(d).Before(now)
}

// liveCount is how many of leases are renewed within their duration.
func liveCount(leases []coordinationv1.Lease, now time.Time) int {
	n := 0
	for i := range leases {
		if fresh(&leases[i], now) {
			n++
		}
	}
	return n
}

// resizerOf says what the Leases read tell of driver's resizer: the
// leader's Lease, or in node mode the node Lease of the instance that
// handles the claim (see nodes.go).
func resizerOf(o *Objects, driver string, now time.Time) *Resizer {
	r := &Resizer{Lease: resizeroptions.LeaseName(driver), Namespace: o.Request.ResizerNamespace}
	node, l := "", o.resizerLease(driver)
	if o.nodeMode() {
		node, _ = o.nodeOwner()
		r.Lease, r.Node = resizeroptions.NodeLeaseName(driver, node), node
	}
	switch {
	case o.nodeMode() && l == nil:
		r.Status = ResizerNotRunning
		r.Summary = fmt.Sprintf("no resizer runs on node %s: there is no Lease %s%s, which its instance keeps while it runs (the driver's instances run on %d other node(s))",
			node, r.Lease, inScope(o.Request.ResizerNamespace), liveCount(o.NodeLeases, now))
		return r
	case o.nodeMode():
	case o.LeaseUnread:
		r.Status = ResizerUnknown
		r.Summary = fmt.Sprintf("unknown: the Lease %s could not be read", r.Lease)
		return r
	case l == nil && len(o.Leases) > 0:
		r.Status, r.Namespace = ResizerNotRunning, o.Leases[0].Namespace
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: no replica holds its Lease %s/%s (the last leader released it when it stopped)",
			driver, r.Namespace, r.Lease)
		return r
	case l == nil:
		r.Status = ResizerNotRunning
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: there is no Lease %s%s", driver, r.Lease, inScope(o.Request.ResizerNamespace))
		return r
	}
	r.Namespace, r.Holder = l.Namespace, ptr.Deref(l.Spec.HolderIdentity, "")
	if at := renewed(l); !at.IsZero() {
		at = at.UTC()
		r.RenewedAt = &at
	}
	r.Status = ResizerRunning
	switch stale := !fresh(l, now); {
	case stale && o.nodeMode():
		r.Status = ResizerNotRunning
		r.Summary = fmt.Sprintf("no resizer runs on node %s: %s last renewed the node Lease %s/%s %s, longer ago than its duration",
			node, r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
	case stale:
		r.Status = ResizerNotRunning
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: %s holds the Lease %s/%s but last renewed it %s, longer ago than its duration",
			driver, r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
	case o.nodeMode():
		r.Summary = fmt.Sprintf("running on node %s: %s (node Lease %s/%s, renewed %s)", node, r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
	default:
		r.Summary = fmt.Sprintf("running: %s leads (Lease %s/%s, renewed %s)", r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
	}
	return r
}

// inScope is " in any namespace" for "", else " in namespace <namespace>".
func inScope(namespace string) string {
	if namespace == "" {
		return " in any namespace"
	}
	return fmt.Sprintf(" in namespace %q", namespace)
}
