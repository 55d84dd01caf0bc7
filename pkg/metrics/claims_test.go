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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
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
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			VolumeName: "pv-" + name,
			Resources:  v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("2Gi")}},
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:    v1.ClaimBound,
			Capacity: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
		},
	}
	if change != nil {
		change(pvc)
	}
	if err := c.claims.Add(slim.NewClaim(pvc)); err != nil {
		t.Fatal(err)
	}
	if driver == "" {
		return
	}
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvc.Spec.VolumeName},
		Spec: v1.PersistentVolumeSpec{
			Capacity:               v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			ClaimRef:               &v1.ObjectReference{Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "vol-" + name}},
		},
	}
	if err := c.volumes.Add(slim.NewVolume(pv)); err != nil {
		t.Fatal(err)
	}
}

// resizing records an expansion in s with condition t, True for ago.
func resizing(s v1.ClaimResourceStatus, t v1.PersistentVolumeClaimConditionType, ago time.Duration) func(*v1.PersistentVolumeClaim) {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: resource.MustParse("2Gi")}
		pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: s}
		withCondition(t, ago)(pvc)
	}
}

// modifying records a modification to gold in s with condition t, True
// for ago ("" for none).
func modifying(s v1.PersistentVolumeClaimModifyVolumeStatus, t v1.PersistentVolumeClaimConditionType, ago time.Duration) func(*v1.PersistentVolumeClaim) {
	return func(pvc *v1.PersistentVolumeClaim) {
		gold := "gold"
		pvc.Spec.VolumeAttributesClassName = &gold
		pvc.Status.ModifyVolumeStatus = &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: gold, Status: s}
		if t != "" {
			withCondition(t, ago)(pvc)
		}
	}
}

func withCondition(t v1.PersistentVolumeClaimConditionType, ago time.Duration) func(*v1.PersistentVolumeClaim) {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: t, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-ago)),
		})
	}
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
