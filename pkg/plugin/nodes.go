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

package plugin

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
)

// With --node-deployment a driver's resizer runs once per node and holds
// no leader Lease: each instance keeps a Lease named after its node
// (options.NodeLeaseName), labelled options.NodeLeaseLabel. When no leader
// Lease exists, explain looks for those. If there are some, the driver's
// resizers run so, and the instance that handles a claim is the one of the
// node its volume's node affinity pins it to, by ownership.Match, the
// rule the instances follow.

// readNodeInstances reads the node Leases of driver's resizers and, when
// there are some, the Nodes that the volume's node affinity names.
func (o *Objects) readNodeInstances(ctx context.Context, r Reader, driver string) {
	ns := o.Request.ResizerNamespace
	leases, err := r.LabelledLeases(ctx, ns, resizeroptions.NodeLeaseLabel, resizeroptions.NodeLeaseValue(driver))
	if err != nil {
		o.NodeLeasesUnread = true
		o.warn("%v: whether the resizers of driver %q run with --node-deployment, one per node, is not known",
			readError(access{verbList, resLeases, ns, ""}, err), driver)
		return
	}
	o.NodeLeases = leases
	if len(leases) > 0 {
		o.readNodes(ctx, r)
	}
}

// readNodes reads the Nodes that the volume's node affinity names.
func (o *Objects) readNodes(ctx context.Context, r Reader) {
	if o.Volume == nil {
		return
	}
	o.Nodes = map[string]*v1.Node{}
	for _, name := range namedNodes(o.Volume) {
		node, err := r.Node(ctx, name)
		err = readError(access{verbGet, resNodes, noNamespace, name}, err)
		switch {
		case isNotFound(err):
		case err != nil:
			o.warn("%v: whether node %s's resizer handles the claim is not known", err, name)
		default:
			o.Nodes[name] = node
		}
	}
}

// namedNodes are the values of the In expressions of one value in pv's
// required node affinity, sorted: the nodes it may pin the volume to, by
// their names.
func namedNodes(pv *v1.PersistentVolume) []string {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil
	}
	var names []string
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		for _, e := range term.MatchExpressions {
			if e.Operator == v1.NodeSelectorOpIn && len(slices.Compact(slices.Clone(e.Values))) == 1 {
				names = append(names, e.Values[0])
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// nodeMode reports whether the resizers run with --node-deployment, as far
// as explain can tell: no leader Lease, and node Leases.
func (o *Objects) nodeMode() bool {
	return len(o.Leases) == 0 && !o.LeaseUnread && len(o.NodeLeases) > 0
}

// nodeOwner says which node's instance handles the claim of a volume of
// the driver in node mode: node is "" when none does, and why says why.
func (o *Objects) nodeOwner() (node, why string) {
	pv := o.Volume
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return "", "the volume has no required node affinity: it is pinned to no node, so no instance handles it"
	}
	shared := ""
	for _, name := range slices.Sorted(maps.Keys(o.Nodes)) {
		result, why := ownership.Match(pv, ownership.NodeOf(o.Nodes[name]))
		switch {
		case result == ownership.Pinned:
			return name, why
		case result == ownership.Shared && shared == "":
			shared = fmt.Sprintf("node %s can use the volume, but not alone: %s", name, why)
		}
	}
	if shared != "" {
		return "", shared + "; each instance whose node it selects refuses it (warning " + events.ReasonNodeAffinityConflict + "), and none handles it"
	}
	return "", fmt.Sprintf("its node affinity pins it to no one node that exists (%s): no instance handles it, and each instance whose node it selects refuses it (warning %s)",
		namedList(slices.Sorted(maps.Keys(o.Nodes)), namedNodes(pv)), events.ReasonNodeAffinityConflict)
}

// namedList says which of the named nodes exist.
func namedList(found, named []string) string {
	switch {
	case len(named) == 0:
		return "it names no node"
	case len(found) == 0:
		return "no node is called " + strings.Join(named, " or ")
	}
	return "node " + strings.Join(found, ", ") + " cannot use it"
}

// nodeWhy says, in node mode, which instance handles the claim of pv, a
// volume of the driver, or why none does.
func (o *Objects) nodeWhy(owner *Owner) {
	node, why := o.nodeOwner()
	owner.Node, owner.Handled = node, node != ""
	instances := fmt.Sprintf("%s, whose resizers run with --node-deployment, one per node (node Leases: %d)", volumeKind(o.Volume, owner.Driver), len(o.NodeLeases))
	if node == "" {
		owner.Why = fmt.Sprintf("%s: %s", instances, why)
		return
	}
	owner.Why = fmt.Sprintf("%s: the instance on node %s handles the claim, as %s", instances, node, why)
}

// nodeLease is the Lease of driver's instance on node; nil when there is
// none.
func (o *Objects) nodeLease(driver, node string) *coordinationv1.Lease {
	name := resizeroptions.NodeLeaseName(driver, node)
	for i := range o.NodeLeases {
		if o.NodeLeases[i].Name == name {
			return &o.NodeLeases[i]
		}
	}
	return nil
}

// resizerLease is the Lease of the resizer that handles the claim, which
// publishes its settings: the leader's, or in node mode the one of the
// instance of the claim's node; nil when there is none.
func (o *Objects) resizerLease(driver string) *coordinationv1.Lease {
	switch {
	case !o.nodeMode():
		return freshest(o.Leases)
	case o.Volume == nil:
		return nil
	}
	if node, _ := o.nodeOwner(); node != "" {
		return o.nodeLease(driver, node)
	}
	return nil
}
