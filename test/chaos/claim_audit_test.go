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
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The claim watch misses what changed while it was not connected: the API
// server restarted, or closed it as too slow under a burst of writes, and
// its informer listed again seconds later. A claim that went to a class
// and back meanwhile looks, to the watch alone, as if it had never left:
// a second, correct call to modify it would look like a call after the
// claim had recorded its class. The API server's audit log records every
// write of a claim with the object it answered (the harness's audit policy
// asks for it), and each version of a claim is known by its
// resourceVersion: the checks read the union of both records, and miss a
// version only when both did (a write the API server made as it was killed,
// before its audit, while the watch was away).

// claimWrite is a version of a claim that a write made, as the API server
// answered it.
type claimWrite struct {
	at  time.Time // when the answer was complete: the write was made by then
	pvc *v1.PersistentVolumeClaim
}

// isClaimWrite matches the audited writes of the claims of namespace ns.
func isClaimWrite(ns string) func(framework.AuditEvent) bool {
	return func(e framework.AuditEvent) bool {
		return e.ObjectRef.Resource == "persistentvolumeclaims" && e.ObjectRef.Namespace == ns &&
			slices.Contains([]string{"create", "update", "patch"}, e.Verb)
	}
}

// claimWrites reads the versions of claims that successful writes made,
// from their audit events (isClaimWrite), in the order of the log.
func claimWrites(events []framework.AuditEvent) (map[claim][]claimWrite, error) {
	out := map[claim][]claimWrite{}
	for _, e := range events {
		if e.ResponseStatus.Code < 200 || e.ResponseStatus.Code > 299 {
			continue
		}
		if len(e.ResponseObject) == 0 {
			return nil, fmt.Errorf("%s %s/%s at %s: no response object in the audit log", e.Verb, e.ObjectRef.Namespace, e.ObjectRef.Name, clock(e.Received))
		}
		pvc := &v1.PersistentVolumeClaim{}
		if err := json.Unmarshal(e.ResponseObject, pvc); err != nil {
			return nil, fmt.Errorf("%s %s/%s at %s: %w", e.Verb, e.ObjectRef.Namespace, e.ObjectRef.Name, clock(e.Received), err)
		}
		cl := claim{ns: pvc.Namespace, name: pvc.Name}
		out[cl] = append(out[cl], claimWrite{at: e.StageTimestamp, pvc: pvc})
	}
	return out, nil
}

// auditedStates is the class state of each version of each claim written.
func auditedStates(writes map[claim][]claimWrite) map[claim][]classState {
	out := map[claim][]classState{}
	for cl, ws := range writes {
		for _, w := range ws {
			s := classStateOf(w.pvc)
			s.at = w.at
			out[cl] = append(out[cl], s)
		}
	}
	return out
}

// mergeStates orders the versions of a claim that the watch saw (seen) and
// that the audit log recorded (written) by resourceVersion, each at the
// earlier of its two times (both come after the write), and keeps the
// changes of class state. A version known by both is one state; one of
// unknown version (0) is kept where its source put it. Times only go
// forward: a version is not in place before the one it replaced.
// n counts the versions each source knew, and those only one knew: the
// writes the audit log missed, and those the watch missed.
func mergeStates(seen, written []classState) (merged []classState, n classSources) {
	type version struct {
		classState
		seen, written bool
	}
	all := make([]version, 0, len(seen)+len(written))
	for _, s := range seen {
		all = append(all, version{classState: s, seen: true})
	}
	for _, s := range written {
		all = append(all, version{classState: s, written: true})
	}
	slices.SortStableFunc(all, func(a, b version) int { return cmp.Compare(a.rv, b.rv) })
	var versions []version
	for _, v := range all {
		if n := len(versions); n > 0 && v.rv != 0 && versions[n-1].rv == v.rv {
			last := &versions[n-1]
			if v.at.Before(last.at) {
				last.at = v.at
			}
			last.seen, last.written = last.seen || v.seen, last.written || v.written
			continue
		}
		versions = append(versions, v)
	}
	for _, v := range versions {
		if v.seen {
			n.seenVersions++
		}
		if v.written {
			n.writtenVersions++
		}
		switch {
		case v.rv == 0:
		case !v.written:
			n.onlySeen++
		case !v.seen:
			n.onlyWritten++
		}
		s := v.classState
		if n := len(merged); n > 0 {
			last := merged[n-1]
			if s.at.Before(last.at) {
				s.at = last.at
			}
			if last.sameClass(s) {
				continue
			}
		}
		merged = append(merged, s)
	}
	return merged, n
}

// classSources counts the versions of claims each record knew (a no-op
// write, answered with the version before, is no version of its own), and
// what each added to the other.
type classSources struct {
	seenVersions, writtenVersions int
	onlySeen, onlyWritten         int
}

// mergeHistories merges the watch's and the audit log's records of every
// claim (mergeStates).
func mergeHistories(seen, written map[claim][]classState) (map[claim][]classState, classSources) {
	out := map[claim][]classState{}
	var n classSources
	for _, m := range []map[claim][]classState{seen, written} {
		for cl := range m {
			if _, done := out[cl]; done {
				continue
			}
			merged, c := mergeStates(seen[cl], written[cl])
			out[cl] = merged
			n.seenVersions += c.seenVersions
			n.writtenVersions += c.writtenVersions
			n.onlySeen += c.onlySeen
			n.onlyWritten += c.onlyWritten
		}
	}
	return out, n
}

// mergeReached adds to reached (per claim and capacity, when the claim was
// first seen with it) the capacities the writes recorded, at the earlier
// of the two times: a capacity held only while the watch was away is
// reached all the same.
func mergeReached(reached map[claim]map[int64]time.Time, writes map[claim][]claimWrite) (added int) {
	for cl, ws := range writes {
		for _, w := range ws {
			q := w.pvc.Status.Capacity[v1.ResourceStorage]
			size := q.Value()
			if size == 0 {
				continue
			}
			if reached[cl] == nil {
				reached[cl] = map[int64]time.Time{}
			}
			at, ok := reached[cl][size]
			if !ok {
				added++
			}
			if !ok || w.at.Before(at) {
				reached[cl][size] = w.at
			}
		}
	}
	return added
}

// writtenDecreases lists the writes that lowered a claim's status.capacity
// below one it had held, in the order of resourceVersion: the size watch's
// check, on versions it may have missed.
func writtenDecreases(writes map[claim][]claimWrite) []string {
	var out []string
	for _, cl := range slices.SortedFunc(maps.Keys(writes), func(a, b claim) int { return cmp.Compare(a.name, b.name) }) {
		ws := slices.Clone(writes[cl])
		slices.SortStableFunc(ws, func(a, b claimWrite) int { return cmp.Compare(classStateOf(a.pvc).rv, classStateOf(b.pvc).rv) })
		var highest int64
		for _, w := range ws {
			q := w.pvc.Status.Capacity[v1.ResourceStorage]
			size := q.Value()
			if size < highest {
				out = append(out, fmt.Sprintf("%s %s: capacity %d -> %d bytes (resourceVersion %s)",
					clock(w.at), cl.name, highest, size, w.pvc.ResourceVersion))
			}
			highest = max(highest, size)
		}
	}
	return out
}
