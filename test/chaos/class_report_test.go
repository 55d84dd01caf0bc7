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
	"strings"
	"time"
)

// reportClasses adds the figures of volume modification.
func (o *outcome) reportClasses(r *report) {
	n := len(o.claims.list)
	asks := o.claims.classAsks()
	changed, both := map[claim]bool{}, 0
	perClass := map[string]int{}
	for _, a := range asks {
		changed[a.claim] = true
		perClass[a.class]++
		if a.grown {
			both++
		}
	}
	r.add("class changes asked: %d on %d of %d claims (%d in the same patch as a growth), by class: %s",
		len(asks), len(changed), n, both, countsOf(perClass))
	if !o.lateCreated.IsZero() {
		r.add("late classes %s created at %s: %d claims had asked for them, %d of them recorded Pending by then; claims seen Pending during the run: %d",
			strings.Join(lateClasses(), " and "), since(o.start, o.lateCreated), o.lateAsked, o.latePending, len(o.pending))
		r.add("claims that asked for a late class before it existed, at rest at it after its creation: %d (median %s, max %s after the creation); %d asked for another class first",
			len(o.lateTook), percentile(o.lateTook, 0.5).Round(10*time.Millisecond), percentile(o.lateTook, 1).Round(10*time.Millisecond), o.lateSuperseded)
	}
	r.add("claims at their last requested class (claim status and PV): %d/%d; backend parameters at the class: %d/%d (%d left at another class by a call nobody waited for)",
		n-len(o.classProblems), n, n-len(o.paramsBad)-len(o.paramsLate), n, len(o.paramsLate))
	r.add("ControllerModifyVolume calls: %d (%s)", o.modifyCalls, codeCounts(o.modifySpans))
	failed, gone := injected(o.modifySpans)
	r.add("modify failures injected: %d answered at once with an error, %d hangs or calls whose caller left first", failed, gone)
	pairs, median, highest := callsPerClass(o.modifySpans)
	r.add("modify calls per class change: %.2f; per (volume, class) pair: %d pairs, median %d, max %d",
		float64(o.modifyCalls)/float64(max(1, len(asks))), pairs, median, highest)
	r.add("modify calls after the claim recorded its last class: %d; claim watch: %d events, lists and watches started: %d (the first and after each loss), caught up at the end: %v",
		len(o.afterSettled), o.classEvents, o.classLists, len(o.classesBehind) == 0)
	cs := o.classSources
	r.add("claim versions, the checks' record: %d seen by the claim watch, %d written in the audit log (%d writes); only the watch's: %d, only the audit log's (missed by the watch): %d; capacities only the audit log saw: %d",
		cs.seenVersions, cs.writtenVersions, o.claimWrites, cs.onlySeen, cs.onlyWritten, o.reachedUnseen)
	ov := o.modifyOverlaps
	r.add("overlapping calls on one volume with a modify call: %d with two callers waiting (modify+modify %d, expand+modify %d); apart: %d left running by a killed resizer, %d left running after the caller's deadline (expand+modify: %d)",
		ov[overlapKey{bothWaiting, modifyModify}]+ov[overlapKey{bothWaiting, expandModify}],
		ov[overlapKey{bothWaiting, modifyModify}], ov[overlapKey{bothWaiting, expandModify}],
		ov[overlapKey{leftByKilled, modifyModify}]+ov[overlapKey{leftByKilled, expandModify}],
		ov[overlapKey{leftAfterDeadline, modifyModify}]+ov[overlapKey{leftAfterDeadline, expandModify}],
		ov[overlapKey{leftByKilled, expandModify}]+ov[overlapKey{leftAfterDeadline, expandModify}])
	r.add("class change to the claim at rest at it: median %s, p90 %s, max %s over %d changes; %d asked again before, %d never",
		percentile(o.took, 0.5).Round(10*time.Millisecond), percentile(o.took, 0.9).Round(10*time.Millisecond),
		percentile(o.took, 1).Round(10*time.Millisecond), len(o.took), o.superseded, o.neverAtRest)
}
