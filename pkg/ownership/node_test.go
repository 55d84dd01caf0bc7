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

package ownership

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/slim"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// watching returns a Watcher of node-1 that knows it with labels.
func watching(labels map[string]string) *Watcher {
	w := NewWatcher("node-1")
	w.Set(&Node{Name: "node-1", Labels: labels})
	return w
}

var node1Labels = map[string]string{HostnameLabel: "host-1", v1.LabelTopologyZone: "z1"}

func TestScopeCheckOnNode(t *testing.T) {
	tests := []struct {
		name       string
		pvc        *v1.PersistentVolumeClaim
		pv         *v1.PersistentVolume
		node       *Watcher // node-1 with node1Labels when nil
		want       Verdict
		wantReason string
	}{
		{name: "CSI volume pinned to the node", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(HostnameLabel, "host-1")),
			want: Owned, wantReason: "CSI volume of our driver: its node affinity pins it to node node-1 (kubernetes.io/hostname In [host-1])"},
		{name: "in-tree volume migrated to our driver, pinned to the node", pvc: claim(withResizer(ourDriver)),
			pv:   pvOf(ebs("aws://us-east-1a/vol-1"), testobj.PinnedTo(HostnameLabel, "host-1")),
			want: Owned, wantReason: "in-tree volume migrated to our driver: its node affinity pins it"},
		{name: "pinned to another node", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(HostnameLabel, "host-2")),
			want: Ignore, wantReason: "CSI volume of our driver, but node node-1 cannot use the volume"},
		{name: "zone: several nodes", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(v1.LabelTopologyZone, "z1")),
			want: Refused, wantReason: "CSI volume of our driver that node node-1 can use, but not the only node that can: term 0 of its node affinity (topology.kubernetes.io/zone In [z1]) pins no node"},
		{name: "another zone", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(v1.LabelTopologyZone, "z2")),
			want: Ignore, wantReason: "cannot use the volume"},
		{name: "no node affinity", pvc: claim(), pv: pvOf(csiSource(ourDriver, "vol-1")),
			want: NoNodeAffinity, wantReason: "CSI volume of our driver, but the volume has no required node affinity: any node can use it: it is pinned to no node, and no --node-deployment instance handles it"},
		{name: "no node affinity, node not known", pvc: claim(), pv: pvOf(csiSource(ourDriver, "vol-1")),
			node: NewWatcher("node-1"), want: NoNodeAffinity},
		{name: "node not known", pvc: claim(),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(HostnameLabel, "host-1")),
			node: NewWatcher("node-1"),
			want: Ignore, wantReason: "Node node-1 is not known: it was not found, or was deleted"},
		// The node rule comes after the driver's: a volume of another driver pinned to
		// the node, or not pinned at all, is simply not ours.
		{name: "another driver's volume pinned to the node", pvc: claim(),
			pv:   pvOf(csiSource("other.csi.io", "h-1"), testobj.PinnedTo(HostnameLabel, "host-1")),
			want: Ignore, wantReason: `CSI driver "other.csi.io"`},
		{name: "another driver's zonal volume", pvc: claim(),
			pv:   pvOf(csiSource("other.csi.io", "h-1"), testobj.PinnedTo(v1.LabelTopologyZone, "z1")),
			want: Ignore, wantReason: `CSI driver "other.csi.io"`},
		{name: "pinned to the node, claim not bound",
			pvc:  claim(func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimPending }),
			pv:   pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(HostnameLabel, "host-1")),
			want: Ignore, wantReason: "not Bound"},
		{name: "PV not cached", pvc: claim(), want: WaitForPV},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node := tc.node
			if node == nil {
				node = watching(node1Labels)
			}
			got, reason := Scope{Driver: ourDriver, Node: node}.Check(tc.pvc, tc.pv)
			if got != tc.want || !strings.Contains(reason, tc.wantReason) {
				t.Errorf("Check = %v, %q; want %v, a reason containing %q", got, reason, tc.want, tc.wantReason)
			}
			if tc.pv != nil {
				if partial, why := (Scope{Driver: ourDriver, Node: node}).Check(tc.pvc, slim.OwnershipOnly(tc.pv).PV()); partial != got || why != reason {
					t.Errorf("what slim.OwnershipOnly keeps of the volume: %v (%s), want the same as the whole: %v (%s)", partial, why, got, reason)
				}
			}
		})
	}
}

// TestCheckWithoutNodeIgnoresAffinity: a resizer of the whole cluster takes
// every volume of its driver, whatever its node affinity.
func TestCheckWithoutNodeIgnoresAffinity(t *testing.T) {
	for _, pv := range []*v1.PersistentVolume{
		pvOf(csiSource(ourDriver, "vol-1")),
		pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(v1.LabelTopologyZone, "z1")),
		pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(HostnameLabel, "host-2")),
	} {
		if got, reason := Check(claim(), pv, ourDriver); got != Owned {
			t.Errorf("Check(%v) = %v (%s), want Owned", pv.Spec.NodeAffinity, got, reason)
		}
	}
}

// TestNodeLabelsMoveTheVolume follows one volume as the node's labels
// change: the driver's node label arrives (the driver registered), then the
// pool label the volume also requires, then it goes.
func TestNodeLabelsMoveTheVolume(t *testing.T) {
	const key = "topology.hostpath.csi/node"
	pv := pvOf(csiSource(ourDriver, "vol-1"), testobj.PinnedTo(key, "node-1"))
	pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions = append(pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions,
		v1.NodeSelectorRequirement{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{"fast"}})
	w := watching(map[string]string{HostnameLabel: "host-1"})
	scope := Scope{Driver: ourDriver, Node: w}
	steps := []struct {
		labels map[string]string
		want   Verdict
	}{
		{map[string]string{HostnameLabel: "host-1"}, Ignore},
		{map[string]string{HostnameLabel: "host-1", key: "node-1"}, Ignore},
		{map[string]string{HostnameLabel: "host-1", key: "node-1", "pool": "fast"}, Owned},
		{map[string]string{HostnameLabel: "host-1", key: "node-1"}, Ignore},
	}
	for i, s := range steps {
		w.Set(&Node{Name: "node-1", Labels: s.labels})
		if got, reason := scope.Check(claim(), pv); got != s.want {
			t.Errorf("step %d (%v): %v (%s), want %v", i, s.labels, got, reason, s.want)
		}
	}
}
