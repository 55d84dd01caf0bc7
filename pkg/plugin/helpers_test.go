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
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

const (
	driver = "ebs.csi.example.com"
	ns     = "apps"
)

// now is when the tests explain; t0 is three hours before.
var (
	now = time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)
	t0  = now.Add(-3 * time.Hour)
)

type claimOpt func(*v1.PersistentVolumeClaim)

// claim is a bound claim "data" of volume "pv-data" requesting request,
// with capacity.
func claim(request, capacity string, opts ...claimOpt) *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: ns, UID: "uid-data"},
		Spec: v1.PersistentVolumeClaimSpec{
			VolumeName:       "pv-data",
			StorageClassName: ptr.To("fast"),
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse(request)}},
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:    v1.ClaimBound,
			Capacity: v1.ResourceList{v1.ResourceStorage: resource.MustParse(capacity)},
		},
	}
	for _, o := range opts {
		o(pvc)
	}
	return pvc
}

func allocated(size string, status v1.ClaimResourceStatus) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}
		if status != "" {
			pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: status}
		}
	}
}

// condition adds a True condition of type c since at, with message.
func condition(c v1.PersistentVolumeClaimConditionType, at time.Time, message string) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: c, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(at), Message: message})
	}
}

// resizeError adds the ControllerResizeError condition as the resizer
// records a final failure: the gRPC code as reason.
func resizeError(code string, at time.Time, message string) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: v1.PersistentVolumeClaimControllerResizeError, Status: v1.ConditionTrue, Reason: code,
			LastTransitionTime: metav1.NewTime(at), Message: message})
	}
}

// modifyError adds the ModifyVolumeError condition as the resizer records
// it: the code as reason, the time as probe time.
func modifyError(code string, at time.Time, message string) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.Conditions = append(pvc.Status.Conditions, v1.PersistentVolumeClaimCondition{
			Type: v1.PersistentVolumeClaimVolumeModifyVolumeError, Status: v1.ConditionTrue, Reason: code,
			LastTransitionTime: metav1.NewTime(at), LastProbeTime: metav1.NewTime(at), Message: message})
	}
}

// classes sets the claim's VolumeAttributesClass fields; "" leaves one
// unset.
func classes(spec, current string) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		if spec != "" {
			pvc.Spec.VolumeAttributesClassName = ptr.To(spec)
		}
		if current != "" {
			pvc.Status.CurrentVolumeAttributesClassName = ptr.To(current)
		}
	}
}

func modifyStatus(target string, s v1.PersistentVolumeClaimModifyVolumeStatus) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim) {
		pvc.Status.ModifyVolumeStatus = &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: target, Status: s}
	}
}

func pending(pvc *v1.PersistentVolumeClaim) {
	pvc.Spec.VolumeName = ""
	pvc.Status = v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending}
}

func annotated(key, value string) claimOpt {
	return func(pvc *v1.PersistentVolumeClaim) { pvc.Annotations = map[string]string{key: value} }
}

type volumeOpt func(*v1.PersistentVolume)

// volume is the CSI volume of pvc, of size, of driver.
func volume(pvc *v1.PersistentVolumeClaim, size string, opts ...volumeOpt) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-data"},
		Spec: v1.PersistentVolumeSpec{
			Capacity:    v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			ClaimRef:    &v1.ObjectReference{Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: driver, VolumeHandle: "vol-1"}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	for _, o := range opts {
		o(pv)
	}
	return pv
}

func ofDriver(name string) volumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.CSI.Driver = name }
}

// awsEBS makes the volume an in-tree EBS volume.
func awsEBS(pv *v1.PersistentVolume) {
	pv.Spec.CSI = nil
	pv.Spec.AWSElasticBlockStore = &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://us-east-1a/vol-0123"}
}

func storageClass(allowExpansion bool) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: driver, AllowVolumeExpansion: ptr.To(allowExpansion)}
}

func vac(name, driverName string) *storagev1.VolumeAttributesClass {
	return &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: name}, DriverName: driverName, Parameters: map[string]string{"iops": "3000"}}
}

var eventCount int

// event is an event of the claim "data" from the resizer of driver, last
// seen at.
func event(reason, message string, at time.Time) *v1.Event {
	eventCount++
	typ := v1.EventTypeNormal
	if strings.Contains(reason, "Failed") {
		typ = v1.EventTypeWarning
	}
	return &v1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("data.%d", eventCount), Namespace: ns, ResourceVersion: fmt.Sprint(eventCount)},
		InvolvedObject: v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "data", UID: "uid-data"},
		Reason:         reason, Message: message, Type: typ, Count: 1,
		Source:        v1.EventSource{Component: events.Source(driver)},
		LastTimestamp: metav1.NewTime(at), FirstTimestamp: metav1.NewTime(at),
	}
}

// runningPod is a running pod "app" that uses the claim "data".
func runningPod(name string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1.PodSpec{NodeName: "node-1", Volumes: []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{
			PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
}

// lease is the Lease of driver's resizer in namespace "kube-system", held
// by pod "csi-ebs-controller-0", renewed at renewed for 15s.
func lease(renewed time.Time) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: resizeroptions.LeaseName(driver), Namespace: "kube-system"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("csi-ebs-controller-0_1a2b3c4d"),
			LeaseDurationSeconds: ptr.To[int32](15),
			RenewTime:            &metav1.MicroTime{Time: renewed},
		},
	}
}

// freshLease is a Lease renewed a moment ago.
func freshLease() *coordinationv1.Lease { return lease(now.Add(-2 * time.Second)) }

// publishing sets on l the settings annotation of a resizer run with
// the defaults changed by change.
func publishing(l *coordinationv1.Lease, change func(*resizeroptions.Published)) *coordinationv1.Lease {
	s := defaultSettings().Published
	change(&s)
	l.Annotations = s.Annotations()
	return l
}

// explainObjects gathers the objects through a fake clientset and explains
// them at now.
func explainObjects(t *testing.T, req Request, objs ...runtime.Object) Explanation {
	t.Helper()
	o, err := Gather(context.Background(), kubetest.Wrap(fake.NewClientset(objs...)), withClaim(req))
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return Explain(o, now)
}

// withClaim defaults the request to the claim apps/data.
func withClaim(req Request) Request {
	if req.Namespace == "" {
		req.Namespace, req.Claim = ns, "data"
	}
	return req
}

// operation returns the operation named op.
func operation(t *testing.T, x Explanation, op string) Operation {
	t.Helper()
	for _, o := range x.Operations {
		if o.Operation == op {
			return o
		}
	}
	t.Fatalf("no operation %q in %+v", op, x)
	return Operation{}
}
