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

// resizerOf says what the Leases read tell of driver's resizer.
func resizerOf(o *Objects, driver string, now time.Time) *Resizer {
	if o.nodeMode() {
		return nodeResizerOf(o, driver, now)
	}
	r := &Resizer{Lease: resizeroptions.LeaseName(driver), Namespace: o.Request.ResizerNamespace, Settings: settingsOf(o.LeaderPod)}
	if o.LeaseUnread {
		r.Status = ResizerUnknown
		r.Summary = fmt.Sprintf("unknown: the Lease %s could not be read", r.Lease)
		return r
	}
	l := freshest(o.Leases)
	switch {
	case l == nil && len(o.Leases) > 0:
		r.Status, r.Namespace = ResizerNotRunning, o.Leases[0].Namespace
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: no replica holds its Lease %s/%s (the last leader released it when it stopped)",
			driver, r.Namespace, r.Lease)
		return r
	case l == nil:
		r.Status = ResizerNotRunning
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: there is no Lease %s%s", driver, r.Lease, where(o.Request.ResizerNamespace))
		return r
	}
	r.Namespace, r.Holder = l.Namespace, ptr.Deref(l.Spec.HolderIdentity, "")
	if at := renewed(l); !at.IsZero() {
		at = at.UTC()
		r.RenewedAt = &at
	}
	if !fresh(l, now) {
		r.Status = ResizerNotRunning
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: %s holds the Lease %s/%s but last renewed it %s, longer ago than its duration",
			driver, r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
		return r
	}
	r.Status = ResizerRunning
	r.Summary = fmt.Sprintf("running: %s leads (Lease %s/%s, renewed %s)", r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
	return r
}

func where(namespace string) string {
	if namespace == "" {
		return " in any namespace"
	}
	return fmt.Sprintf(" in namespace %q", namespace)
}
