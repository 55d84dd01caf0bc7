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
	"encoding/json"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

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
	return ptr.Deref(l.Spec.RenewTime, metav1.MicroTime{}).Time
}

// fresh reports whether l's holder renewed it within its duration: it is
// alive, as far as another replica can tell.
func fresh(l *coordinationv1.Lease, now time.Time) bool {
	d := time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second
	return l.Spec.RenewTime != nil && !renewed(l).Add(d).Before(now)
}

// resizerOf says what the leader's Lease (in node mode, the node Lease of
// the instance that handles the claim) tells of driver's resizer.
func resizerOf(o *Objects, driver string, now time.Time) *Resizer {
	r := &Resizer{Lease: resizeroptions.LeaseName(driver), Namespace: o.Request.ResizerNamespace, Status: ResizerNotRunning}
	node, l := "", o.resizerLease(driver)
	if o.nodeMode() {
		node, _ = o.nodeOwner()
		r.Lease, r.Node = resizeroptions.NodeLeaseName(driver, node), node
	}
	switch {
	case o.nodeMode() && l == nil:
		live := 0
		for i := range o.NodeLeases {
			if fresh(&o.NodeLeases[i], now) {
				live++
			}
		}
		r.Summary = fmt.Sprintf("no resizer runs on node %s: there is no Lease %s%s, which its instance keeps while it runs (the driver's instances run on %d other node(s))",
			node, r.Lease, inScope(o.Request.ResizerNamespace), live)
		return r
	case o.nodeMode():
	case o.LeaseUnread:
		r.Status = ResizerUnknown
		r.Summary = fmt.Sprintf("unknown: the Lease %s could not be read", r.Lease)
		return r
	case l == nil && len(o.Leases) > 0:
		r.Namespace = o.Leases[0].Namespace
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: no replica holds its Lease %s/%s (the last leader released it when it stopped)",
			driver, r.Namespace, r.Lease)
		return r
	case l == nil:
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: there is no Lease %s%s", driver, r.Lease, inScope(o.Request.ResizerNamespace))
		return r
	}
	r.Namespace, r.Holder = l.Namespace, ptr.Deref(l.Spec.HolderIdentity, "")
	if at := renewed(l); !at.IsZero() {
		at = at.UTC()
		r.RenewedAt = &at
	}
	switch stale := !fresh(l, now); {
	case stale && o.nodeMode():
		r.Summary = fmt.Sprintf("no resizer runs on node %s: %s last renewed the node Lease %s/%s %s, longer ago than its duration",
			node, r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
	case stale:
		r.Summary = fmt.Sprintf("no resizer is running for driver %s: %s holds the Lease %s/%s but last renewed it %s, longer ago than its duration",
			driver, r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
	case o.nodeMode():
		r.Status = ResizerRunning
		r.Summary = fmt.Sprintf("running on node %s: %s (node Lease %s/%s, renewed %s)", node, r.Holder, l.Namespace, l.Name, ago(renewed(l), now))
	default:
		r.Status = ResizerRunning
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

// Settings are the resizer's settings, published on the Lease it holds
// (resizeroptions.SettingsAnnotation); a resizer that publishes none (an
// older one, or upstream's) is taken to run with the defaults.
type Settings struct {
	resizeroptions.Published
	// From says where they come from: "defaults", or "Lease NS/NAME".
	From string `json:"from"`
}

// defaultsFrom is the From of the defaults.
const defaultsFrom = "defaults"

// defaultSettings are the resizer's defaults, as package options has them.
func defaultSettings() Settings {
	return Settings{Published: resizeroptions.Published{
		RetryIntervalStart:     resizeroptions.Duration(resizeroptions.DefaultRetryIntervalStart),
		RetryIntervalMax:       resizeroptions.Duration(resizeroptions.DefaultRetryIntervalMax),
		Recovery:               resizeroptions.Specs()[resizeroptions.RecoverVolumeExpansionFailure].Default,
		HandleVolumeInUseError: true,
		ResizeTimeout:          resizeroptions.Duration(resizeroptions.DefaultTimeout),
		ModifyTimeout:          resizeroptions.Duration(resizeroptions.DefaultTimeout),
	}, From: defaultsFrom}
}

func (s Settings) retryMax() time.Duration   { return time.Duration(s.RetryIntervalMax) }
func (s Settings) retryStart() time.Duration { return time.Duration(s.RetryIntervalStart) }

// settingsOf reads the settings lease publishes; else the defaults, and
// unread says why when lease is not nil.
func settingsOf(lease *coordinationv1.Lease) (s Settings, unread string) {
	s = defaultSettings()
	if lease == nil {
		return s, ""
	}
	value, ok := lease.Annotations[resizeroptions.SettingsAnnotation]
	if !ok {
		return s, fmt.Sprintf("the resizer's Lease %s/%s does not publish them (annotation %s: the resizer is older than this plugin, or upstream's)",
			lease.Namespace, lease.Name, resizeroptions.SettingsAnnotation)
	}
	published := s
	if err := json.Unmarshal([]byte(value), &published.Published); err != nil {
		return s, fmt.Sprintf("the annotation %s of the resizer's Lease %s/%s does not read (%v)", resizeroptions.SettingsAnnotation, lease.Namespace, lease.Name, err)
	}
	published.From = fmt.Sprintf("Lease %s/%s", lease.Namespace, lease.Name)
	return published, ""
}
