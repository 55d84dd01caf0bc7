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

package decide

import (
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const planDriver = "ours.csi.example.com"

// planInput is testobj's claim ns/data (uid-1, pv-1) asking for request,
// recorded at capacity, on a PV of pvSize of our driver, with both jobs on.
func planInput(request, capacity, pvSize string) Input {
	uid1 := func(pvc *v1.PersistentVolumeClaim) { pvc.UID, pvc.Spec.VolumeName = "uid-1", "pv-1" }
	pvc := testobj.Claim("ns", "data", request, capacity, uid1)
	pv := testobj.Volume(pvc, planDriver, pvSize, testobj.Handle("vol-1"))
	return Input{Claim: pvc, Volume: pv, Now: t0,
		ClassDriver: func(name string) (string, bool) { d, ok := classDrivers[name]; return d, ok },
		Settings:    Settings{Driver: planDriver, Resize: true, Modify: true, Recovery: true, RetryMax: retry}}
}

// wantsClass makes in's claim ask for class, its volume having current.
func wantsClass(in Input, class, current string) Input {
	in.Claim.Spec.VolumeAttributesClassName = ptr.To(class)
	if current != "" {
		in.Claim.Status.CurrentVolumeAttributesClassName = ptr.To(current)
		in.Volume.Spec.VolumeAttributesClassName = ptr.To(current)
	}
	return in
}

func TestClaimPlan(t *testing.T) {
	gi2 := q("2Gi")
	tests := []struct {
		name      string
		in        func() Input
		next      Job
		owner     Owner
		why       Why
		writes    bool
		heldBack  []string
		wantWait  bool
		wantError bool
		again     bool
	}{
		{name: "nothing asked", in: func() Input { return planInput("1Gi", "1Gi", "1Gi") }, next: NoJob, owner: OwnedByNobody, why: Settled},
		{name: "an expansion asked", in: func() Input { return planInput("2Gi", "1Gi", "1Gi") }, next: ResizeJob, owner: OwnedByResizer, why: StepDue},
		{name: "the driver has expanded, the writes failed: only the writes", in: func() Input {
			in := planInput("2Gi", "1Gi", "1Gi")
			in.Memory.ResizeApplied = &gi2
			return in
		}, next: ResizeJob, owner: OwnedByResizer, why: WritesLeft, writes: true},
		{name: "a success for another size is no reason to skip the call", in: func() Input {
			in := planInput("3Gi", "1Gi", "1Gi")
			in.Memory.ResizeApplied = &gi2
			return in
		}, next: ResizeJob, owner: OwnedByResizer, why: StepDue},
		{name: "an offline-only driver: pods hold the call back", in: func() Input {
			in := planInput("2Gi", "1Gi", "1Gi")
			in.Settings.OnlyOffline, in.PodsUsing = true, []string{"app"}
			return in
		}, next: ResizeJob, owner: OwnedByUser, why: HeldBackByPods, heldBack: []string{"app"}},
		{name: "an online driver: pods do not hold it back", in: func() Input {
			in := planInput("2Gi", "1Gi", "1Gi")
			in.PodsUsing = []string{"app"}
			return in
		}, next: ResizeJob, owner: OwnedByResizer, why: StepDue},
		{name: "an online driver that answered in use: pods hold it back", in: func() Input {
			in := planInput("2Gi", "1Gi", "1Gi")
			in.PodsUsing, in.Memory.ResizeFailure = []string{"app"}, failedInUse("2Gi", time.Second)
			return in
		}, next: ResizeJob, owner: OwnedByUser, why: HeldBackByPods, heldBack: []string{"app"}},
		{name: "only the writes left: pods do not hold them back", in: func() Input {
			in := planInput("2Gi", "1Gi", "1Gi")
			in.Settings.OnlyOffline, in.PodsUsing, in.Memory.ResizeApplied = true, []string{"app"}, &gi2
			return in
		}, next: ResizeJob, owner: OwnedByResizer, why: WritesLeft, writes: true},
		{name: "an infeasible size waits on the slow lane", in: func() Input {
			in := planInput("100Ti", "1Gi", "1Gi")
			in.Memory.ResizeFailure = failedResize(Infeasible, "100Ti", time.Minute)
			in.Claim.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: q("100Ti")}
			in.Claim.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: ctrlInfeasible}
			return in
		}, next: NoJob, owner: OwnedByUser, why: SlowLane, wantWait: true},
		{name: "kubelet's step", in: func() Input {
			in := planInput("2Gi", "1Gi", "2Gi")
			in.Claim.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: q("2Gi")}
			in.Claim.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: nodePending}
			return in
		}, next: NoJob, owner: OwnedByKubelet, why: KubeletStep},
		{name: "a size that cannot be decided on", in: func() Input { return planInput("2e40", "1Gi", "1Gi") }, next: NoJob, owner: OwnedByUser, why: UnusableSize, wantError: true},
		{name: "a class asked", in: func() Input { return wantsClass(planInput("1Gi", "1Gi", "1Gi"), "gold", "") }, next: ModifyJob, owner: OwnedByResizer, why: StepDue},
		{name: "a class applied, its writes failed", in: func() Input {
			in := wantsClass(planInput("1Gi", "1Gi", "1Gi"), "gold", "")
			in.Memory.ModifyApplied = ptr.To("gold")
			return in
		}, next: ModifyJob, owner: OwnedByResizer, why: WritesLeft, writes: true},
		{name: "both asked: the expansion first", in: func() Input { return wantsClass(planInput("2Gi", "1Gi", "1Gi"), "gold", "") }, next: ResizeJob, owner: OwnedByResizer, why: StepDue},
		{name: "both asked, the expansion failed last: the class first", in: func() Input {
			in := wantsClass(planInput("2Gi", "1Gi", "1Gi"), "gold", "")
			in.Memory.ResizeFailure = failedResize(Final, "2Gi", time.Second)
			in.Memory.ModifyFailure = failedModify(Final, "gold", time.Minute)
			return in
		}, next: ModifyJob, owner: OwnedByResizer, why: StepDue},
		{name: "the expansion done in this sync: the class next", in: func() Input {
			in := wantsClass(planInput("2Gi", "1Gi", "1Gi"), "gold", "")
			in.Claim.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: q("2Gi")}
			in.Claim.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: ctrlProgress}
			in.Memory.ResizeFailure = failedResize(Final, "2Gi", time.Second)
			in.Done = ResizeJob
			return in
		}, next: ModifyJob, owner: OwnedByResizer, why: StepDue},
		{name: "the job done in this sync is due again: in the next sync", in: func() Input {
			in := planInput("2Gi", "1Gi", "1Gi")
			in.Done = ResizeJob
			return in
		}, next: NoJob, owner: OwnedByResizer, why: StepDue, again: true},
		{name: "expansion off: nothing to expand", in: func() Input {
			in := planInput("2Gi", "1Gi", "1Gi")
			in.Settings.Resize = false
			return in
		}, next: NoJob, owner: OwnedByNobody, why: Settled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Claim(tc.in())
			if p.Next != tc.next || p.Owner != tc.owner || p.Why != tc.why || p.WritesOnly != tc.writes || !slices.Equal(p.HeldBackBy, tc.heldBack) {
				t.Errorf("plan: next %s, owner %s, why %s, writes only %v, held back by %v; want %s, %s, %s, %v, %v",
					p.Next, p.Owner, p.Why, p.WritesOnly, p.HeldBackBy, tc.next, tc.owner, tc.why, tc.writes, tc.heldBack)
			}
			if (p.Wait > 0) != tc.wantWait || (p.Invalid != nil) != tc.wantError || p.Again != tc.again {
				t.Errorf("plan waits %v, invalid %v, again %v; want a wait %v, an error %v, again %v", p.Wait, p.Invalid, p.Again, tc.wantWait, tc.wantError, tc.again)
			}
		})
	}
}

// TestClaimPlanIsPure: making a plan changes nothing it was made from.
func TestClaimPlanIsPure(t *testing.T) {
	in := wantsClass(planInput("2Gi", "1Gi", "1Gi"), "gold", "")
	claim, volume := in.Claim.DeepCopy(), in.Volume.DeepCopy()
	Claim(in)
	if !equalObjects(claim, in.Claim) || !equalObjects(volume, in.Volume) {
		t.Errorf("Claim changed its input")
	}
}

func equalObjects[T interface{ String() string }](a, b T) bool { return a.String() == b.String() }

// TestNamesOutOfRange checks that a value no constant has names its type's
// zero value, as the switches these tables replaced did, and never panics.
func TestNamesOutOfRange(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Job(-1).String(), "none"},
		{Job(3).String(), "none"},
		{Owner(9).String(), "nobody"},
		{Why(99).String(), "settled"},
		{Class(7).String(), "uncertain"},
		{ResizeAction(42).String(), "none"},
		{ModifyAction(-2).String(), "none"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
