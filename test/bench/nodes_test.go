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
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

func TestParseModes(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "all", want: allModes},
		{in: "nodes", want: []string{"nodes"}},
		{in: "all,-nodes", want: []string{"throughput", "modify", "memory", "latency", "scrape"}},
		{in: "-nodes,all", want: []string{"throughput", "modify", "memory", "latency", "scrape"}},
		{in: "scrape, nodes", want: []string{"scrape", "nodes"}},
		{in: "-nodes", wantErr: true},
		{in: "nodes,-nodes", wantErr: true},
		{in: "-all", wantErr: true},
		{in: "node", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseModes(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			want := map[string]bool{}
			for _, m := range tc.want {
				want[m] = true
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestParseFlagsNodes(t *testing.T) {
	cfg, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.modes["nodes"] || cfg.nodes != 50 || cfg.nodesN != 10000 || cfg.nodesPods || cfg.nodesIdle != time.Minute {
		t.Errorf("defaults: modes=%v nodes=%d nodes-n=%d pods=%v idle=%s", cfg.modes, cfg.nodes, cfg.nodesN, cfg.nodesPods, cfg.nodesIdle)
	}
	if cfg.nodesSetting != knownSettings["default"] {
		t.Errorf("per-node setting %+v, want default", cfg.nodesSetting)
	}
	if want := (setting{Name: "250/500/50", QPS: 250, Burst: 500, Workers: 50}); cfg.nodesCentral != want {
		t.Errorf("central setting %+v, want %+v: the per-node budgets summed", cfg.nodesCentral, want)
	}
	cfg, err = parseFlags([]string{"-mode=nodes", "-nodes=10", "-nodes-setting=fast", "-nodes-central-setting=300/600/20"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.modes) != 1 || cfg.nodesSetting.Name != "fast" || cfg.nodesCentral.QPS != 300 || cfg.nodesCentral.Workers != 20 {
		t.Errorf("modes=%v per node %+v central %+v", cfg.modes, cfg.nodesSetting, cfg.nodesCentral)
	}
	for _, bad := range [][]string{{"-nodes=1"}, {"-nodes-n=0"}, {"-nodes-setting=slow"}, {"-nodes-central-setting=1/2"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

func TestNodeOfClaim(t *testing.T) {
	for i, want := range map[int]string{0: "node-0", 49: "node-49", 50: "node-0", 9999: "node-49", 123: "node-23"} {
		if got := nodeOfClaim(i, 50); got != want {
			t.Errorf("nodeOfClaim(%d, 50) = %s, want %s", i, got, want)
		}
	}
}

// The PV's affinity selects its node and no other, as the scheduler reads
// it, and is the form --node-deployment takes (one In value on
// kubernetes.io/hostname).
func TestPinnedVolume(t *testing.T) {
	v := pinnedVolume(7, "1Gi", "vol-7", "node-7")
	terms := v.NodeAffinity.Required.NodeSelectorTerms
	if len(terms) != 1 || len(terms[0].MatchExpressions) != 1 {
		t.Fatalf("terms %+v, want one term of one expression", terms)
	}
	e := terms[0].MatchExpressions[0]
	if e.Key != v1.LabelHostname || e.Operator != v1.NodeSelectorOpIn || len(e.Values) != 1 || e.Values[0] != "node-7" {
		t.Errorf("expression %+v", e)
	}
	sel, err := nodeaffinity.NewNodeSelector(v.NodeAffinity.Required)
	if err != nil {
		t.Fatal(err)
	}
	for node, want := range map[string]bool{"node-7": true, "node-8": false} {
		n := &v1.Node{}
		n.Name, n.Labels = node, map[string]string{v1.LabelHostname: node}
		if got := sel.Match(n); got != want {
			t.Errorf("match %s = %v, want %v", node, got, want)
		}
	}
	if v.PVName() != "pv-bench-claim-00007" || v.Claim != "claim-00007" || v.Driver != driverName || v.Handle != "vol-7" || v.Size != "1Gi" {
		t.Errorf("volume %+v", v)
	}
}

func TestWithSubjects(t *testing.T) {
	sa := func(name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: name}
	}
	old := []rbacv1.Subject{sa("csi-resizer")}
	got := withSubjects(old, []rbacv1.Subject{sa("csi-resizer"), sa("csi-resizer-node-0"), sa("csi-resizer-node-1")})
	want := []rbacv1.Subject{sa("csi-resizer"), sa("csi-resizer-node-0"), sa("csi-resizer-node-1")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(old) != 1 {
		t.Errorf("the old subjects were changed: %v", old)
	}
	if got := serviceAccountName(nodeResizer("node-3").User); got != "csi-resizer-node-3" {
		t.Errorf("serviceAccountName = %q", got)
	}
}

func TestReadAPIServerFigures(t *testing.T) {
	text := `# TYPE apiserver_longrunning_requests gauge
apiserver_longrunning_requests{component="apiserver",group="",resource="persistentvolumeclaims",scope="cluster",subresource="",verb="WATCH",version="v1"} 51
apiserver_longrunning_requests{component="apiserver",group="",resource="persistentvolumeclaims",scope="namespace",subresource="",verb="WATCH",version="v1"} 1
apiserver_longrunning_requests{component="apiserver",group="storage.k8s.io",resource="storageclasses",scope="cluster",subresource="",verb="WATCH",version="v1"} 50
apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="namespace",subresource="log",verb="CONNECT",version="v1"} 2
# TYPE apiserver_watch_events_total counter
apiserver_watch_events_total{group="",resource="persistentvolumeclaims",version="v1"} 1000
apiserver_watch_events_total{group="",resource="nodes",version="v1"} 5
# TYPE apiserver_watch_events_sizes histogram
apiserver_watch_events_sizes_bucket{group="",resource="nodes",version="v1",le="+Inf"} 5
apiserver_watch_events_sizes_sum{group="",resource="nodes",version="v1"} 2048
apiserver_watch_events_sizes_count{group="",resource="nodes",version="v1"} 5
`
	m, err := framework.ParseMetrics(text)
	if err != nil {
		t.Fatal(err)
	}
	f := readAPIServerFigures(m)
	if f.Watches != 102 || f.Events != 1005 || f.Bytes != 2048 {
		t.Errorf("watches %d, events %.0f, bytes %.0f; want 102, 1005, 2048 (CONNECT is no watch)", f.Watches, f.Events, f.Bytes)
	}
	want := map[string]int{"persistentvolumeclaims": 52, "storageclasses.storage.k8s.io": 50}
	if !reflect.DeepEqual(f.ByResource, want) {
		t.Errorf("by resource %v, want %v", f.ByResource, want)
	}
	before := apiServerFigures{ByResource: map[string]int{"persistentvolumeclaims": 2, "storageclasses.storage.k8s.io": 0}}
	if got := watchesAdded(before, f); got != "50 × persistentvolumeclaims, 50 × storageclasses.storage.k8s.io" {
		t.Errorf("watchesAdded = %q", got)
	}
}

func TestCheckOwnership(t *testing.T) {
	users := map[string]string{"u0": "node-0", "u1": "node-1"}
	o := newOwners(4, 2, users, func(node string) string { return "lease-" + node }, "default")
	w := func(verb, resource, sub, user, ns, name string) (request, objectRef) {
		return request{requestKey: requestKey{Verb: verb, Resource: resource, Subresource: sub}}, objectRef{User: user, Namespace: ns, Name: name}
	}
	var reqs []request
	var refs []objectRef
	add := func(r request, ref objectRef) { reqs, refs = append(reqs, r), append(refs, ref) }
	// claim-00000 and claim-00002 are node-0's, claim-00001 and claim-00003 node-1's.
	add(w("patch", "persistentvolumeclaims", "status", "u0", "bench", "claim-00000"))
	add(w("patch", "persistentvolumeclaims", "status", "u0", "bench", "claim-00002"))
	add(w("patch", "persistentvolumes", "", "u1", "", "pv-bench-claim-00001"))
	add(w("create", "events", "", "u1", "bench", "claim-00003.18eafd494d3506b2"))
	add(w("update", "leases.coordination.k8s.io", "", "u1", "default", "lease-node-1"))
	add(w("get", "persistentvolumeclaims", "", "u1", "bench", "claim-00000"))                // a read: not counted
	add(w("create", "selfsubjectreviews.authentication.k8s.io", "", "u0", "", ""))           // a review: not a write
	add(w("patch", "persistentvolumeclaims", "status", "u1", "bench", "claim-00002"))        // node-0's
	add(w("update", "leases.coordination.k8s.io", "", "u0", "default", "lease-node-1"))      // node-1's
	add(w("create", "events", "", "u0", "default", "pv-bench-claim-00003.18eafd494d3506b2")) // about node-1's PV
	add(w("patch", "nodes", "", "u0", "", "node-0"))                                         // no node's object
	got := checkOwnership(reqs, refs, o)
	if got.Writes != 9 || got.Own != 5 || got.Foreign != 3 || got.Unknown != 1 || got.ClaimsByOwner != 2 {
		t.Errorf("got %+v, want 9 writes: 5 own, 3 foreign, 1 unknown; 2 claims by their owner", got)
	}
	if len(got.ForeignSamples) != 3 || !strings.Contains(got.ForeignSamples[0], "claim-00002 by u1") || !strings.Contains(got.ForeignSamples[0], "node node-0's") {
		t.Errorf("foreign samples %q", got.ForeignSamples)
	}
}

func TestParseAuditLineOfKeepsTheObject(t *testing.T) {
	line := auditLine("ResponseComplete", "system:serviceaccount:default:csi-resizer-node-1", "create", "/api/v1/namespaces/bench/events",
		`"resource":"events","namespace":"bench","name":"claim-00001.18eafd494d3506b2","apiVersion":"v1"`, 201)
	keep := func(u string) bool { return strings.HasPrefix(u, "system:serviceaccount:default:csi-resizer-node-") }
	r, ref, ok, err := parseAuditLine([]byte(line), keep)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	want := objectRef{User: "system:serviceaccount:default:csi-resizer-node-1", Namespace: "bench", Name: "claim-00001.18eafd494d3506b2"}
	if ref != want || r.Resource != "events" || r.Verb != "create" || r.Code != 201 {
		t.Errorf("got %+v %+v", r, ref)
	}
	if _, _, ok, _ := parseAuditLine([]byte(line), func(string) bool { return false }); ok {
		t.Error("a user not kept was kept")
	}
}

func TestScenarioFloor(t *testing.T) {
	per := &nodesScenario{Setting: knownSettings["default"], Instances: 50}
	// 200 claims each: (600 − 10) ÷ 5.
	if got := per.floor(10000); got != 118*time.Second {
		t.Errorf("per-node floor %s, want 1m58s", got)
	}
	central := &nodesScenario{Setting: centralSetting(knownSettings["default"], 50), Instances: 1}
	if got := central.floor(10000); got != 118*time.Second {
		t.Errorf("central floor %s, want 1m58s", got)
	}
}

func TestFailedCodes(t *testing.T) {
	tl := count([]request{{Code: 200}, {Code: 201}, {Code: 429}, {Code: 429}, {Code: 409}})
	if got := failedCodes(tl); got != "1 × 409, 2 × 429" {
		t.Errorf("failedCodes = %q", got)
	}
	if got := failedCodes(count([]request{{Code: 200}})); got != "none" {
		t.Errorf("all 2xx: %q", got)
	}
	if got := counts(map[int]int{429: 13, 409: 2}, "%d × %d"); !slices.Equal(got, []string{"13 × 429", "2 × 409"}) {
		t.Errorf("counts = %q", got)
	}
}

func TestSpread(t *testing.T) {
	if got := spread([]int64{3 << 20}); got != "3.0 MiB" {
		t.Errorf("one value: %q", got)
	}
	if got := spread([]int64{5 << 20, 1 << 20, 2 << 20, 4 << 20}); got != "p50 2.0 MiB / max 5.0 MiB" {
		t.Errorf("four values: %q", got)
	}
	if got := durSpread(summarize([]time.Duration{time.Second, 3 * time.Second, 2 * time.Second})); got != "p50 2.00 s / max 3.00 s" {
		t.Errorf("durations: %q", got)
	}
}

func TestNodeResizerIdentities(t *testing.T) {
	a, b := nodeResizer("node-0"), nodeResizer("node-1")
	if a.User == b.User || a.User != "system:serviceaccount:default:csi-resizer-node-0" {
		t.Errorf("users %q and %q", a.User, b.User)
	}
}
