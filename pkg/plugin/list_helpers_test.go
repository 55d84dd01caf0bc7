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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// other is a second driver, whose resizer does not run.
const other = "nfs.csi.example.com"

// bound is the claim namespace/name (as claim makes it, with opts) bound to
// its CSI volume of driver "pv-<namespace>-<name>", requesting request with
// capacity (the PV's size too).
func bound(namespace, name, request, capacity string, opts ...claimOpt) []runtime.Object {
	pvc := claim(request, capacity, opts...)
	pvc.Namespace, pvc.Name, pvc.UID, pvc.Spec.VolumeName = namespace, name, types.UID("uid-"+name), "pv-"+namespace+"-"+name
	pv := volume(pvc, capacity)
	pv.Name, pv.Spec.CSI.VolumeHandle = pvc.Spec.VolumeName, "vol-"+name
	return []runtime.Object{pvc, pv}
}

// withPV applies opts to the PV of a claim made by bound.
func withPV(objs []runtime.Object, opts ...volumeOpt) []runtime.Object {
	for _, o := range opts {
		o(objs[1].(*v1.PersistentVolume))
	}
	return objs
}

// pvSize sets the PV's capacity: the volume has grown.
func pvSize(size string) volumeOpt {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}
	}
}

// modifying asks for class spec, with a modification to it recorded as s.
func modifying(spec string, s v1.PersistentVolumeClaimModifyVolumeStatus) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Spec.VolumeAttributesClassName = ptr.To(spec)
		pvc.Status.ModifyVolumeStatus = &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: spec, Status: s}
	}
}

// eventOf is an event of the claim namespace/name from the resizer of
// driver, last seen at.
func eventOf(namespace, name, reason, message string, at time.Time) *v1.Event {
	e := event(reason, message, at)
	e.Namespace, e.Name, e.Type = namespace, name+e.Name[len("data"):], v1.EventTypeWarning
	e.InvolvedObject.Namespace, e.InvolvedObject.Name, e.InvolvedObject.UID = namespace, name, types.UID("uid-"+name)
	return e
}

// podOf is a running pod namespace/name that uses the claim namespace/claim.
func podOf(namespace, name, claim string) *v1.Pod {
	p := runningPod(name)
	p.Namespace, p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName = namespace, claim
	return p
}

// cluster is a cluster with claims in each state the API records.
func cluster() []runtime.Object {
	var objs []runtime.Object
	add := func(o ...runtime.Object) { objs = append(objs, o...) }
	add(publishing(freshLease(), func(s *resizeroptions.Published) { s.OfflineOnly = true }))
	// Nothing unfinished.
	add(bound(ns, "done", "2Gi", "2Gi")...)
	// controller_error since t0, the oldest.
	add(bound(ns, "failing", "3Gi", "1Gi", allocated("3Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
		resizeError("Internal", t0, "rpc error: code = Internal desc = the backend is down"))...)
	// controller_infeasible since t0+1h.
	add(bound(ns, "big", "10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
		resizeError("OutOfRange", t0.Add(time.Hour), "rpc error: code = OutOfRange desc = at most 5Gi per volume"))...)
	// node_pending since t0+2h, in another namespace, used by a pod.
	add(withPV(bound("web", "node", "2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizePending),
		condition(v1.PersistentVolumeClaimFileSystemResizePending, t0.Add(2*time.Hour), "")), pvSize("2Gi"))...)
	add(podOf("web", "web-0", "node"))
	// waiting_in_use: no time recorded.
	add(bound(ns, "held", "2Gi", "1Gi")...)
	add(podOf(ns, "app", "held"),
		eventOf(ns, "held", events.ReasonResizeFailed, "CSI driver "+driver+" "+events.OfflineOnly+" and volume is currently in-use by pod(s) [app]", now.Add(-time.Minute)))
	// modify pending: no time recorded.
	add(bound(ns, "gold", "1Gi", "1Gi", modifying("gold", v1.PersistentVolumeClaimModifyVolumePending))...)
	// modify in_progress since t0+150m, of a class that exists.
	add(bound(ns, "slow", "1Gi", "1Gi", modifying("fast", v1.PersistentVolumeClaimModifyVolumeInProgress),
		condition(v1.PersistentVolumeClaimVolumeModifyingVolume, t0.Add(150*time.Minute), ""))...)
	add(vac("fast", driver))
	// A claim of another driver, whose resizer does not run.
	add(withPV(bound(ns, "foreign", "2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
		condition(v1.PersistentVolumeClaimResizing, t0.Add(30*time.Minute), "")), ofDriver(other))...)
	return objs
}
