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

// Package ownership decides which claims this resizer handles: those whose
// volume belongs to its CSI driver, directly or through CSI migration, and,
// with --node-deployment, only those pinned to the instance's node. A claim
// of another driver must never be touched, so every doubt ends in Ignore.
package ownership

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
)

// ResizerAnnotation is the PVC annotation in which kube-controller-manager names the resizer of
// a claim; for an in-tree volume under CSI migration it names the CSI driver.
const ResizerAnnotation = "volume.kubernetes.io/storage-resizer"

// Verdict says whether a PVC is ours. The zero value is Ignore, so that a forgotten case
// leaves the PVC alone.
type Verdict int

const (
	// Ignore means the PVC is not ours, or not in a state to be resized: leave it silently.
	Ignore Verdict = iota
	// Owned means the PVC is bound to a volume of our driver: resize it.
	Owned
	// WaitForPV means the bound PV is not in the informer cache yet: retry with backoff, since
	// the PV informer may lag behind the PVC informer.
	WaitForPV
	// Refused, with --node-deployment only, means the volume is our driver's and this node can
	// use it, but so may other nodes: one volume has one resizer, so no instance takes it.
	Refused
	// NoNodeAffinity, with --node-deployment only, means the volume is our driver's but has no
	// required node affinity: it is pinned to no node, so no instance takes it.
	NoNodeAffinity
)

// String returns the verdict's name, for logs.
func (v Verdict) String() string {
	if names := []string{"Ignore", "Owned", "WaitForPV", "Refused", "NoNodeAffinity"}; v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Scope is what one resizer instance handles.
type Scope struct {
	// Driver is our driver name.
	Driver string
	// Node is nil for a resizer of the whole cluster. With --node-deployment it knows the
	// instance's node, and only the volumes that package nodeaffinity pins to that node are
	// the instance's.
	Node *Watcher
}

// Check decides whether pvc is ours for a resizer of the whole cluster: Scope{Driver: driver}.
func Check(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, driver string) (Verdict, string) {
	return Scope{Driver: driver}.Check(pvc, pv)
}

// Check decides whether pvc is ours; pv is the PV of pvc.Spec.VolumeName, nil when not cached;
// the reason is for V(4) logs. The claimRef must match the PVC's namespace, name and UID, so that
// a PV released from a deleted PVC is not taken for a new PVC of the same name. An in-tree PV is
// ours only when CSI migration maps it to our driver and kube-controller-manager named our
// driver as the PVC's resizer, which it does only once migration is on for that plugin.
func (s Scope) Check(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) (Verdict, string) {
	driver := s.Driver
	switch {
	case pvc == nil:
		return Ignore, "no claim given"
	case driver == "":
		return Ignore, "no driver name given"
	case pvc.Status.Phase != v1.ClaimBound:
		return Ignore, fmt.Sprintf("claim phase is %q, not Bound", pvc.Status.Phase)
	case pvc.Spec.VolumeName == "":
		return Ignore, "claim has no spec.volumeName"
	case pv == nil:
		return WaitForPV, fmt.Sprintf("volume %q is not in the informer cache yet", pvc.Spec.VolumeName)
	case pv.Name != pvc.Spec.VolumeName:
		return Ignore, fmt.Sprintf("given volume %q is not the claim's volume %q", pv.Name, pvc.Spec.VolumeName)
	}
	switch ref := pv.Spec.ClaimRef; {
	case ref == nil:
		return Ignore, "volume has no claimRef"
	case ref.Namespace != pvc.Namespace || ref.Name != pvc.Name:
		return Ignore, fmt.Sprintf("volume is bound to claim %s/%s", ref.Namespace, ref.Name)
	case ref.UID != pvc.UID:
		return Ignore, fmt.Sprintf("volume is bound to claim UID %q, not %q", ref.UID, pvc.UID)
	}

	if csi := pv.Spec.CSI; csi != nil {
		switch {
		case csi.Driver != driver:
			return Ignore, fmt.Sprintf("volume belongs to CSI driver %q", csi.Driver)
		case csi.VolumeHandle == "":
			return Ignore, "CSI volume of our driver has an empty volumeHandle"
		}
		return s.onNode(pv, "CSI volume of our driver")
	}

	src, err := Source(pv)
	if err != nil {
		return Ignore, fmt.Sprintf("volume is not ours: %v", err)
	}
	if src.Driver != driver {
		return Ignore, fmt.Sprintf("in-tree volume migrates to CSI driver %q", src.Driver)
	}
	if resizer := pvc.Annotations[ResizerAnnotation]; resizer != driver {
		return Ignore, fmt.Sprintf("in-tree volume of our driver, but annotation %s is %q: CSI migration is not on for it", ResizerAnnotation, resizer)
	}
	return s.onNode(pv, "in-tree volume migrated to our driver")
}

// onNode applies the node rule, when there is one, to pv, a volume of our driver.
func (s Scope) onNode(pv *v1.PersistentVolume, ours string) (Verdict, string) {
	if s.Node == nil {
		return Owned, ours
	}
	node := s.Node.Current()
	result, why := Match(pv, node)
	switch {
	case result == Pinned:
		return Owned, ours + ": " + why
	case result == Shared:
		return Refused, fmt.Sprintf("%s that node %s can use, but not the only node that can: %s", ours, node.Name, why)
	case result == NoAffinity:
		return NoNodeAffinity, ours + ", but " + why + ": it is pinned to no node, and no --node-deployment instance handles it"
	case node == nil:
		return Ignore, fmt.Sprintf("%s, but Node %s is not known: it was not found, or was deleted", ours, s.Node.Name())
	}
	return Ignore, ours + ", but " + why
}
