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
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// recoveryOutcome is how the node share's recovery went.
type recoveryOutcome struct {
	records map[claim]recovering
	// problems are broken promises of the recovery; unexpected the claims
	// seen NodeResizeInfeasible that the node was never made to refuse.
	problems, unexpected []string
	// refused counts the refusals kubelet met and recorded (the others
	// were dropped by a driver restart or the next wave's script, or, as
	// unrecorded counts, kubelet expanded to the size after all: see
	// expandedAfterRefusal), infeasible the claims
	// seen NodeResizeInfeasible, lowered those lowered, atLowered those
	// that ended at the lowered size; raised and raisedDone the raises
	// after a recovery and those finished on the node, within those in the
	// PV.
	refused, unrecorded, infeasible, lowered, atLowered int
	raised, raisedDone, within                          int
	// toLowered is, per lowered claim, the time from NodeResizeInfeasible
	// seen to the claim seen at the lowered size; lowerTook from the
	// lowered request to it; raiseTook from a raise to the claim at it.
	toLowered, lowerTook, raiseTook []time.Duration
}

// judgeRecovery holds the recovery to its promises, from the final listing
// l, the ControllerExpandVolume calls expands, the node calls, and the
// claim watch's record: no claim infeasible that the node was not made to
// refuse; each refused one seen NodeResizeInfeasible at the size refused,
// lowered, and at rest at the lowered size (request = capacity =
// allocatedResources, no status or resize condition) with no driver call
// for it; and each raised later at rest at the raise, after kubelet's
// NodeExpandVolume at it (a raise within the PV with no driver call).
func judgeRecovery(records map[claim]recovering, l *listing, expands, nodeCalls []csidriver.LoggedCall, sizes sizeFigures, isKubelet func(pid int) bool) recoveryOutcome {
	o := recoveryOutcome{records: records}
	for _, s := range sizes.infeasible {
		if _, ok := records[s.claim]; !ok {
			o.unexpected = append(o.unexpected, s.what)
		}
	}
	pvcs := map[claim]*v1.PersistentVolumeClaim{}
	for i := range l.pvcs {
		pvcs[claim{ns: l.pvcs[i].Namespace, name: l.pvcs[i].Name}] = &l.pvcs[i]
	}
	for _, cl := range slices.SortedFunc(maps.Keys(records), byName) {
		o.judge(cl, records[cl], pvcs[cl], expands, nodeCalls, sizes.reached[cl], isKubelet)
	}
	slices.Sort(o.toLowered)
	slices.Sort(o.lowerTook)
	slices.Sort(o.raiseTook)
	return o
}

// judge holds one refused claim to the recovery's promises.
func (o *recoveryOutcome) judge(cl claim, rec recovering, pvc *v1.PersistentVolumeClaim, expands, nodeCalls []csidriver.LoggedCall, reached map[int64]time.Time, isKubelet func(pid int) bool) {
	fail := func(format string, args ...any) {
		o.problems = append(o.problems, cl.name+": "+fmt.Sprintf(format, args...))
	}
	refusedAt := refusedSizes(nodeCalls, cl.handle())
	if !rec.infeasible.IsZero() {
		o.infeasible++
	}
	switch {
	case len(refusedAt) == 0 && rec.infeasible.IsZero():
		return // the refusal was dropped before kubelet met it: a claim as the others
	case len(refusedAt) == 0:
		fail("NodeResizeInfeasible with no NodeExpandVolume refused")
		return
	case rec.infeasible.IsZero() && expandedAfterRefusal(nodeCalls, cl.handle(), isKubelet):
		o.unrecorded++ // a claim as the others, at the refused size
		return
	case rec.infeasible.IsZero():
		fail("NodeExpandVolume refused (%v bytes) but the claim never seen NodeResizeInfeasible", refusedAt)
		return
	}
	o.refused++
	if !slices.Contains(refusedAt, rec.refused) {
		fail("NodeResizeInfeasible with allocatedResources %d bytes, but the node refused %v", rec.refused, refusedAt)
	}
	if rec.problem != "" || rec.loweredAt.IsZero() {
		fail("request not lowered: %s", rec.problem)
		return
	}
	o.lowered++
	if n := expandsAt(expands, cl.handle(), rec.lowered); n > 0 {
		fail("%d ControllerExpandVolume calls for the lowered size %d bytes, which the volume holds", n, rec.lowered)
	}
	if at, ok := reached[rec.lowered]; ok {
		o.toLowered = append(o.toLowered, max(at.Sub(rec.infeasible), 0))
		o.lowerTook = append(o.lowerTook, max(at.Sub(rec.loweredAt), 0))
	} else {
		fail("never seen at the lowered size %d bytes", rec.lowered)
	}
	if rec.raised == 0 {
		if p := notFinishedAt(pvc, rec.lowered); p != "" {
			fail("not at rest at the lowered size: %s", p)
		} else {
			o.atLowered++
		}
		return
	}
	o.judgeRaise(cl, rec, pvc, expands, nodeCalls, reached, isKubelet, fail)
}

// judgeRaise holds a claim raised after its recovery to finishing on the
// node.
func (o *recoveryOutcome) judgeRaise(cl claim, rec recovering, pvc *v1.PersistentVolumeClaim, expands, nodeCalls []csidriver.LoggedCall, reached map[int64]time.Time, isKubelet func(pid int) bool, fail func(string, ...any)) {
	o.raised++
	if rec.within {
		o.within++
		if n := expandsAt(expands, cl.handle(), rec.raised); n > 0 {
			fail("%d ControllerExpandVolume calls for the raise to %d bytes, which the volume holds", n, rec.raised)
		}
	}
	at, seen := reached[rec.raised]
	if !seen {
		fail("never seen at the raised size %d bytes", rec.raised)
		return
	}
	o.raiseTook = append(o.raiseTook, max(at.Sub(rec.raisedAt), 0))
	if _, ok := nodeExpandedBefore(nodeCalls, cl.handle(), rec.raised, at, isKubelet); !ok {
		fail("raised to %d bytes, finished without kubelet's NodeExpandVolume at it", rec.raised)
		return
	}
	if p := notFinishedAt(pvc, rec.raised); p != "" {
		fail("not at rest at the raised size: %s", p)
		return
	}
	o.raisedDone++
}

// refusedSizes lists the sizes of the NodeExpandVolume calls on volume
// that the node answered OutOfRange.
func refusedSizes(nodeCalls []csidriver.LoggedCall, volume string) []int64 {
	var sizes []int64
	for _, c := range nodeCalls {
		if c.Method == csidriver.MethodNodeExpand && c.VolumeID == volume && c.Code == "OutOfRange" {
			sizes = append(sizes, c.RequiredBytes)
		}
	}
	return sizes
}

// expandedAfterRefusal reports whether kubelet expanded volume to the size
// the node first refused, after the refusal. A kubelet killed between the
// refusal and its write of NodeResizeInfeasible (or that could not write
// it, the API server away) leaves the claim NodeResizeInProgress; a
// kubelet that has not seen the failure then tries again, the scripted
// answer is spent, and the volume holds the size.
func expandedAfterRefusal(nodeCalls []csidriver.LoggedCall, volume string, isKubelet func(pid int) bool) bool {
	i := slices.IndexFunc(nodeCalls, func(c csidriver.LoggedCall) bool {
		return c.Method == csidriver.MethodNodeExpand && c.VolumeID == volume && c.Code == "OutOfRange"
	})
	if i < 0 {
		return false
	}
	refused := nodeCalls[i]
	return slices.ContainsFunc(nodeCalls, func(c csidriver.LoggedCall) bool {
		return c.Method == csidriver.MethodNodeExpand && c.VolumeID == volume && c.RequiredBytes == refused.RequiredBytes &&
			c.Code == "OK" && c.Start.After(refused.End) && isKubelet(c.Pid)
	})
}

// expandsAt counts the ControllerExpandVolume calls on volume for size.
func expandsAt(calls []csidriver.LoggedCall, volume string, size int64) int {
	n := 0
	for _, c := range calls {
		if c.Method == csidriver.MethodExpand && c.VolumeID == volume && c.RequiredBytes == size {
			n++
		}
	}
	return n
}

// notFinishedAt describes how the claim is not finished at size (request,
// status.capacity and allocatedResources at it, no resize status or
// condition); "" when it is.
func notFinishedAt(pvc *v1.PersistentVolumeClaim, size int64) string {
	if pvc == nil {
		return "not listed"
	}
	request, capacity := pvc.Spec.Resources.Requests[v1.ResourceStorage], pvc.Status.Capacity[v1.ResourceStorage]
	allocated := pvc.Status.AllocatedResources[v1.ResourceStorage]
	if request.Value() != size || capacity.Value() != size || allocated.Value() != size ||
		len(pvc.Status.AllocatedResourceStatuses) > 0 || slices.ContainsFunc(pvc.Status.Conditions, notModify) {
		return fmt.Sprintf("want %d bytes: %s", size, framework.Describe(pvc))
	}
	return ""
}

// belowPV lists the claims of l whose PV is larger than their capacity: a
// claim lowered after a refusal, whose PV stays at the refused size.
func belowPV(l *listing) map[claim]bool {
	below := map[claim]bool{}
	for i := range l.pvcs {
		pvc := &l.pvcs[i]
		pv, ok := l.pvs[pvc.Spec.VolumeName]
		if !ok {
			continue
		}
		pvSize, capacity := pv.Spec.Capacity[v1.ResourceStorage], pvc.Status.Capacity[v1.ResourceStorage]
		if pvSize.Cmp(capacity) > 0 {
			below[claim{ns: pvc.Namespace, name: pvc.Name}] = true
		}
	}
	return below
}

// report adds the figures of the recovery; armed is how many refusals
// were scripted.
func (o *recoveryOutcome) report(r *report, armed int) {
	r.add("node recovery (KEP-1790): refusals scripted: %d, met by kubelet and recorded: %d, met but expanded after all (kubelet killed or the API server away before its record): %d, the others dropped by a driver restart or the next wave's script",
		armed, o.refused, o.unrecorded)
	r.add("node recovery: claims NodeResizeInfeasible: %d, unexpected: %d; lowered: %d; at rest at the lowered size: %d/%d",
		o.infeasible, len(o.unexpected), o.lowered, o.atLowered, o.lowered-o.raised)
	r.add("node recovery: raised after it: %d (%d within the PV, %d above), finished on the node: %d/%d; problems: %d",
		o.raised, o.within, o.raised-o.within, o.raisedDone, o.raised, len(o.problems))
	r.add("node recovery times: NodeResizeInfeasible seen to the claim at the lowered size %s; the lowered request to it %s; a raise to the claim at it %s",
		spread(o.toLowered), spread(o.lowerTook), spread(o.raiseTook))
}

// spread is the median and max of sorted durations, for the report.
func spread(sorted []time.Duration) string {
	if len(sorted) == 0 {
		return "none"
	}
	return fmt.Sprintf("median %s, max %s over %d", percentile(sorted, 0.5).Round(10*time.Millisecond), percentile(sorted, 1).Round(10*time.Millisecond), len(sorted))
}
