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

package list

import (
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

const (
	driver = "ebs.csi.example.com"
	other  = "nfs.csi.example.com"
	ns     = "apps"
)

// now is when the tests list; t0 is three hours before.
var (
	now = time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)
	t0  = now.Add(-3 * time.Hour)
)

type claimOpt func(*v1.PersistentVolumeClaim, *v1.PersistentVolume)

// bound is the claim namespace/name bound to its CSI volume of driver
// "pv-<namespace>-<name>", requesting request with capacity (the PV's
// size too).
func bound(namespace, name, request, capacity string, opts ...claimOpt) []runtime.Object {
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID("uid-" + name)},
		Spec: v1.PersistentVolumeClaimSpec{
			VolumeName:       "pv-" + namespace + "-" + name,
			StorageClassName: ptr.To("fast"),
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(request)}},
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:    v1.ClaimBound,
			Capacity: v1.ResourceList{v1.ResourceStorage: resource.MustParse(capacity)},
		},
	}
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvc.Spec.VolumeName},
		Spec: v1.PersistentVolumeSpec{
			Capacity:    v1.ResourceList{v1.ResourceStorage: resource.MustParse(capacity)},
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			ClaimRef:    &v1.ObjectReference{Namespace: namespace, Name: name, UID: pvc.UID},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: driver, VolumeHandle: "vol-" + name}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	for _, o := range opts {
		o(pvc, pv)
	}
	return []runtime.Object{pvc, pv}
}

// allocated records an expansion to size, in status.
func allocated(size string, status v1.ClaimResourceStatus) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) {
		pvc.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}
		pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: status}
	}
}

// pvSize sets the PV's capacity: the volume has grown.
func pvSize(size string) claimOpt {
	return func(_ *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) {
		pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}
	}
}

// condition adds a True condition of type c since at, with message.
func condition(c v1.PersistentVolumeClaimConditionType, at time.Time, message string) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim, _ *v1.PersistentVolume) {
		pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: c, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(at), Message: message})
	}
}

// modifying asks for class spec, with a modification to it recorded as s.
func modifying(spec string, s v1.PersistentVolumeClaimModifyVolumeStatus) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim, _ *v1.PersistentVolume) {
		pvc.Spec.VolumeAttributesClassName = ptr.To(spec)
		pvc.Status.ModifyVolumeStatus = &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: spec, Status: s}
	}
}

func volumeOf(name string) claimOpt {
	return func(_ *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) { pv.Spec.CSI.Driver = name }
}

func vac(name, driverName string) *storagev1.VolumeAttributesClass {
	return &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: name}, DriverName: driverName}
}

var eventCount int

// event is an event of the claim namespace/name from the resizer of
// driver, last seen at.
func event(namespace, name, reason, message string, at time.Time) *v1.Event {
	eventCount++
	return &v1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%d", name, eventCount), Namespace: namespace, ResourceVersion: fmt.Sprint(eventCount)},
		InvolvedObject: v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: namespace, Name: name, UID: types.UID("uid-" + name)},
		Reason:         reason, Message: message, Type: v1.EventTypeWarning, Count: 1,
		Source:        v1.EventSource{Component: events.Source(driver)},
		LastTimestamp: metav1.NewTime(at), FirstTimestamp: metav1.NewTime(at),
	}
}

// runningPod is a running pod that uses the claim namespace/claim.
func runningPod(namespace, name, claim string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: v1.PodSpec{NodeName: "node-1", Volumes: []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{
			PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
}

// freshLease is the Lease of driver's resizer in "kube-system", renewed a
// moment ago.
func freshLease() *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: resizeroptions.LeaseName(driver), Namespace: "kube-system"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("csi-ebs-controller-0_1a2b3c4d"),
			LeaseDurationSeconds: ptr.To[int32](15),
			RenewTime:            &metav1.MicroTime{Time: now.Add(-2 * time.Second)},
		},
	}
}

// cluster is a cluster with claims in each state the API records.
func cluster() []runtime.Object {
	var objs []runtime.Object
	add := func(o ...runtime.Object) { objs = append(objs, o...) }
	add(freshLease())
	// Nothing unfinished.
	add(bound(ns, "done", "2Gi", "2Gi")...)
	// controller_error since t0, the oldest.
	add(bound(ns, "failing", "3Gi", "1Gi", allocated("3Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
		condition(v1.PersistentVolumeClaimControllerResizeError, t0, "rpc error: code = Internal desc = the backend is down"))...)
	// controller_infeasible since t0+1h.
	add(bound(ns, "big", "10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
		condition(v1.PersistentVolumeClaimControllerResizeError, t0.Add(time.Hour), "rpc error: code = OutOfRange desc = at most 5Gi per volume"))...)
	// node_pending since t0+2h, in another namespace, used by a pod.
	add(bound("web", "node", "2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizePending), pvSize("2Gi"),
		condition(v1.PersistentVolumeClaimFileSystemResizePending, t0.Add(2*time.Hour), ""))...)
	add(runningPod("web", "web-0", "node"))
	// waiting_in_use: no time recorded.
	add(bound(ns, "held", "2Gi", "1Gi")...)
	add(runningPod(ns, "app", "held"),
		event(ns, "held", events.ReasonResizeFailed, "CSI driver "+driver+" "+events.OfflineOnly+" and volume is currently in-use by pod(s) [app]", now.Add(-time.Minute)))
	// modify pending: no time recorded.
	add(bound(ns, "gold", "1Gi", "1Gi", modifying("gold", v1.PersistentVolumeClaimModifyVolumePending))...)
	// modify in_progress since t0+150m, of a class that exists.
	add(bound(ns, "slow", "1Gi", "1Gi", modifying("fast", v1.PersistentVolumeClaimModifyVolumeInProgress),
		condition(v1.PersistentVolumeClaimVolumeModifyingVolume, t0.Add(150*time.Minute), ""))...)
	add(vac("fast", driver))
	// A claim of another driver, whose resizer does not run.
	add(bound(ns, "foreign", "2Gi", "1Gi", volumeOf(other), allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
		condition(v1.PersistentVolumeClaimResizing, t0.Add(30*time.Minute), ""))...)
	return objs
}
