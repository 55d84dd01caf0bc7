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
)

// fuzzClassNames are the classes a claim may name: ours, another driver's,
// one that does not exist, and none.
var fuzzClassNames = []string{"", "gold", "silver", "alien", "bronze"}

// FuzzClaim feeds arbitrary claims, volumes and memories to Claim and
// checks that the plan holds together: the next job is one that acts and
// was not done already, only the writes are left only for a call the
// driver has done, pods hold back only a driver call of an expansion,
// the owner follows, and the input is left as it was.
//
// Run it for longer with:
//
//	go test -run='^$' -fuzz='^FuzzClaim$' -fuzztime=60s ./pkg/decide/
func FuzzClaim(f *testing.F) {
	// request, capacity, pv, allocated (in 10^18 bytes; < 0 none), status selector, resize failure class
	// (0 none), its target and age, modify failure class, class spec, current, applied sizes
	// and class, pods, offline only, done, recovery, resize and modify on.
	f.Add(int8(2), int8(1), int8(1), int8(-1), uint8(0), uint8(0), int8(0), int64(0), uint8(0), uint8(0), uint8(0), int8(-1), uint8(0), uint8(0), false, uint8(0), true, true, true)
	f.Add(int8(2), int8(1), int8(1), int8(2), uint8(1), uint8(1), int8(2), int64(time.Second), uint8(2), uint8(1), uint8(0), int8(2), uint8(1), uint8(2), true, uint8(1), true, true, true)
	f.Add(int8(3), int8(1), int8(2), int8(3), uint8(2), uint8(2), int8(3), int64(time.Minute), uint8(3), uint8(3), uint8(2), int8(-1), uint8(3), uint8(1), false, uint8(2), false, true, false)
	f.Fuzz(func(t *testing.T, request, capacity, pvSize, allocated int8, statusSel, resizeClass uint8, failTarget int8, failAge int64,
		modifyClass, spec, current uint8, applied int8, appliedClass, pods uint8, offline bool, done uint8, recovery, resize, modify bool) {
		gi := func(n int8) string { q := fuzzQuantity(int64(n), 27); return q.String() }
		in := planInput(gi(request), gi(capacity), gi(pvSize))
		if allocated >= 0 {
			in.Claim.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: fuzzQuantity(int64(allocated), 27)}
		}
		if s := fuzzResizeStatuses[int(statusSel)%len(fuzzResizeStatuses)]; s != "" {
			in.Claim.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: s}
		}
		if resizeClass > 0 {
			in.Memory.ResizeFailure = failedResize(fuzzClasses[(resizeClass-1)%4], gi(failTarget), time.Duration(failAge))
		}
		if modifyClass > 0 {
			in.Memory.ModifyFailure = failedModify(fuzzClasses[(modifyClass-1)%3], fuzzClassNames[int(spec)%len(fuzzClassNames)], time.Duration(failAge))
		}
		if c := fuzzClassNames[int(spec)%len(fuzzClassNames)]; c != "" {
			in = wantsClass(in, c, fuzzClassNames[int(current)%len(fuzzClassNames)])
		}
		if applied >= 0 {
			q := fuzzQuantity(int64(applied), 27)
			in.Memory.ResizeApplied = &q
		}
		if c := fuzzClassNames[int(appliedClass)%len(fuzzClassNames)]; c != "" {
			in.Memory.ModifyApplied = ptr.To(c)
		}
		in.PodsUsing = []string{"a", "b", "c"}[:pods%4]
		in.Settings.OnlyOffline, in.Settings.Recovery, in.Settings.Resize, in.Settings.Modify = offline, recovery, resize, modify
		in.Done = Job(done % 3)
		claim, volume := in.Claim.DeepCopy(), in.Volume.DeepCopy()

		p := Claim(in)
		checkPlan(t, in, p)
		if !equalObjects(claim, in.Claim) || !equalObjects(volume, in.Volume) {
			t.Errorf("Claim changed its input")
		}
	})
}

func checkPlan(t *testing.T, in Input, p Plan) {
	t.Helper()
	switch p.Next {
	case NoJob:
	case ResizeJob:
		if !in.Settings.Resize || !p.Resize.Action.Acts() {
			t.Errorf("next is the expansion, whose decision %s does not act (expansion on: %v)", p.Resize.Action, in.Settings.Resize)
		}
	case ModifyJob:
		if !in.Settings.Modify || !p.Modify.Action.Acts() {
			t.Errorf("next is the modification, whose decision %s does not act (modification on: %v)", p.Modify.Action, in.Settings.Modify)
		}
	default:
		t.Fatalf("next is %d, no job", p.Next)
	}
	if p.Next != NoJob && p.Next == in.Done {
		t.Errorf("next is %s, done in this sync already", p.Next)
	}
	if p.Again && (p.Next != NoJob || !(in.Done == ResizeJob && p.Resize.Action.CallsDriver() || in.Done == ModifyJob && p.Modify.Action.CallsDriver())) {
		t.Errorf("again with next %s after %s done in this sync, decisions %s and %s", p.Next, in.Done, p.Resize.Action, p.Modify.Action)
	}
	if p.WritesOnly {
		resized := p.Next == ResizeJob && p.Resize.Action == Expand && in.Memory.ResizeApplied != nil && in.Memory.ResizeApplied.Cmp(p.Resize.Target) == 0
		modified := p.Next == ModifyJob && p.Modify.Action == ModifyCall && in.Memory.ModifyApplied != nil && *in.Memory.ModifyApplied == p.Modify.Target
		if !resized && !modified {
			t.Errorf("only the writes are left for %s, which the driver has not done: %+v", p.Next, p)
		}
	}
	if len(p.HeldBackBy) > 0 && (p.Next != ResizeJob || p.Resize.Action != Expand || p.WritesOnly || !slices.Equal(p.HeldBackBy, in.PodsUsing)) {
		t.Errorf("held back by %v, but the step is %s %s (writes only %v)", p.HeldBackBy, p.Next, p.Resize.Action, p.WritesOnly)
	}
	if (p.Owner == OwnedByResizer) != (p.Next != NoJob && len(p.HeldBackBy) == 0 || p.Again) {
		t.Errorf("owner %s, why %s, with next %s held back by %v", p.Owner, p.Why, p.Next, p.HeldBackBy)
	}
	if p.Wait < 0 || p.Wait > in.Settings.RetryMax {
		t.Errorf("wait %v, want within [0, %v]", p.Wait, in.Settings.RetryMax)
	}
}
