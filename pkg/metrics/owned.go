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
	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
)

// owner answers ownership.Check, as the controller asks it, for cached
// claims and PVs. For a CSI volume it fills objects it reuses with what
// Check reads (identity, phase, volume name, claimRef, the CSI driver and
// handle, the node affinity when the cache keeps it) instead of rebuilding
// whole ones, which would allocate for every claim a scrape counts. In-tree volumes, rare, are rebuilt whole: the
// migration translation reads their source and labels, and the claim's
// annotations.
type owner struct {
	pvc      v1.PersistentVolumeClaim
	pv       v1.PersistentVolume
	ref      v1.ObjectReference
	csi      v1.CSIPersistentVolumeSource
	affinity v1.VolumeNodeAffinity
}

// owned reports whether c, bound to v (nil when not cached), is in scope:
// its driver's, and with --node-deployment pinned to the node.
func (o *owner) owned(c *slim.Claim, v *slim.Volume, scope ownership.Scope) bool {
	driver := scope.Driver
	var pv *v1.PersistentVolume
	pvc := o.claim(c)
	switch {
	case v == nil:
	case v.CSI == nil:
		pvc, pv = c.PVC(), v.PV()
	case v.CSI.Driver != driver:
		// Check would say Ignore, after formatting why.
		return false
	default:
		pv = o.volume(v)
	}
	verdict, _ := scope.Check(pvc, pv)
	return verdict == ownership.Owned
}

func (o *owner) claim(c *slim.Claim) *v1.PersistentVolumeClaim {
	o.pvc.Name, o.pvc.Namespace, o.pvc.UID = c.Name, c.Namespace, c.UID
	o.pvc.Spec.VolumeName = c.VolumeName
	o.pvc.Status.Phase = c.Phase
	return &o.pvc
}

func (o *owner) volume(v *slim.Volume) *v1.PersistentVolume {
	o.pv.Name = v.Name
	o.pv.Spec.ClaimRef = nil
	if v.Bound {
		o.ref = v1.ObjectReference{Namespace: v.ClaimNamespace, Name: v.ClaimName, UID: v.ClaimUID}
		o.pv.Spec.ClaimRef = &o.ref
	}
	o.csi = v1.CSIPersistentVolumeSource{Driver: v.CSI.Driver, VolumeHandle: v.CSI.VolumeHandle}
	o.pv.Spec.CSI = &o.csi
	o.pv.Spec.NodeAffinity = nil
	if v.NodeAffinity != nil {
		o.affinity.Required = v.NodeAffinity
		o.pv.Spec.NodeAffinity = &o.affinity
	}
	return &o.pv
}
