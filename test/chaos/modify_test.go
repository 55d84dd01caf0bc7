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
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"
)

// The checks of volume modification read the call log, the claim watch's
// history and the backend's state; they do no I/O.

// settledTimes gives, for the volume of each claim that ended at its last
// requested class, the moment from which no ControllerModifyVolume call
// may be sent: when the claims' history (the claim watch's and the audit
// log's, see mergeStates) has the claim's status come to rest at that
// class, or when that class was asked for, whichever is later. A claim
// that never asked for a class gets the zero time: it must get no call at
// all. Claims that did not end at their class are left out (they fail the
// run anyway).
func settledTimes(list []claim, class map[claim]string, asks []classAsk, states map[claim][]classState) map[string]time.Time {
	asked := map[claim]time.Time{}
	for _, a := range asks {
		if a.at.After(asked[a.claim]) {
			asked[a.claim] = a.at
		}
	}
	out := map[string]time.Time{}
	for _, cl := range list {
		want, ok := class[cl]
		if !ok {
			out[cl.handle()] = time.Time{}
			continue
		}
		at, ok := settledAt(states[cl], want)
		if !ok {
			continue
		}
		if asked[cl].After(at) {
			at = asked[cl]
		}
		out[cl.handle()] = at
	}
	return out
}

// callsAfterSettled lists the ControllerModifyVolume calls sent after their
// volume's claim had recorded its last requested class (see settledTimes).
// The resizer may call again after a success it saw as long as it has not
// recorded it (its process was killed before the write, or the write
// failed): the call is idempotent, and the record is what says that the
// work is done.
func callsAfterSettled(calls []span, settled map[string]time.Time) []string {
	var bad []string
	for _, c := range calls {
		if !c.modify() {
			continue
		}
		at, ok := settled[c.VolumeID]
		if !ok || !c.sent.After(at) {
			continue
		}
		if at.IsZero() {
			bad = append(bad, fmt.Sprintf("%s sent at %s for a claim that never asked for a class", describeCall(c.LoggedCall), clock(c.sent)))
			continue
		}
		bad = append(bad, fmt.Sprintf("%s sent at %s, after the claim recorded its last class at %s", describeCall(c.LoggedCall), clock(c.sent), clock(at)))
	}
	return bad
}

// backendParams compares the mutable parameters the backend applied to
// each volume (applied) with those of its claim's last class (want; nil
// for a claim that never asked for one). A difference that the call log
// explains is returned apart, in late: the last modification the backend
// finished was a call that its caller had stopped waiting for (a hang past
// --timeout) and that ended after the claim had recorded its class. The
// backend went on with an operation nobody waited for; no resizer can
// know it, and the CSI spec asks drivers to refuse a second operation on a
// volume while one is under way, which the test driver does not.
func backendParams(want, applied map[string]map[string]string, calls []span, settled map[string]time.Time) (bad, late []string) {
	lastOK := map[string]span{}
	for _, c := range calls {
		if !c.modify() || !c.Ended() || c.Code != "OK" {
			continue
		}
		if l, ok := lastOK[c.VolumeID]; !ok || c.end.After(l.end) {
			lastOK[c.VolumeID] = c
		}
	}
	for _, volume := range slices.Sorted(maps.Keys(want)) {
		w, got := want[volume], applied[volume]
		if maps.Equal(w, got) {
			continue
		}
		what := fmt.Sprintf("%s: backend parameters %v, want %v", volume, got, w)
		c, ok := lastOK[volume]
		at, done := settled[volume]
		if ok && maps.Equal(c.Parameters, got) && c.callerEnd.Before(c.end) && done && c.end.After(at) {
			late = append(late, fmt.Sprintf("%s, from %s (caller until %s, claim at its class since %s)",
				what, describeCall(c.LoggedCall), clock(c.callerEnd), clock(at)))
			continue
		}
		bad = append(bad, what)
	}
	return bad, late
}

// finishTimes measures each class change from the answer to its patch to
// the moment the claims' history has the claim's status at rest at that
// class.
// A change asked again before that is superseded; one never at rest is
// unfinished.
func finishTimes(asks []classAsk, states map[claim][]classState) (took []time.Duration, superseded, unfinished int) {
	byClaim := map[claim][]classAsk{}
	for _, a := range asks {
		byClaim[a.claim] = append(byClaim[a.claim], a)
	}
	for cl, as := range byClaim {
		slices.SortFunc(as, func(a, b classAsk) int { return a.at.Compare(b.at) })
		for i, a := range as {
			var next time.Time
			if i+1 < len(as) {
				next = as[i+1].at
			}
			d, ok := timeToRest(states[cl], a, next)
			switch {
			case ok:
				took = append(took, d)
			case !next.IsZero():
				superseded++
			default:
				unfinished++
			}
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	return took, superseded, unfinished
}

// timeToRest is how long after a the claim came to rest at a's class,
// before next (zero: no later change); 0 when it was at rest at that class
// already.
func timeToRest(states []classState, a classAsk, next time.Time) (time.Duration, bool) {
	atRest := func(s classState) bool { return s.settled && s.class == a.class }
	i, _ := slices.BinarySearchFunc(states, a.at, func(s classState, t time.Time) int { return s.at.Compare(t) })
	if i > 0 && atRest(states[i-1]) {
		return 0, true
	}
	for _, s := range states[i:] {
		if !next.IsZero() && !s.at.Before(next) {
			break
		}
		if atRest(s) {
			return s.at.Sub(a.at), true
		}
	}
	return 0, false
}

// lateAtRest follows the claims that asked for class before it was created
// (at created): each must come to rest at it by itself once it exists,
// unless it asked for another class first. took is, for each that did, the
// time from the creation to the claim at rest at the class; stuck names
// those that never did.
func lateAtRest(asks []classAsk, states map[claim][]classState, class string, created time.Time) (took []time.Duration, superseded int, stuck []string) {
	byClaim := map[claim][]classAsk{}
	for _, a := range asks {
		byClaim[a.claim] = append(byClaim[a.claim], a)
	}
	for cl, as := range byClaim {
		slices.SortFunc(as, func(a, b classAsk) int { return a.at.Compare(b.at) })
		for i, a := range as {
			if a.class != class || !a.at.Before(created) {
				continue
			}
			var next time.Time
			if i+1 < len(as) {
				next = as[i+1].at
			}
			d, ok := timeToRest(states[cl], a, next)
			switch {
			case ok:
				took = append(took, max(a.at.Add(d).Sub(created), 0))
			case !next.IsZero():
				superseded++
			default:
				stuck = append(stuck, fmt.Sprintf("%s asked for class %s at %s, before it was created at %s, and never came to rest at it",
					cl.name, class, clock(a.at), clock(created)))
			}
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	sort.Strings(stuck)
	return took, superseded, stuck
}

// percentile is the value at q (0..1) of sorted durations.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)-1))
	return sorted[i]
}
