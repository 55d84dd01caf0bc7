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
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMidway(t *testing.T) {
	for _, tc := range []struct {
		low, high, want int64
		ok              bool
	}{
		{low: gi(2), high: gi(3), want: 2560 * mi, ok: true},
		{low: gi(1), high: gi(4), want: 2560 * mi, ok: true},
		{low: 2560 * mi, high: gi(3), want: 2816 * mi, ok: true},
		{low: gi(2) + 3, high: gi(2) + 2*mi + 5, want: gi(2) + mi, ok: true}, // rounded down, still above low
		{low: gi(2), high: gi(2) + mi, want: gi(2)},                          // no whole MiB strictly between
		{low: gi(3), high: gi(3), want: gi(3)},
		{low: gi(3), high: gi(2), want: 2560 * mi}, // the wrong way round
	} {
		got, ok := midway(tc.low, tc.high)
		if got != tc.want || ok != tc.ok {
			t.Errorf("midway(%d, %d) = %d, %v; want %d, %v", tc.low, tc.high, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRaiseTarget(t *testing.T) {
	for _, tc := range []struct {
		i           int
		lowered, pv int64
		want        int64
		within      bool
	}{
		{i: 0, lowered: 2560 * mi, pv: gi(3), want: 2816 * mi, within: true},
		{i: 1, lowered: 2560 * mi, pv: gi(3), want: 3584 * mi},
		{i: 2, lowered: 2560 * mi, pv: gi(3), want: 2816 * mi, within: true},
		{i: 0, lowered: gi(3), pv: gi(3), want: 3584 * mi}, // no room within
	} {
		got, within := raiseTarget(tc.i, tc.lowered, tc.pv)
		if got != tc.want || within != tc.within {
			t.Errorf("raiseTarget(%d, %d, %d) = %d, %v; want %d, %v", tc.i, tc.lowered, tc.pv, got, within, tc.want, tc.within)
		}
	}
}

func TestPickFew(t *testing.T) {
	from := []claim{{"chaos", "a"}, {"chaos", "b"}, {"chaos", "c"}, {"chaos", "d"}}
	all := func(claim) bool { return true }
	for _, k := range []int{-1, 0, 2, 4, 9} {
		got := pickFew(rand.New(rand.NewPCG(3, 3)), from, k, all)
		if want := min(max(k, 0), len(from)); len(got) != want {
			t.Errorf("pickFew(k=%d) picked %d, want %d", k, len(got), want)
		}
		seen := map[claim]bool{}
		for _, cl := range got {
			if seen[cl] || !slices.Contains(from, cl) {
				t.Errorf("pickFew(k=%d) = %v: a claim twice or not offered", k, got)
			}
			seen[cl] = true
		}
		if again := pickFew(rand.New(rand.NewPCG(3, 3)), from, k, all); !slices.Equal(got, again) {
			t.Errorf("pickFew(k=%d) = %v, then %v from the same seed", k, got, again)
		}
	}
	if got := pickFew(rand.New(rand.NewPCG(3, 3)), nil, 2, all); len(got) != 0 {
		t.Errorf("pickFew of none = %v", got)
	}

	// Leaving a claim out skips it, and leaves the source where it was.
	first := pickFew(rand.New(rand.NewPCG(3, 3)), from, 2, all)
	rnd := rand.New(rand.NewPCG(3, 3))
	got := pickFew(rnd, from, 2, func(cl claim) bool { return cl != first[0] })
	if len(got) != 2 || got[0] != first[1] || slices.Contains(got, first[0]) {
		t.Errorf("pickFew without %v = %v, want %v first", first[0], got, first[1])
	}
	untouched := rand.New(rand.NewPCG(3, 3))
	untouched.Perm(len(from))
	if a, b := rnd.Uint64(), untouched.Uint64(); a != b {
		t.Errorf("the source after pickFew is not where one permutation leaves it")
	}
}

func TestHoldBack(t *testing.T) {
	a, b, c, d := claim{"chaos", "a"}, claim{"chaos", "b"}, claim{"chaos", "c"}, claim{"chaos", "d"}
	changes := []change{
		{claim: a, grow: true},                  // free: grown
		{claim: b, grow: true},                  // held: dropped
		{claim: c, grow: true, class: "gold"},   // held: class only
		{claim: d, grow: true, class: "silver"}, // raised: to its size, class kept
	}
	held := map[claim]bool{b: true, c: true, d: true, {"chaos", "e"}: true}
	raises := map[claim]int64{d: 2816 * mi, {"chaos", "e"}: 3584 * mi}
	got := holdBack(changes, held, raises)
	want := []change{
		{claim: a, grow: true},
		{claim: c, class: "gold"},
		{claim: d, to: 2816 * mi, class: "silver"},
		{claim: claim{"chaos", "e"}, to: 3584 * mi},
	}
	if !slices.Equal(got, want) {
		t.Errorf("holdBack = %+v\nwant %+v", got, want)
	}
	if grown, both := grownBy(got); !slices.Equal(grown, []claim{a}) || both != 0 {
		t.Errorf("grownBy = %v, %d; want a alone, none with a class", grown, both)
	}
}

// pvcAt is a claim of the recovery's tests with its request, capacity and
// allocatedResources, and a resize status.
func pvcAt(name string, request, capacity, allocated int64, status v1.ClaimResourceStatus) *v1.PersistentVolumeClaim {
	q := func(n int64) resource.Quantity { return *resource.NewQuantity(n, resource.BinarySI) }
	p := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "chaos", Name: name}}
	p.Spec.VolumeName = claim{"chaos", name}.pv()
	p.Spec.Resources.Requests = v1.ResourceList{v1.ResourceStorage: q(request)}
	p.Status.Capacity = v1.ResourceList{v1.ResourceStorage: q(capacity)}
	p.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: q(allocated)}
	if status != "" {
		p.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: status}
	}
	return p
}

// TestRecoveryLowers checks the user's part of the recovery: a refused
// claim seen NodeResizeInfeasible has its request lowered once, halfway
// between its capacity and the refused size; other claims are left alone.
func TestRecoveryLowers(t *testing.T) {
	r := newRecovery()
	r.now = func() time.Time { return sec(1) }
	a, b := claim{"chaos", "data-a"}, claim{"chaos", "data-b"}
	r.see(pvcAt("data-a", gi(2), gi(2), gi(2), ""))
	if !r.restsAt(a, gi(2)) || r.restsAt(a, gi(3)) || r.restsAt(b, gi(2)) {
		t.Errorf("restsAt: want data-a at 2Gi alone (data-b never seen)")
	}
	r.arm(a)
	lowered := make(chan claim, 4)
	r.start(context.Background(), func(_ context.Context, cl claim, size int64) error {
		if size != 2560*mi {
			t.Errorf("lowered %s to %d, want 2560Mi", cl.name, size)
		}
		lowered <- cl
		return nil
	})
	defer r.close()
	r.see(pvcAt("data-b", gi(3), gi(2), gi(3), v1.PersistentVolumeClaimNodeResizeInfeasible)) // not refused
	r.see(pvcAt("data-a", gi(3), gi(2), gi(3), v1.PersistentVolumeClaimNodeResizeInProgress))
	r.see(pvcAt("data-a", gi(3), gi(2), gi(3), v1.PersistentVolumeClaimNodeResizeInfeasible))
	select {
	case cl := <-lowered:
		if cl != a {
			t.Errorf("lowered %v, want data-a", cl)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("data-a not lowered")
	}
	r.see(pvcAt("data-a", gi(3), gi(2), gi(3), v1.PersistentVolumeClaimNodeResizeInfeasible)) // seen again
	r.see(pvcAt("data-a", 2560*mi, 2560*mi, 2560*mi, ""))
	r.close()
	if len(lowered) != 0 {
		t.Errorf("lowered again: %v", <-lowered)
	}
	rec := r.snapshot()[a]
	if rec.capacity != gi(2) || rec.refused != gi(3) || rec.lowered != 2560*mi || rec.loweredAt.IsZero() || rec.problem != "" {
		t.Errorf("record = %+v", rec)
	}
	if size, ok := r.recovered(a); !ok || size != 2560*mi {
		t.Errorf("recovered = %d, %v; want 2560Mi", size, ok)
	}
	r.raise(a, 2816*mi, true)
	if _, ok := r.recovered(a); ok {
		t.Errorf("recovered after the raise")
	}
	if got := r.refused(); !slices.Equal(got, []claim{a}) {
		t.Errorf("refused = %v, want data-a", got)
	}
	if held := r.held(); len(held) != 1 || !held[a] {
		t.Errorf("held = %v, want data-a", held)
	}
}
