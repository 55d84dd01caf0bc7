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
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/component-base/metrics/testutil"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// owners tells which node's instance owns an object: with --node-deployment
// each claim is its node's instance's alone, no other may write it, its PV,
// its events or the instance's node Lease. The audit log names who wrote
// what; each instance has a user of its own here.
type owners struct {
	byUser  map[string]string // the node of each instance's user
	objects map[string]string // the node of each claim, PV and node Lease, by objectKey
}

func objectKey(resource, namespace, name string) string {
	return resource + "/" + namespace + "/" + name
}

// newOwners knows the n claims of the bench namespace (claim i on
// nodeOfClaim(i, nodes)), their PVs, and the node Leases named by lease
// for each node, in namespace leaseNS.
func newOwners(n, nodes int, users map[string]string, lease func(node string) string, leaseNS string) owners {
	o := owners{byUser: users, objects: map[string]string{}}
	for i := 0; i < n; i++ {
		node := nodeOfClaim(i, nodes)
		v := benchVolume(i, "", "")
		o.objects[objectKey("persistentvolumeclaims", benchNamespace, v.Claim)] = node
		o.objects[objectKey("persistentvolumes", "", v.PVName())] = node
	}
	for i := 0; i < nodes; i++ {
		o.objects[objectKey("leases.coordination.k8s.io", leaseNS, lease(nodeName(i)))] = nodeName(i)
	}
	return o
}

// ownerOf is the node whose instance owns the object a request wrote. An
// event belongs to the object it is about: the event recorder names it
// "<object>.<hex timestamp>", in the object's namespace (claims) or in
// "default" (PVs, cluster-scoped).
func (o owners) ownerOf(resource, namespace, name string) (string, bool) {
	switch resource {
	case "events", "events.events.k8s.io":
		about := name
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			about = name[:i]
		}
		if node, ok := o.objects[objectKey("persistentvolumeclaims", namespace, about)]; ok {
			return node, true
		}
		node, ok := o.objects[objectKey("persistentvolumes", "", about)]
		return node, ok
	}
	node, ok := o.objects[objectKey(resource, namespace, name)]
	return node, ok
}

// ownership is who wrote what, over the writes (events included) of the
// instances.
type ownership struct {
	// Writes is every write; Own those to an object of the writer's node;
	// Foreign those to another node's object, which must not happen;
	// Unknown those to an object of no node; Refused those the API server
	// turned down before it read the object they were for (a create
	// refused by API Priority and Fairness with 429 names no object).
	Writes, Own, Foreign, Unknown, Refused int
	RefusedCodes                           map[int]int // the Refused writes by response code
	// ForeignSamples and UnknownSamples describe the first few of each;
	// ClaimsByOwner counts the claims whose status their node's instance wrote.
	ForeignSamples, UnknownSamples []string
	ClaimsByOwner                  int
}

const ownershipSamples = 5

// checkOwnership goes through the requests of the instances (refs[i] is
// the user and object of reqs[i]) and counts their writes by owner.
func checkOwnership(reqs []request, refs []objectRef, o owners) ownership {
	res := ownership{RefusedCodes: map[int]int{}}
	claims := map[string]bool{}
	for i, r := range reqs {
		if c := classify(r.requestKey); c != classWrite && c != classEvent {
			continue
		}
		ref := refs[i]
		res.Writes++
		desc := fmt.Sprintf("%s %s %s by %s", r.requestKey, ref.Namespace, ref.Name, ref.User)
		if ref.Name == "" && (r.Code < 200 || r.Code > 299) {
			res.Refused++
			res.RefusedCodes[r.Code]++
			continue
		}
		node, known := o.ownerOf(r.Resource, ref.Namespace, ref.Name)
		writer, isInstance := o.byUser[ref.User]
		switch {
		case !known || !isInstance:
			res.Unknown++
			if len(res.UnknownSamples) < ownershipSamples {
				res.UnknownSamples = append(res.UnknownSamples, desc)
			}
		case node != writer:
			res.Foreign++
			if len(res.ForeignSamples) < ownershipSamples {
				res.ForeignSamples = append(res.ForeignSamples, desc+" (the object is node "+node+"'s)")
			}
		default:
			res.Own++
			if r.Resource == "persistentvolumeclaims" && r.Subresource == "status" {
				claims[ref.Name] = true
			}
		}
	}
	res.ClaimsByOwner = len(claims)
	return res
}

// apiServerFigures are what kube-apiserver's /metrics say about watches.
type apiServerFigures struct {
	// Watches is the sum of apiserver_longrunning_requests{verb="WATCH"}:
	// the watches open now, the server's own loopback watches included.
	// ByResource splits it by resource (with its group).
	Watches    int
	ByResource map[string]int
	// Events and Bytes are the watch events the server has sent to
	// watchers since it started, and their size
	// (apiserver_watch_events_total, apiserver_watch_events_sizes_sum).
	Events, Bytes float64
}

// readAPIServerFigures reads the figures of a /metrics text of
// kube-apiserver. apiserver_registered_watchers, which counted watchers
// by kind, is gone from recent releases; apiserver_longrunning_requests is
// stable.
func readAPIServerFigures(m testutil.Metrics) apiServerFigures {
	f := apiServerFigures{ByResource: map[string]int{}}
	for _, s := range m["apiserver_longrunning_requests"] {
		if s.Metric["verb"] != "WATCH" {
			continue
		}
		n := int(s.Value)
		f.Watches += n
		resource := string(s.Metric["resource"])
		if g := string(s.Metric["group"]); g != "" {
			resource += "." + g
		}
		f.ByResource[resource] += n
	}
	for _, s := range m["apiserver_watch_events_total"] {
		f.Events += float64(s.Value)
	}
	for _, s := range m["apiserver_watch_events_sizes_sum"] {
		f.Bytes += float64(s.Value)
	}
	return f
}

// watchesAdded describes, as "n × resource" by decreasing count, the
// watches open in after that were not in before.
func watchesAdded(before, after apiServerFigures) string {
	type kv struct {
		k string
		n int
	}
	var added []kv
	for k, n := range after.ByResource {
		if d := n - before.ByResource[k]; d != 0 {
			added = append(added, kv{k, d})
		}
	}
	slices.SortFunc(added, func(a, b kv) int { return cmp.Or(b.n-a.n, strings.Compare(a.k, b.k)) })
	var parts []string
	for _, a := range added {
		parts = append(parts, fmt.Sprintf("%d × %s", a.n, a.k))
	}
	return strings.Join(parts, ", ")
}

// sample is the state of the machine at one moment of a scenario.
type sample struct {
	At              time.Time
	APIServer, Etcd time.Duration // CPU so far
	Resizers        time.Duration // the fleet's CPU so far; 0 without one
	Figures         apiServerFigures
	Machine         cpuSnapshot
}

// takeSample reads the control plane's and the fleet's CPU (f may be nil)
// and the API server's /metrics.
func (n *nodesRun) takeSample(ctx context.Context, f fleet) (sample, error) {
	s := sample{At: time.Now()}
	var err error
	if s.APIServer, err = processCPU(n.apiserver); err != nil {
		return s, fmt.Errorf("kube-apiserver: %w", err)
	}
	if s.Etcd, err = processCPU(n.etcd); err != nil {
		return s, fmt.Errorf("etcd: %w", err)
	}
	if f != nil {
		if s.Resizers, err = f.cpu(); err != nil {
			return s, err
		}
	}
	if s.Machine, err = takeCPUSnapshot(); err != nil {
		return s, err
	}
	body, err := n.r.cluster.Admin.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return s, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	m, err := framework.ParseMetrics(string(body))
	if err != nil {
		return s, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	s.Figures = readAPIServerFigures(m)
	return s, nil
}

// phase is what a span of a scenario cost.
type phase struct {
	Wall                      time.Duration
	APIServer, Etcd, Resizers time.Duration
	// WatchEvents and WatchBytes are the watch events the API server sent
	// meanwhile (to every watcher) and their size.
	WatchEvents, WatchBytes float64
	// Foreign is the CPU other processes of the machine took meanwhile.
	Foreign string
}

// phaseBetween is what happened from a to b.
func phaseBetween(a, b sample, nproc int) phase {
	return phase{
		Wall:      b.At.Sub(a.At),
		APIServer: b.APIServer - a.APIServer, Etcd: b.Etcd - a.Etcd, Resizers: b.Resizers - a.Resizers,
		WatchEvents: b.Figures.Events - a.Figures.Events, WatchBytes: b.Figures.Bytes - a.Figures.Bytes,
		Foreign: foreignLoad(a.Machine, b.Machine, nproc),
	}
}
