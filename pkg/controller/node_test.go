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

package controller

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const nodeKey = "topology.hostpath.csi/node"

// onNode runs the controller with --node-deployment on node-1, whose
// labels are labels.
func onNode(labels map[string]string) (envOpt, *ownership.Watcher) {
	w := ownership.NewWatcher("node-1")
	w.Set(&ownership.Node{Name: "node-1", Labels: labels})
	return func(c *Config) { c.Node = w }, w
}

var node1 = map[string]string{ownership.HostnameLabel: "host-1", nodeKey: "node-1", v1.LabelTopologyZone: "z1"}

// affinity gives the PV one term of key In values, ANDed with more.
func affinity(key string, values []string, more ...v1.NodeSelectorRequirement) testobj.VolumeOpt {
	exprs := append([]v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}}, more...)
	return testobj.NodeAffinity(&v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: exprs}}}})
}

func TestNodeDeployment(t *testing.T) {
	tests := []struct {
		name       string
		pv         testobj.VolumeOpt // none when nil
		request    string            // 2Gi when empty
		wantCalls  int
		wantEvents []string
	}{
		{name: "pinned by the driver's node key", pv: affinity(nodeKey, []string{"node-1"}), wantCalls: 1,
			wantEvents: []string{"Normal Resizing", "Normal VolumeResizeSuccessful"}},
		{name: "pinned by host name", pv: affinity(ownership.HostnameLabel, []string{"host-1"}), wantCalls: 1,
			wantEvents: []string{"Normal Resizing", "Normal VolumeResizeSuccessful"}},
		{name: "pinned to another node", pv: affinity(ownership.HostnameLabel, []string{"host-2"})},
		{name: "another zone", pv: affinity(v1.LabelTopologyZone, []string{"z2"})},
		{name: "no node affinity"},
		{name: "zone: refused with a warning", pv: affinity(v1.LabelTopologyZone, []string{"z1"}),
			wantEvents: []string{"Warning NodeAffinityConflict volume pv-a is neither resized nor modified by a resizer of --node-deployment: " +
				"CSI volume of our driver that node node-1 can use, but not the only node that can: " +
				"term 0 of its node affinity (topology.kubernetes.io/zone In [z1]) pins no node"}},
		{name: "two hosts: refused with a warning", pv: affinity(ownership.HostnameLabel, []string{"host-1", "host-2"}),
			wantEvents: []string{"Warning NodeAffinityConflict volume pv-a is neither resized nor modified"}},
		{name: "zone, nothing asked: no warning", pv: affinity(v1.LabelTopologyZone, []string{"z1"}), request: "1Gi"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			request := tc.request
			if request == "" {
				request = "2Gi"
			}
			pvc := claim("a", request, "1Gi")
			var opts []testobj.VolumeOpt
			if tc.pv != nil {
				opts = append(opts, tc.pv)
			}
			node, _ := onNode(node1)
			e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi", opts...)), node)
			e.mustSync("a")
			e.mustSync("a") // a refusal is told once
			equal(t, "driver calls", len(e.resizer.targets()), tc.wantCalls)
			events := e.events()
			if len(events) != len(tc.wantEvents) {
				t.Fatalf("events %q, want %d like %q", events, len(tc.wantEvents), tc.wantEvents)
			}
			for i, want := range tc.wantEvents {
				if !strings.HasPrefix(events[i], want) {
					t.Errorf("event %q, want it to start with %q", events[i], want)
				}
			}
			if tc.wantCalls == 0 {
				equal(t, "writes", e.writes(), []string(nil))
			}
		})
	}
}

// TestNodeDeploymentRefusalToldAgain: a refusal is told again for another
// reason, and for the claim created again under the same name.
func TestNodeDeploymentRefusalToldAgain(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	node, _ := onNode(node1)
	e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi", affinity(v1.LabelTopologyZone, []string{"z1"}))), node)
	e.mustSync("a")
	equal(t, "events", len(e.events()), 1)

	pv := e.volume("pv-a")
	affinity(ownership.HostnameLabel, []string{"host-1", "host-2"})(pv)
	e.must(e.client.Tracker().Update(v1.SchemeGroupVersion.WithResource("persistentvolumes"), pv, ""))
	e.mustSync("a")
	if events := e.events(); len(events) != 1 || !strings.Contains(events[0], "kubernetes.io/hostname In [host-1, host-2]") {
		t.Errorf("events after the change %q, want one naming the new term", events)
	}
	if e.ctrl.memory.size() != 1 {
		t.Errorf("memory holds %d entries, want the refusal", e.ctrl.memory.size())
	}
	e.must(e.client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), ns, "a"))
	e.mustSync("a")
	equal(t, "memory entries after delete", e.ctrl.memory.size(), 0)
}

// TestNodeLabelsRequeueClaims: a change of the node's labels queues the
// claims whose volumes it moves in or out of the node's hands, and no
// other.
func TestNodeLabelsRequeueClaims(t *testing.T) {
	pool := v1.NodeSelectorRequirement{Key: "pool", Operator: v1.NodeSelectorOpIn, Values: []string{"fast"}}
	a, b, c, d := claim("a", "2Gi", "1Gi"), claim("b", "2Gi", "1Gi"), claim("c", "2Gi", "1Gi"), claim("d", "2Gi", "1Gi")
	node, w := onNode(node1)
	e := newEnv(t, nil, objects(
		a, volume(a, "1Gi", affinity(nodeKey, []string{"node-1"}, pool)), // needs the pool label
		b, volume(b, "1Gi", affinity(nodeKey, []string{"node-1"})), // pinned whatever the pool
		c, volume(c, "1Gi", ofDriver("other.csi.example.com"), affinity(nodeKey, []string{"node-1"}, pool)),
		d, volume(d, "1Gi"), // no affinity
	), node)
	e.refresh()
	for _, name := range []string{"a", "b", "c", "d"} {
		e.mustSync(name)
	}
	equal(t, "driver calls before the label", e.resizer.targets(), []string{"2Gi"}) // b only

	labelled := map[string]string{"pool": "fast"}
	for k, v := range node1 {
		labelled[k] = v
	}
	w.Set(&ownership.Node{Name: "node-1", Labels: labelled})
	equal(t, "queued", e.queued(), []string{ns + "/a"})
	e.mustSync("a")
	equal(t, "driver calls after the label", e.resizer.targets(), []string{"2Gi", "2Gi"})

	w.Set(&ownership.Node{Name: "node-1", Labels: node1})
	equal(t, "queued when the label goes", e.queued(), []string{ns + "/a"})
	w.Set(nil)
	equal(t, "queued when the node goes", e.queued(), []string{ns + "/b"})
}

// queued drains the controller's queue.
func (e *env) queued() []string {
	var out []string
	for e.ctrl.queue.Len() > 0 {
		key, _ := e.ctrl.queue.Get()
		e.ctrl.queue.Done(key)
		out = append(out, key)
	}
	return out
}

// TestNoNodeAffinityLoggedOnce: the claims of volumes without node affinity
// are left, said in one log line for all.
func TestNoNodeAffinityLoggedOnce(t *testing.T) {
	a, b := claim("a", "2Gi", "1Gi"), claim("b", "2Gi", "1Gi")
	node, _ := onNode(node1)
	e := newEnv(t, nil, objects(a, volume(a, "1Gi"), b, volume(b, "1Gi")), node)
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	e.ctx = klog.NewContext(e.ctx, logger)
	for _, name := range []string{"a", "b", "a"} {
		e.mustSync(name)
	}
	logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	if n := strings.Count(logs, "without node affinity are no --node-deployment instance's"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs)
	}
	equal(t, "driver calls", len(e.resizer.targets()), 0)
	equal(t, "events", e.events(), []string(nil))
}
