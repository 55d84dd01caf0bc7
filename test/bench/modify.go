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

package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The VolumeAttributesClasses of the modify run, with the mutable
// parameters the driver receives: every claim starts in modifyFrom and is
// switched to modifyTo.
const (
	modifyFrom = "bench-standard"
	modifyTo   = "bench-fast"
)

var modifyClasses = map[string]map[string]string{
	modifyFrom: {"iops": "3000", "throughput": "125"},
	modifyTo:   {"iops": "16000", "throughput": "1000"},
}

// modifyWrites is the least number of writes, events excluded, a
// modification can take: the intent in the claim's status, the PV's class,
// the claim's final status.
const modifyWrites = 3.0

// modifyResult is one run of N claims changing class at once: Wall runs
// to the last claim seen at its new class, DriverCalls counts
// ControllerModifyVolume, Errors the claims seen with ModifyVolumeError.
type modifyResult struct {
	throughputResult
	From, To string
	// PVsAtTarget counts the PVs whose spec.volumeAttributesClassName is To
	// once every claim is: a claim must never say more than its volume.
	PVsAtTarget int
}

// isModified reports whether the claim's modification to target is over:
// status.currentVolumeAttributesClassName is target, no modifyVolumeStatus
// and no modify condition left.
func isModified(pvc *v1.PersistentVolumeClaim, target string) bool {
	return framework.CurrentAttributesClass(pvc) == target && pvc.Status.ModifyVolumeStatus == nil &&
		!framework.HasCondition(pvc, v1.PersistentVolumeClaimVolumeModifyingVolume) && !modifyErrored(pvc)
}

// modifyErrored reports whether the claim records a failed modification.
func modifyErrored(pvc *v1.PersistentVolumeClaim) bool {
	return framework.HasCondition(pvc, v1.PersistentVolumeClaimVolumeModifyVolumeError)
}

// wrongParameters counts the calls whose mutable parameters are not want.
func wrongParameters(calls []framework.Call, want map[string]string) int {
	n := 0
	for _, c := range calls {
		if !maps.Equal(c.Parameters, want) {
			n++
		}
	}
	return n
}

// runModify switches cfg.modifyN bound claims, provisioned in modifyFrom,
// to modifyTo at once and measures the resizer until every claim is at its
// new class and every event written. The driver advertises MODIFY_VOLUME
// and expands nothing here.
func runModify(ctx context.Context, cfg *config, s setting) (*modifyResult, error) {
	n := cfg.modifyN
	res := &modifyResult{From: modifyFrom, To: modifyTo}
	return res, runBatch(ctx, cfg, s, &res.throughputResult, batch{
		mode: "modify", header: fmt.Sprintf("modify: %d claims from class %s to %s at %s", n, modifyFrom, modifyTo, s), n: n,
		driver: framework.DriverOptions{Modify: true},
		sent:   "class changes", done: "modified", unit: "modifies", class: modifyFrom,
		setup: func(ctx context.Context, r *rig) error {
			for _, name := range slices.Sorted(maps.Keys(modifyClasses)) {
				if err := framework.CreateAttributesClass(ctx, r.admin, name, driverName, modifyClasses[name]); err != nil {
					return err
				}
			}
			return nil
		},
		watch: func(ctx context.Context, c kubernetes.Interface) (*claimWatch, error) {
			return watchClaimsUntil(ctx, c, func(pvc *v1.PersistentVolumeClaim) bool { return isModified(pvc, modifyTo) }, modifyErrored)
		},
		send: func(ctx context.Context, r *rig, claim string) error {
			return framework.SetAttributesClass(ctx, r.admin, benchNamespace, claim, modifyTo)
		},
		calls: res.readCalls,
	})
}

// readCalls reads the driver's ControllerModifyVolume calls, checks that
// each carried the parameters of modifyTo, and counts the PVs at modifyTo.
func (res *modifyResult) readCalls(ctx context.Context, r *rig) ([]framework.Call, error) {
	calls, err := r.driver.Calls(csidriver.MethodModify)
	if err != nil {
		return nil, err
	}
	if bad := wrongParameters(calls, modifyClasses[modifyTo]); bad > 0 {
		return nil, fmt.Errorf("%d of %d ControllerModifyVolume calls did not carry the parameters of class %s", bad, len(calls), modifyTo)
	}
	pvs, err := r.admin.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, pv := range pvs.Items {
		if ptr.Deref(pv.Spec.VolumeAttributesClassName, "") == modifyTo {
			res.PVsAtTarget++
		}
	}
	return calls, nil
}

// modifyKinds are the rows of the writes-per-modify breakdown, in order.
var modifyKinds = []struct {
	Label string
	Key   requestKey
}{
	{"claim status patches", requestKey{"patch", "persistentvolumeclaims", "status"}},
	{"PV patches", requestKey{"patch", "persistentvolumes", ""}},
	{"event writes", requestKey{"create", "events", ""}},
}

// otherWrites is the number of writes and event writes of t that are none
// of modifyKinds.
func otherWrites(t tally) int {
	n := t.ByClass[classWrite] + t.ByClass[classEvent]
	for _, k := range modifyKinds {
		n -= t.ByKey[k.Key]
	}
	return n
}

func (r *results) modifyTables(p func(string, ...any)) {
	m0 := r.Modify[0]
	var runs []*throughputResult
	for _, m := range r.Modify {
		runs = append(runs, &m.throughputResult)
	}
	p("### Modify: N claims change VolumeAttributesClass at once\n")
	p("Every claim starts in class `%s` (PV spec, claim spec and status) and its spec is switched to `%s`; the driver advertises MODIFY_VOLUME and answers at once. A claim is finished when it shows currentVolumeAttributesClassName = `%s`, no modifyVolumeStatus and no modify condition.\n", m0.From, m0.To, m0.To)
	batchTable(p, runs, "Modifies", "modify", "modifies", " PVs at the new class |", func(i int) string {
		return fmt.Sprintf(" %d of %d |", r.Modify[i].PVsAtTarget, r.Modify[i].N)
	})
	p("The token-bucket floor is (N × %.0f writes − burst) ÷ QPS: no resizer making %.0f writes a modification can finish sooner. Writes per modification by kind (the floor is %.0f: the intent, the PV, the final claim status):\n", modifyWrites, modifyWrites, modifyWrites)
	header, sep := "| Setting |", "|---|"
	for _, k := range modifyKinds {
		header += fmt.Sprintf(" %s/modify (`%s`) |", strings.ToUpper(k.Label[:1])+k.Label[1:], k.Key)
		sep += "---|"
	}
	p("%s Other writes/modify | Writes/modify, events excluded |\n%s---|---|", header, sep)
	for _, m := range r.Modify {
		row := fmt.Sprintf("| %s |", m.Setting)
		for _, k := range modifyKinds {
			row += fmt.Sprintf(" %.2f |", float64(m.Requests.ByKey[k.Key])/float64(m.N))
		}
		p("%s %.2f | %.2f |", row, float64(otherWrites(m.Requests))/float64(m.N), m.perResize(classWrite))
	}
	p("")
	batchDetails(p, runs, "", "class changes", "modified", "ModifyVolumeError", "modify", "changes", "ControllerModifyVolume calls")
}

// modifyTargets are the checks of the modify runs: the floor of writes, no
// GET of what the informers hold, every PV at the class its claim reports,
// and at the default budget a rate that only the budget limits.
func (r *results) modifyTargets(add func(met bool, measured, goal string, args ...any)) {
	for _, m := range r.Modify {
		writesTarget(add, &m.throughputResult, "modify", modifyWrites)
	}
	for _, m := range r.Modify {
		heldGetsTarget(add, &m.throughputResult, "PVCs, PVs, StorageClasses, VolumeAttributesClasses or pods", "modify at "+m.Setting.Name)
	}
	for _, m := range r.Modify {
		add(m.PVsAtTarget == m.N && m.DriverCalls == m.N && m.Volumes == m.N,
			fmt.Sprintf("%d of %d PVs at class %s; %d ControllerModifyVolume calls for %d volumes", m.PVsAtTarget, m.N, m.To, m.DriverCalls, m.Volumes),
			"Every PV at its claim's new class, one driver call per volume, modify at %s", m.Setting.Name)
	}
	for _, m := range r.Modify {
		if m.Setting.Name == "default" {
			want := targetRateShare * float64(m.Setting.QPS) / modifyWrites
			add(m.rate() >= want, fmt.Sprintf("%.3f modifies/s (%s for %d)", m.rate(), seconds(m.Wall), m.N),
				"Modify throughput at defaults ≥ %.2f × (%d QPS ÷ %.0f writes) = %.3f modifies/s", targetRateShare, m.Setting.QPS, modifyWrites, want)
		}
	}
}
