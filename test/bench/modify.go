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
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// The VolumeAttributesClasses of the modify run: every claim starts in
// modifyFrom and is switched to modifyTo.
const (
	modifyFrom = "bench-standard"
	modifyTo   = "bench-fast"
)

// modifyClasses are the classes' parameters, the mutable parameters the
// driver receives.
var modifyClasses = map[string]map[string]string{
	modifyFrom: {"iops": "3000", "throughput": "125"},
	modifyTo:   {"iops": "16000", "throughput": "1000"},
}

// modifyWrites is the least number of writes, events excluded, a
// modification can take: the intent in the claim's status, the PV's class,
// the claim's final status.
const modifyWrites = 3.0

// modifyResult is one run of N claims changing class at once. The
// embedded fields mean what they mean for a resize, a modification in
// place of a resize: Wall runs from the first class change sent to the
// last claim seen at its new class, GrowSpan is how long sending every
// change took, DriverCalls counts ControllerModifyVolume, Errors the
// claims seen with ModifyVolumeError.
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
	return ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, "") == target &&
		pvc.Status.ModifyVolumeStatus == nil &&
		!hasCondition(pvc, v1.PersistentVolumeClaimVolumeModifyingVolume) &&
		!hasCondition(pvc, v1.PersistentVolumeClaimVolumeModifyVolumeError)
}

// modifyErrored reports whether the claim records a failed modification.
func modifyErrored(pvc *v1.PersistentVolumeClaim) bool {
	return hasCondition(pvc, v1.PersistentVolumeClaimVolumeModifyVolumeError)
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

// classPatch is the JSON merge patch that sets section.field (such as
// spec.volumeAttributesClassName) to value.
func classPatch(section, field, value string) []byte {
	b, _ := json.Marshal(map[string]map[string]string{section: {field: value}})
	return b
}

// runModify switches cfg.modifyN bound claims from modifyFrom to modifyTo at
// once and measures the resizer until every claim is at its new class and
// every event written. The driver advertises MODIFY_VOLUME and expands
// nothing here.
func runModify(ctx context.Context, cfg *config, s setting) (*modifyResult, error) {
	res := &modifyResult{From: modifyFrom, To: modifyTo}
	if err := runBatch(ctx, cfg, s, modifyBatch(cfg, s, res), &res.throughputResult); err != nil {
		return nil, err
	}
	return res, nil
}

// modifyBatch switches cfg.modifyN claims, put in modifyFrom first, to
// modifyTo, checking the driver's calls and the PVs into res.
func modifyBatch(cfg *config, s setting, res *modifyResult) batch {
	n := cfg.modifyN
	patch := classPatch("spec", "volumeAttributesClassName", modifyTo)
	return batch{
		mode: "modify", header: fmt.Sprintf("modify: %d claims from class %s to %s at %s", n, modifyFrom, modifyTo, s), n: n,
		driver: framework.DriverOptions{Modify: true},
		sent:   "class changes", done: "modified", unit: "modifies",
		setup: func(ctx context.Context, r *rig) error {
			if err := createClasses(ctx, r.admin); err != nil {
				return err
			}
			return classPairs(ctx, r.admin, n, modifyFrom, cfg.creators)
		},
		watch: func(ctx context.Context, c kubernetes.Interface) (*claimWatch, error) {
			return watchClaimsUntil(ctx, c, func(pvc *v1.PersistentVolumeClaim) bool { return isModified(pvc, modifyTo) }, modifyErrored)
		},
		send: func(ctx context.Context, r *rig, claim string) error {
			_, err := r.admin.CoreV1().PersistentVolumeClaims(benchNamespace).Patch(ctx, claim, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		},
		calls: res.readCalls,
	}
}

// createClasses creates the VolumeAttributesClasses of modifyClasses.
func createClasses(ctx context.Context, c kubernetes.Interface) error {
	for _, name := range slices.Sorted(maps.Keys(modifyClasses)) {
		if _, err := c.StorageV1().VolumeAttributesClasses().Create(ctx, &storagev1.VolumeAttributesClass{
			ObjectMeta: metav1.ObjectMeta{Name: name}, DriverName: driverName, Parameters: modifyClasses[name],
		}, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create VolumeAttributesClass %s: %w", name, err)
		}
	}
	return nil
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
	res.PVsAtTarget, err = pvsOfClass(ctx, r.admin, modifyTo)
	return calls, err
}

// classPairs puts the n bound pairs of createPairs in class, as if they
// had been provisioned with it: the PV's spec, the claim's status, then the
// claim's spec (3 admin patches a pair, before the resizer starts).
func classPairs(ctx context.Context, c kubernetes.Interface, n int, class string, goroutines int) error {
	pvPatch := classPatch("spec", "volumeAttributesClassName", class)
	statusPatch := classPatch("status", "currentVolumeAttributesClassName", class)
	return framework.Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		v := framework.Volume{Namespace: benchNamespace, Claim: claimName(i)}
		if _, err := c.CoreV1().PersistentVolumes().Patch(ctx, v.PVName(), types.MergePatchType, pvPatch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("set the class of PV %s: %w", v.PVName(), err)
		}
		claims := c.CoreV1().PersistentVolumeClaims(benchNamespace)
		if _, err := claims.Patch(ctx, v.Claim, types.MergePatchType, statusPatch, metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("set the current class of claim %s: %w", v.Claim, err)
		}
		if _, err := claims.Patch(ctx, v.Claim, types.MergePatchType, pvPatch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("set the class of claim %s: %w", v.Claim, err)
		}
		return nil
	}, progress("pairs in class "+class, n))
}

// pvsOfClass counts the PVs whose spec.volumeAttributesClassName is class.
func pvsOfClass(ctx context.Context, c kubernetes.Interface, class string) (int, error) {
	pvs, err := c.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pv := range pvs.Items {
		if ptr.Deref(pv.Spec.VolumeAttributesClassName, "") == class {
			n++
		}
	}
	return n, nil
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
