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
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"

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
	b, err := json.Marshal(pv.Spec.PersistentVolumeSource)
	if err != nil {
		return "unknown"
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil {
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
	pvc := o.Claim
	switch {
	case pvc.Status.Phase != v1.ClaimBound || pvc.Spec.VolumeName == "":
		return Owner{AskedFor: o.Request.Driver, Why: fmt.Sprintf(
			"the claim is not bound to a volume (phase %s): no resizer acts on it before it is; binding is the job of the provisioner and the PV controller", phaseOf(pvc))}
	case o.VolumeMissing:
		return Owner{AskedFor: o.Request.Driver, Why: fmt.Sprintf(
			"the claim's volume %q does not exist (deleted?): no resizer can expand or modify it", pvc.Spec.VolumeName)}
	}
	driver := volumeDriver(o.Volume)
	asked := o.Request.Driver
	if asked == "" {
		asked = driver
	}
	owner := Owner{Driver: driver, AskedFor: o.Request.Driver}
	if asked == "" {
		owner.Why = fmt.Sprintf("the volume is an in-tree %s volume that CSI migration hands to no CSI driver: no CSI resizer handles it", inTreeSource(o.Volume))
		return owner
	}
	verdict, reason := ownership.Check(pvc, o.Volume, asked)
	switch {
	case verdict == ownership.Owned && o.nodeMode():
		owner.Driver = asked
		o.nodeWhy(&owner)
	case verdict == ownership.Owned:
		owner.Driver, owner.Handled = asked, true
		owner.Why = handledWhy(o.Volume, asked)
	case asked != driver:
		owner.Why = foreignWhy(o.Volume, asked, driver)
	default:
		owner.Why = ignoredWhy(o, driver, reason)
	}
	return owner
}

func phaseOf(pvc *v1.PersistentVolumeClaim) string {
	if pvc.Status.Phase == "" {
		return "unset"
	}
	return string(pvc.Status.Phase)
}

func handledWhy(pv *v1.PersistentVolume, driver string) string {
	return fmt.Sprintf("%s: the resizer of %s handles the claim", volumeKind(pv, driver), driver)
}

// volumeKind says what pv is, a volume of driver.
func volumeKind(pv *v1.PersistentVolume, driver string) string {
	if pv.Spec.CSI != nil {
		return "a CSI volume of driver " + driver
	}
	return fmt.Sprintf("an in-tree %s volume migrated to CSI driver %s", inTreeSource(pv), driver)
}

// foreignWhy says that the claim is not asked's but driver's.
func foreignWhy(pv *v1.PersistentVolume, asked, driver string) string {
	switch {
	case pv.Spec.CSI != nil:
		return fmt.Sprintf("not handled by the resizer of %s: the volume belongs to CSI driver %s, whose resizer handles the claim", asked, driver)
	case driver != "":
		return fmt.Sprintf("not handled by the resizer of %s: the volume is an in-tree %s volume, which CSI migration hands to driver %s", asked, inTreeSource(pv), driver)
	}
	return fmt.Sprintf("not handled by the resizer of %s: the volume is an in-tree %s volume, which no CSI resizer handles", asked, inTreeSource(pv))
}

// ignoredWhy says why the resizer of the volume's own driver leaves the
// claim alone.
func ignoredWhy(o *Objects, driver, reason string) string {
	pv, pvc := o.Volume, o.Claim
	if pv.Spec.CSI == nil && pvc.Annotations[ownership.ResizerAnnotation] != driver {
		resizer := pvc.Annotations[ownership.ResizerAnnotation]
		if resizer == "" {
			resizer = "unset"
		}
		return fmt.Sprintf("the volume is an in-tree %s volume and CSI migration is not on for it (annotation %s is %s, not %s): "+
			"kube-controller-manager's in-tree volume plugin expands it, not a CSI resizer", inTreeSource(pv), ownership.ResizerAnnotation, resizer, driver)
	}
	return fmt.Sprintf("the resizer of %s leaves the claim alone: %s", driver, reason)
}
