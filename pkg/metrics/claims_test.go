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

package metrics

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const testDriver = "test.csi.example.com"

// now is the time of the test scrapes.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// leader is a Leadership that tests switch.
type leader struct{ leading atomic.Bool }

func (l *leader) Leading() bool { return l.leading.Load() }

func leading(v bool) *leader {
	l := &leader{}
	l.leading.Store(v)
	return l
}

// caches holds slim claims and volumes as the controller's informers do.
type caches struct {
	claims, volumes cache.Store
}

func newCaches() *caches {
	return &caches{claims: cache.NewStore(cache.MetaNamespaceKeyFunc), volumes: cache.NewStore(cache.MetaNamespaceKeyFunc)}
}

// add caches claim ns/name, requesting 2Gi on 1Gi, and its PV of driver
// (none when driver is ""), changed by change.
func (c *caches) add(t testing.TB, name, driver string, change func(*v1.PersistentVolumeClaim)) {
	pvc := testobj.Claim("ns", name, "2Gi", "1Gi", testobj.VolumeName("pv-"+name))
	if change != nil {
		change(pvc)
	}
	if err := c.claims.Add(slim.NewClaim(pvc)); err != nil {
		t.Fatal(err)
	}
	if driver == "" {
		return
	}
	pv := testobj.Volume(pvc, driver, "1Gi", testobj.Classes("", ""))
	if err := c.volumes.Add(slim.NewVolume(pv)); err != nil {
		t.Fatal(err)
	}
}

// resizing records an expansion in s with condition t, True for ago.
func resizing(s v1.ClaimResourceStatus, t v1.PersistentVolumeClaimConditionType, ago time.Duration) func(*v1.PersistentVolumeClaim) {
	return both(testobj.Allocated("2Gi", s), withCondition(t, ago))
}

// modifying records a modification to gold in s with condition t, True
// for ago ("" for none).
func modifying(s v1.PersistentVolumeClaimModifyVolumeStatus, t v1.PersistentVolumeClaimConditionType, ago time.Duration) func(*v1.PersistentVolumeClaim) {
	return func(pvc *v1.PersistentVolumeClaim) {
		gold := "gold"
		pvc.Spec.VolumeAttributesClassName = &gold
		testobj.ModifyStatus(gold, s)(pvc)
		if t != "" {
			withCondition(t, ago)(pvc)
		}
	}
}

func withCondition(t v1.PersistentVolumeClaimConditionType, ago time.Duration) func(*v1.PersistentVolumeClaim) {
	return testobj.Condition(t, now.Add(-ago), "")
}

// both applies each change.
func both(changes ...func(*v1.PersistentVolumeClaim)) func(*v1.PersistentVolumeClaim) {
	return func(pvc *v1.PersistentVolumeClaim) {
		for _, c := range changes {
			c(pvc)
		}
	}
}

// stuckEverywhere caches claims of testDriver in every state, and claims
// that must not count.
func stuckEverywhere(t testing.TB) *caches {
	const (
		ctrlProgress   = v1.PersistentVolumeClaimControllerResizeInProgress
		ctrlInfeasible = v1.PersistentVolumeClaimControllerResizeInfeasible
		nodePending    = v1.PersistentVolumeClaimNodeResizePending
		nodeProgress   = v1.PersistentVolumeClaimNodeResizeInProgress
		nodeInfeasible = v1.PersistentVolumeClaimNodeResizeInfeasible
		fsPending      = v1.PersistentVolumeClaimFileSystemResizePending
		ctrlError      = v1.PersistentVolumeClaimControllerResizeError
	)
	c := newCaches()
	c.add(t, "idle", testDriver, func(pvc *v1.PersistentVolumeClaim) {
		pvc.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("1Gi")
	})
	c.add(t, "progress-10m", testDriver, resizing(ctrlProgress, v1.PersistentVolumeClaimResizing, 10*time.Minute))
	c.add(t, "progress-30m", testDriver, resizing(ctrlProgress, v1.PersistentVolumeClaimResizing, 30*time.Minute))
	c.add(t, "error", testDriver, resizing(ctrlProgress, ctrlError, 5*time.Minute))
	c.add(t, "infeasible", testDriver, resizing(ctrlInfeasible, ctrlError, time.Hour))
	c.add(t, "busy", testDriver, nil)
	c.add(t, "node-pending", testDriver, resizing(nodePending, fsPending, 2*time.Hour))
	c.add(t, "node-pending-ahead", testDriver, resizing(nodePending, fsPending, -time.Minute))
	c.add(t, "node-progress", testDriver, both(resizing(nodeProgress, fsPending, 90*time.Second),
		modifying(v1.PersistentVolumeClaimModifyVolumeInProgress, v1.PersistentVolumeClaimVolumeModifyingVolume, 15*time.Second)))
	c.add(t, "node-infeasible", testDriver, resizing(nodeInfeasible, v1.PersistentVolumeClaimNodeResizeError, 3*time.Hour))
	c.add(t, "modify-pending", testDriver, both(noGrowth, modifying(v1.PersistentVolumeClaimModifyVolumePending, "", 0)))
	c.add(t, "modify-infeasible", testDriver, both(noGrowth,
		modifying(v1.PersistentVolumeClaimModifyVolumeInfeasible, v1.PersistentVolumeClaimVolumeModifyVolumeError, 4*time.Minute)))
	// None of these counts.
	c.add(t, "other-driver", "other.csi.example.com", resizing(ctrlProgress, v1.PersistentVolumeClaimResizing, 100*time.Hour))
	c.add(t, "pv-not-cached", "", resizing(ctrlProgress, v1.PersistentVolumeClaimResizing, 100*time.Hour))
	c.add(t, "not-bound", testDriver, both(resizing(ctrlProgress, v1.PersistentVolumeClaimResizing, 100*time.Hour),
		func(pvc *v1.PersistentVolumeClaim) { pvc.Status.Phase = v1.ClaimPending }))
	c.add(t, "other-busy", "other.csi.example.com", nil)
	return c
}

func noGrowth(pvc *v1.PersistentVolumeClaim) {
	pvc.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("1Gi")
}

// busy is the held-back answer of the tests: the claims named busy.
func busy(c *slim.Claim) bool { return strings.HasSuffix(c.Name, "busy") }

func (c *caches) config(l Leadership) ClaimsConfig {
	return ClaimsConfig{
		Driver: testDriver, Claims: c.claims, Volumes: c.volumes, Leader: l, HeldBack: busy,
		Clock: testingclock.NewFakePassiveClock(now),
	}
}

const claimsHeader = `
# HELP csi_resizer_claims [ALPHA] Claims of this driver with an unfinished expansion or modification, by operation and state, from the informer caches at scrape time. Only the leader reports it; with --node-deployment every instance reports its node's claims, labelled node.
# TYPE csi_resizer_claims gauge
`

const oldestHeader = `
# HELP csi_resizer_claim_oldest_seconds [ALPHA] Seconds since the oldest claim of each operation and state entered it, from the transition times its conditions record; 0 when no claim is in it or none records a time. Only the leader reports it; with --node-deployment every instance reports its node's claims, labelled node.
# TYPE csi_resizer_claim_oldest_seconds gauge
`

// series renders one sample per state of metric, values in the order of
// unfinished.Known.
func series(metric string, values ...string) string {
	keys := [][2]string{
		{"resize", "controller_in_progress"}, {"resize", "controller_error"}, {"resize", "controller_infeasible"},
		{"resize", "waiting_in_use"}, {"resize", "node_pending"}, {"resize", "node_in_progress"}, {"resize", "node_infeasible"},
		{"modify", "pending"}, {"modify", "in_progress"}, {"modify", "infeasible"},
	}
	var b strings.Builder
	for i, k := range keys {
		b.WriteString(metric + `{driver_name="` + testDriver + `",operation="` + k[0] + `",state="` + k[1] + `"} ` + values[i] + "\n")
	}
	return b.String()
}

func TestClaimsByState(t *testing.T) {
	tests := []struct {
		name           string
		caches         *caches
		claims, ages   []string
		wantNoFamilies bool
	}{
		{name: "claims in every state",
			caches: stuckEverywhere(t),
			claims: []string{"2", "1", "1", "1", "2", "1", "1", "1", "1", "1"},
			ages:   []string{"1800", "300", "3600", "0", "7200", "90", "10800", "0", "15", "240"}},
		{name: "no claim in any state: every state at 0",
			caches: func() *caches { c := newCaches(); c.add(t, "idle", testDriver, noGrowth); return c }(),
			claims: []string{"0", "0", "0", "0", "0", "0", "0", "0", "0", "0"},
			ages:   []string{"0", "0", "0", "0", "0", "0", "0", "0", "0", "0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			registry := k8smetrics.NewKubeRegistry()
			RegisterClaims(registry, tc.caches.config(leading(true)))
			want := claimsHeader + series("csi_resizer_claims", tc.claims...) + oldestHeader + series("csi_resizer_claim_oldest_seconds", tc.ages...)
			if err := testutil.GatherAndCompare(registry, strings.NewReader(want), "csi_resizer_claims", "csi_resizer_claim_oldest_seconds"); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestClaimsOnlyFromTheLeader checks that a replica reports nothing unless
// it leads with synced caches, and starts and stops with that.
func TestClaimsOnlyFromTheLeader(t *testing.T) {
	l := leading(false)
	c := stuckEverywhere(t)
	registry := k8smetrics.NewKubeRegistry()
	RegisterClaims(registry, c.config(l))
	families := func() int {
		t.Helper()
		got, err := registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range got {
			if strings.HasPrefix(f.GetName(), "csi_resizer_claim") {
				n += len(f.GetMetric())
			}
		}
		return n
	}
	if n := families(); n != 0 {
		t.Errorf("follower reported %d claim samples, want none", n)
	}
	l.leading.Store(true)
	if n := families(); n != 20 {
		t.Errorf("leader reported %d claim samples, want 20 (10 states, 2 metrics)", n)
	}
	l.leading.Store(false)
	if n := families(); n != 0 {
		t.Errorf("after leading: %d claim samples, want none", n)
	}

	noLeader := k8smetrics.NewKubeRegistry()
	RegisterClaims(noLeader, c.config(nil))
	if err := testutil.GatherAndCompare(noLeader, strings.NewReader(""), "csi_resizer_claims", "csi_resizer_claim_oldest_seconds"); err != nil {
		t.Errorf("without a Leadership: %v", err)
	}
}

// TestClaimsWithoutHeldBack checks that, when in-use handling is off (no
// held-back answer), a request held back by nothing is in no state.
func TestClaimsWithoutHeldBack(t *testing.T) {
	c := newCaches()
	c.add(t, "busy", testDriver, nil)
	cfg := c.config(leading(true))
	cfg.HeldBack = nil
	registry := k8smetrics.NewKubeRegistry()
	RegisterClaims(registry, cfg)
	zeros := []string{"0", "0", "0", "0", "0", "0", "0", "0", "0", "0"}
	want := claimsHeader + series("csi_resizer_claims", zeros...)
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want), "csi_resizer_claims"); err != nil {
		t.Error(err)
	}
}

// TestClaimsOnNode checks that a --node-deployment instance counts the
// claims of the volumes pinned to its node only, and names the node.
func TestClaimsOnNode(t *testing.T) {
	c := newCaches()
	inProgress := resizing(v1.PersistentVolumeClaimControllerResizeInProgress, "", 0)
	for name, host := range map[string]string{"mine": "host-1", "theirs": "host-2"} {
		c.add(t, name, testDriver, inProgress)
		obj, _, _ := c.volumes.GetByKey("pv-" + name)
		v := obj.(*slim.Volume)
		v.NodeAffinity = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
			{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{host}}}}}}
	}
	cfg := c.config(leading(true))
	cfg.Node = ownership.NewWatcher("node-1")
	cfg.Node.Set(&ownership.Node{Name: "node-1", Labels: map[string]string{v1.LabelHostname: "host-1"}})
	registry := k8smetrics.NewKubeRegistry()
	RegisterClaims(registry, cfg)
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, f := range families {
		if f.GetName() != "csi_resizer_claims" {
			continue
		}
		for _, m := range f.GetMetric() {
			total += m.GetGauge().GetValue()
			named := false
			for _, l := range m.GetLabel() {
				named = named || l.GetName() == "node" && l.GetValue() == "node-1"
			}
			if !named {
				t.Errorf("sample without node=\"node-1\": %v", m.GetLabel())
			}
		}
	}
	if total != 1 {
		t.Errorf("claims counted: %v, want 1 (the claim of the volume pinned to the node)", total)
	}
}

const gcePD = "pd.csi.storage.gke.io"

// TestOwnedAgreesWithCheck checks owner.owned against ownership.Check on
// whole objects, for every pair of the claims and volumes below and three
// drivers, with one owner reused across all of them as a scrape does.
func TestOwnedAgreesWithCheck(t *testing.T) {
	claims := ownershipClaims()
	volumes := ownershipVolumes()
	var o owner
	owned := 0
	for _, driver := range []string{testDriver, gcePD, ""} {
		for ci, pvc := range claims {
			for vi, pv := range volumes {
				c := slim.NewClaim(pvc)
				var v *slim.Volume
				var whole *v1.PersistentVolume
				if pv != nil {
					v = slim.NewVolume(pv)
					whole = v.PV()
				}
				verdict, reason := ownership.Check(c.PVC(), whole, driver)
				want := verdict == ownership.Owned
				if got := o.owned(c, v, ownership.Scope{Driver: driver}); got != want {
					t.Errorf("driver %q, claim %d, volume %d: owned = %v, Check says %v (%s)", driver, ci, vi, got, verdict, reason)
				}
				if want {
					owned++
				}
			}
		}
	}
	if owned < 3 {
		t.Errorf("only %d pairs were owned: the table does not test the owned side", owned)
	}
}

// ownershipClaims are variations of claim ns/data of volume pv-1.
func ownershipClaims() []*v1.PersistentVolumeClaim {
	base := func() *v1.PersistentVolumeClaim {
		return &v1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "ns", UID: "uid-1"},
			Spec:       v1.PersistentVolumeClaimSpec{VolumeName: "pv-1"},
			Status:     v1.PersistentVolumeClaimStatus{Phase: v1.ClaimBound},
		}
	}
	pending, unbound, otherUID, otherName := base(), base(), base(), base()
	pending.Status.Phase = v1.ClaimPending
	unbound.Spec.VolumeName = ""
	otherUID.UID = "uid-2"
	otherName.Name = "other"
	migrated, migratedElsewhere := base(), base()
	migrated.Annotations = map[string]string{ownership.ResizerAnnotation: gcePD, "x": "y"}
	migratedElsewhere.Annotations = map[string]string{ownership.ResizerAnnotation: "other.csi.example.com"}
	return []*v1.PersistentVolumeClaim{base(), pending, unbound, otherUID, otherName, migrated, migratedElsewhere}
}

// ownershipVolumes are variations of pv-1, bound to ns/data, and nil.
func ownershipVolumes() []*v1.PersistentVolume {
	csi := func(driver, handle string) *v1.PersistentVolume {
		return &v1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
			Spec: v1.PersistentVolumeSpec{
				ClaimRef:               &v1.ObjectReference{Namespace: "ns", Name: "data", UID: "uid-1"},
				PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}},
			},
		}
	}
	noRef, otherNS, otherUID, otherName := csi(testDriver, "h"), csi(testDriver, "h"), csi(testDriver, "h"), csi(testDriver, "h")
	noRef.Spec.ClaimRef = nil
	otherNS.Spec.ClaimRef.Namespace = "other"
	otherUID.Spec.ClaimRef.UID = "uid-2"
	otherName.Name = "pv-2"
	gce := csi("", "")
	gce.Spec.CSI = nil
	gce.Spec.GCEPersistentDisk = &v1.GCEPersistentDiskVolumeSource{PDName: "disk-1"}
	gce.Labels = map[string]string{v1.LabelTopologyZone: "europe-west1-b"}
	vsphere := csi("", "")
	vsphere.Spec.CSI = nil
	vsphere.Spec.VsphereVolume = &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] disk.vmdk"}
	return []*v1.PersistentVolume{
		nil, csi(testDriver, "h"), csi(testDriver, ""), csi("other.csi.example.com", "h"), csi(gcePD, "h"),
		noRef, otherNS, otherUID, otherName, gce, vsphere,
	}
}

func TestOwnedAllocatesNothingForCSIVolumes(t *testing.T) {
	c := slim.NewClaim(ownershipClaims()[0])
	for _, pv := range []*v1.PersistentVolume{ownershipVolumes()[1], ownershipVolumes()[3]} {
		v := slim.NewVolume(pv)
		var o owner
		allocs := testing.AllocsPerRun(100, func() { o.owned(c, v, ownership.Scope{Driver: testDriver}) })
		if allocs != 0 {
			t.Errorf("volume of driver %s: owned allocated %v times, want 0", pv.Spec.CSI.Driver, allocs)
		}
	}
}

// TestOwnedAgreesWithCheckOnNode is TestOwnedAgreesWithCheck with
// --node-deployment: volumes pinned to the node, to another node, to a
// zone, and without node affinity, cached with their affinity.
func TestOwnedAgreesWithCheckOnNode(t *testing.T) {
	node := ownership.NewWatcher("node-1")
	node.Set(&ownership.Node{Name: "node-1", Labels: map[string]string{v1.LabelHostname: "host-1", v1.LabelTopologyZone: "z1"}})
	scope := ownership.Scope{Driver: testDriver, Node: node}
	pinned := func(key, value string) *v1.VolumeNodeAffinity {
		return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}}},
		}}}}
	}
	var o owner
	verdicts := map[ownership.Verdict]int{}
	for _, affinity := range []*v1.VolumeNodeAffinity{
		nil, pinned(v1.LabelHostname, "host-1"), pinned(v1.LabelHostname, "host-2"), pinned(v1.LabelTopologyZone, "z1"),
	} {
		for ci, pvc := range ownershipClaims() {
			for vi, pv := range ownershipVolumes() {
				c := slim.NewClaim(pvc)
				var v *slim.Volume
				var whole *v1.PersistentVolume
				if pv != nil {
					pv.Spec.NodeAffinity = affinity
					v = slim.NewVolumeWithAffinity(pv)
					whole = v.PV()
				}
				verdict, reason := scope.Check(c.PVC(), whole)
				verdicts[verdict]++
				if got := o.owned(c, v, scope); got != (verdict == ownership.Owned) {
					t.Errorf("affinity %v, claim %d, volume %d: owned = %v, Check says %v (%s)", affinity, ci, vi, got, verdict, reason)
				}
			}
		}
	}
	for _, v := range []ownership.Verdict{ownership.Owned, ownership.Ignore, ownership.Refused, ownership.NoNodeAffinity} {
		if verdicts[v] == 0 {
			t.Errorf("no pair was %v: the table does not test it", v)
		}
	}
}

func TestTally(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tl := newTally(4)
	tl.add(0, t0.Add(-time.Minute))
	tl.add(0, time.Time{})
	tl.add(0, t0.Add(-time.Hour))
	tl.add(0, t0.Add(-time.Second))
	tl.add(1, time.Time{})
	tl.add(2, t0.Add(time.Minute))
	for i, want := range []struct {
		count int
		age   float64
	}{
		{count: 4, age: 3600},
		{count: 1, age: 0}, // in the state, no time known
		{count: 1, age: 0}, // a time ahead of the clock
		{count: 0, age: 0},
	} {
		if tl.count[i] != want.count || tl.age(i, t0) != want.age {
			t.Errorf("state %d: count %d, age %v; want %d, %v", i, tl.count[i], tl.age(i, t0), want.count, want.age)
		}
	}
}
