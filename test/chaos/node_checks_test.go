//go:build chaos

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

package chaos

import (
	"encoding/json"
	"iter"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The checks of the node share read the claims' managedFields, the node
// call log, the watches' records and the audit log; they do no I/O.

// Field managers of the claims' status: the API server names the manager of
// a write without one after its client's user agent.
const (
	kubeletManager = "kubelet"
	resizerManager = "csi-resizer"
)

// capacityManagers lists the managers that own status.capacity[storage] of
// the claim: the last to change it (the API server moves the ownership of a
// field to the manager whose update or patch changed it).
func capacityManagers(pvc *v1.PersistentVolumeClaim) []string {
	var owners []string
	for _, m := range pvc.ManagedFields {
		if m.FieldsV1 == nil {
			continue
		}
		var fields map[string]any
		if err := json.Unmarshal(m.FieldsV1.Raw, &fields); err != nil {
			continue
		}
		if hasField(fields, "f:status", "f:capacity", "f:storage") && !slices.Contains(owners, m.Manager) {
			owners = append(owners, m.Manager)
		}
	}
	sort.Strings(owners)
	return owners
}

// hasField reports whether the field set holds the field at path.
func hasField(fields map[string]any, path ...string) bool {
	for _, p := range path {
		next, ok := fields[p].(map[string]any)
		if !ok {
			return false
		}
		fields = next
	}
	return true
}

// nodeExpandedBefore finds a successful NodeExpandVolume of volume to size
// bytes, made by a caller that isKubelet names, that ended before by.
func nodeExpandedBefore(calls []csidriver.LoggedCall, volume string, size int64, by time.Time, isKubelet func(pid int) bool) (csidriver.LoggedCall, bool) {
	for _, c := range calls {
		if c.Method == csidriver.MethodNodeExpand && c.VolumeID == volume && c.RequiredBytes == size &&
			c.Ended() && c.Code == "OK" && c.End.Before(by) && isKubelet(c.Pid) {
			return c, true
		}
	}
	return csidriver.LoggedCall{}, false
}

// readRates is, for each claim at rest from its time in rested until end
// for at least window, how many times a second kubelet read it (GET) in
// that time, from the audit log's events.
func readRates(events []framework.AuditEvent, rested map[claim]time.Time, end time.Time, window time.Duration) map[claim]float64 {
	reads := map[claim]int{}
	for _, e := range events {
		if !e.FromKubelet() || e.Verb != "get" || e.ObjectRef.Resource != "persistentvolumeclaims" || e.ObjectRef.Subresource != "" {
			continue
		}
		cl := claim{ns: e.ObjectRef.Namespace, name: e.ObjectRef.Name}
		if from, ok := rested[cl]; ok && !e.Received.Before(from) && e.Received.Before(end) {
			reads[cl]++
		}
	}
	rates := map[claim]float64{}
	for cl, from := range rested {
		if d := end.Sub(from); d >= window {
			rates[cl] = float64(reads[cl]) / d.Seconds()
		}
	}
	return rates
}

// writesAtRest counts, for each claim at rest from its time in rested
// until end, kubelet's patches of its status in that time, from the audit
// log's events; claims with none are left out.
func writesAtRest(events []framework.AuditEvent, rested map[claim]time.Time, end time.Time) map[claim]int {
	writes := map[claim]int{}
	for _, e := range events {
		if !e.FromKubelet() || e.Verb != "patch" || e.ObjectRef.Resource != "persistentvolumeclaims" || e.ObjectRef.Subresource != "status" {
			continue
		}
		cl := claim{ns: e.ObjectRef.Namespace, name: e.ObjectRef.Name}
		if from, ok := rested[cl]; ok && !e.Received.Before(from) && e.Received.Before(end) {
			writes[cl]++
		}
	}
	return writes
}

// sum adds up counts.
func sum(counts iter.Seq[int]) int {
	n := 0
	for c := range counts {
		n += c
	}
	return n
}

// nodeSteps measures kubelet's part of each expansion of the claims: from
// the moment the PV was first seen at a size to the moment the claim was
// first seen with that capacity, for each size above the first, sorted.
func nodeSteps(claims []claim, pvReached map[string]map[int64]time.Time, claimReached map[claim]map[int64]time.Time) []time.Duration {
	var took []time.Duration
	for _, cl := range claims {
		for size, at := range claimReached[cl] {
			grown, ok := pvReached[cl.pv()][size]
			if !ok || size <= gi(initialGi) {
				continue
			}
			took = append(took, max(at.Sub(grown), 0))
		}
	}
	slices.Sort(took)
	return took
}
