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

// Package ownership decides which PVCs this resizer handles: those whose PV belongs to our CSI
// driver, directly or through CSI migration. A PVC of another driver must never be touched, so
// every doubt ends in Ignore.
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
)

// String returns the verdict's name, for logs.
func (v Verdict) String() string {
	switch v {
	case Ignore:
		return "Ignore"
	case Owned:
		return "Owned"
	case WaitForPV:
		return "WaitForPV"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Check decides whether pvc is ours. pv is the PV looked up by pvc.Spec.VolumeName, nil when it
// is not in the cache; driver is our driver name. The reason explains the verdict in V(4) logs.
//
// The claimRef must match the PVC's namespace, name and UID: a PV released from a deleted PVC
// and a PVC of the same name created again must not be confused. A CSI PV is ours when its
// driver is ours; an in-tree PV only when CSI migration maps it to our driver and
// kube-controller-manager named our driver as the PVC's resizer, which it does only once
// migration is on for that plugin.
func Check(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, driver string) (Verdict, string) {
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
	if reason := claimRefMismatch(pvc, pv); reason != "" {
		return Ignore, reason
	}

	if csi := pv.Spec.CSI; csi != nil {
		switch {
		case csi.Driver != driver:
			return Ignore, fmt.Sprintf("volume belongs to CSI driver %q", csi.Driver)
		case csi.VolumeHandle == "":
			return Ignore, "CSI volume of our driver has an empty volumeHandle"
		}
		return Owned, "CSI volume of our driver"
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
	return Owned, "in-tree volume migrated to our driver"
}

// claimRefMismatch returns why pv is not bound to pvc, or "" when it is.
func claimRefMismatch(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) string {
	ref := pv.Spec.ClaimRef
	switch {
	case ref == nil:
		return "volume has no claimRef"
	case ref.Namespace != pvc.Namespace || ref.Name != pvc.Name:
		return fmt.Sprintf("volume is bound to claim %s/%s", ref.Namespace, ref.Name)
	case ref.UID != pvc.UID:
		return fmt.Sprintf("volume is bound to claim UID %q, not %q", ref.UID, pvc.UID)
	}
	return ""
}
