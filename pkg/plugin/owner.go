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
	"cmp"
	"encoding/json"
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

// volumeDriver is the CSI driver of pv: its own, or the one CSI migration
// hands an in-tree volume to; "" when there is none.
func volumeDriver(pv *v1.PersistentVolume) string {
	if pv == nil {
		return ""
	}
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver
	}
	if src, err := ownership.Source(pv); err == nil {
		return src.Driver
	}
	return ""
}

// inTreeSource names the volume source of pv that is not CSI, as its
// field is spelled ("awsElasticBlockStore", "nfs"); "" for a CSI volume.
func inTreeSource(pv *v1.PersistentVolume) string {
	if pv == nil || pv.Spec.CSI != nil {
		return ""
	}
	var fields map[string]json.RawMessage
	if b, err := json.Marshal(pv.Spec.PersistentVolumeSource); err != nil || json.Unmarshal(b, &fields) != nil {
		return "unknown"
	}
	for name := range fields {
		return name // a valid PV has exactly one source
	}
	return "none"
}

// ownerOf says whose resizer handles the claim, with the verdict of
// ownership.Check, which the resizer itself follows.
func ownerOf(o *Objects) Owner {
	pvc, pv := o.Claim, o.Volume
	owner := Owner{AskedFor: o.Request.Driver}
	switch {
	case pvc.Status.Phase != v1.ClaimBound || pvc.Spec.VolumeName == "":
		owner.Why = fmt.Sprintf("the claim is not bound to a volume (phase %s): no resizer acts on it before it is; binding is the job of the provisioner and the PV controller",
			cmp.Or(string(pvc.Status.Phase), "unset"))
		return owner
	case o.VolumeMissing:
		owner.Why = fmt.Sprintf("the claim's volume %q does not exist (deleted?): no resizer can expand or modify it", pvc.Spec.VolumeName)
		return owner
	}
	driver := volumeDriver(pv)
	asked := cmp.Or(o.Request.Driver, driver)
	owner.Driver = driver
	if asked == "" {
		owner.Why = fmt.Sprintf("the volume is an in-tree %s volume that CSI migration hands to no CSI driver: no CSI resizer handles it", inTreeSource(pv))
		return owner
	}
	verdict, reason := ownership.Check(pvc, pv, asked)
	kind := fmt.Sprintf("an in-tree %s volume migrated to CSI driver %s", inTreeSource(pv), asked)
	if pv.Spec.CSI != nil {
		kind = "a CSI volume of driver " + asked
	}
	switch annotated := pvc.Annotations[ownership.ResizerAnnotation]; {
	case verdict == ownership.Owned && o.nodeMode():
		node, why := o.nodeOwner()
		owner.Driver, owner.Node, owner.Handled = asked, node, node != ""
		instances := fmt.Sprintf("%s, whose resizers run with --node-deployment, one per node (node Leases: %d)", kind, len(o.NodeLeases))
		owner.Why = fmt.Sprintf("%s: %s", instances, why)
		if node != "" {
			owner.Why = fmt.Sprintf("%s: the instance on node %s handles the claim, as %s", instances, node, why)
		}
	case verdict == ownership.Owned:
		owner.Driver, owner.Handled = asked, true
		owner.Why = fmt.Sprintf("%s: the resizer of %s handles the claim", kind, asked)
	case asked != driver && pv.Spec.CSI != nil:
		owner.Why = fmt.Sprintf("not handled by the resizer of %s: the volume belongs to CSI driver %s, whose resizer handles the claim", asked, driver)
	case asked != driver && driver != "":
		owner.Why = fmt.Sprintf("not handled by the resizer of %s: the volume is an in-tree %s volume, which CSI migration hands to driver %s", asked, inTreeSource(pv), driver)
	case asked != driver:
		owner.Why = fmt.Sprintf("not handled by the resizer of %s: the volume is an in-tree %s volume, which no CSI resizer handles", asked, inTreeSource(pv))
	case pv.Spec.CSI == nil && annotated != driver:
		owner.Why = fmt.Sprintf("the volume is an in-tree %s volume and CSI migration is not on for it (annotation %s is %s, not %s): "+
			"kube-controller-manager's in-tree volume plugin expands it, not a CSI resizer", inTreeSource(pv), ownership.ResizerAnnotation, cmp.Or(annotated, "unset"), driver)
	default:
		owner.Why = fmt.Sprintf("the resizer of %s leaves the claim alone: %s", driver, reason)
	}
	return owner
}

// With --node-deployment a driver's resizer runs once per node with no
// leader Lease, each instance keeping a node Lease (options.NodeLeaseName):
// the one that handles a claim is that of the node its volume's node
// affinity pins it to, by ownership.Match, the rule the instances follow.

// namedNodes are the single values of the In expressions of pv's required
// node affinity, sorted: the nodes it may pin the volume to.
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
	shared, found := "", slices.Sorted(maps.Keys(o.Nodes))
	for _, name := range found {
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
	named := namedNodes(pv)
	which := "node " + strings.Join(found, ", ") + " cannot use it"
	switch {
	case len(named) == 0:
		which = "it names no node"
	case len(found) == 0:
		which = "no node is called " + strings.Join(named, " or ")
	}
	return "", fmt.Sprintf("its node affinity pins it to no one node that exists (%s): no instance handles it, and each instance whose node it selects refuses it (warning %s)",
		which, events.ReasonNodeAffinityConflict)
}

// resizerLease is the Lease that publishes the settings of the resizer that
// handles the claim: the leader's, or in node mode its node's instance's.
func (o *Objects) resizerLease(driver string) *coordinationv1.Lease {
	switch {
	case !o.nodeMode():
		return freshest(o.Leases)
	case o.Volume == nil:
		return nil
	}
	node, _ := o.nodeOwner()
	for i, l := range o.NodeLeases {
		if node != "" && l.Name == resizeroptions.NodeLeaseName(driver, node) {
			return &o.NodeLeases[i]
		}
	}
	return nil
}
