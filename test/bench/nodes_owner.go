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
	"fmt"
	"strings"
)

// With --node-deployment each claim is its node's instance's alone: no
// other instance may write it, its PV, its events or the instance's node
// Lease. The audit log names who wrote what; each instance has a user of
// its own here.

// owners tells which node's instance owns an object.
type owners struct {
	// byUser is the node of each instance's user.
	byUser map[string]string
	// objects is the owning node of each claim, PV and node Lease, by
	// "resource/namespace/name".
	objects map[string]string
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
	// RefusedCodes counts the Refused writes by response code.
	RefusedCodes map[int]int
	// ForeignSamples and UnknownSamples describe the first few of each.
	ForeignSamples, UnknownSamples []string
	// ClaimsByOwner is how many claims had their status written by their
	// node's instance.
	ClaimsByOwner int
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
