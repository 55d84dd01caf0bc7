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

package slim

import (
	"maps"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/utils/ptr"
)

var (
	oneGi = resource.MustParse("1Gi")
	twoGi = resource.MustParse("2Gi")
	now   = metav1.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
)

// fullMeta is metadata with everything the projections drop.
func fullMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: namespace, UID: "uid-" + "x", ResourceVersion: "7", Generation: 3,
		Labels:          map[string]string{"app": "db", "topology.kubernetes.io/zone": "z1"},
		Annotations:     map[string]string{LastApplied: `{"big":"copy"}`, "pv.kubernetes.io/bind-completed": "yes"},
		Finalizers:      []string{"kubernetes.io/pvc-protection"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "db"}},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}
}

// keptMeta is what the projections keep of fullMeta.
func keptMeta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: namespace, UID: "uid-x", ResourceVersion: "7",
		Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"},
	}
}

func fullClaim() *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: fullMeta("data", "ns"),
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:               []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName:          ptr.To("fast"),
			VolumeName:                "pv-1",
			VolumeMode:                ptr.To(v1.PersistentVolumeFilesystem),
			VolumeAttributesClassName: ptr.To("gold"),
			Resources: v1.VolumeResourceRequirements{
				Requests: v1.ResourceList{v1.ResourceStorage: twoGi, "example.com/iops": resource.MustParse("100")},
				Limits:   v1.ResourceList{v1.ResourceStorage: twoGi},
			},
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:                     v1.ClaimBound,
			AccessModes:               []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Capacity:                  v1.ResourceList{v1.ResourceStorage: oneGi},
			AllocatedResources:        v1.ResourceList{v1.ResourceStorage: twoGi, "example.com/iops": resource.MustParse("100")},
			AllocatedResourceStatuses: map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: v1.PersistentVolumeClaimControllerResizeInProgress},
			Conditions: []v1.PersistentVolumeClaimCondition{
				{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue, LastTransitionTime: now},
			},
			CurrentVolumeAttributesClassName: ptr.To("silver"),
			ModifyVolumeStatus:               &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "gold", Status: v1.PersistentVolumeClaimModifyVolumeInProgress},
		},
	}
}

func TestClaimKeepsWhatTheResizerReads(t *testing.T) {
	want := &v1.PersistentVolumeClaim{
		ObjectMeta: keptMeta("data", "ns"),
		Spec: v1.PersistentVolumeClaimSpec{
			StorageClassName:          ptr.To("fast"),
			VolumeName:                "pv-1",
			Resources:                 v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: twoGi}},
			VolumeAttributesClassName: ptr.To("gold"),
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:                     v1.ClaimBound,
			Capacity:                  v1.ResourceList{v1.ResourceStorage: oneGi},
			AllocatedResources:        v1.ResourceList{v1.ResourceStorage: twoGi},
			AllocatedResourceStatuses: map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: v1.PersistentVolumeClaimControllerResizeInProgress},
			Conditions: []v1.PersistentVolumeClaimCondition{
				{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue, LastTransitionTime: now},
			},
			CurrentVolumeAttributesClassName: ptr.To("silver"),
			ModifyVolumeStatus:               &v1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "gold", Status: v1.PersistentVolumeClaimModifyVolumeInProgress},
		},
	}
	obj, err := TransformClaim(fullClaim())
	if err != nil {
		t.Fatalf("TransformClaim: %v", err)
	}
	got := obj.(*Claim).PVC()
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("claim from the projection (-got +want):\n%s", diff.Diff(got, want))
	}
}

func TestClaimWithoutOptionalFields(t *testing.T) {
	pvc := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "bare", Namespace: "ns"}}
	got := NewClaim(pvc).PVC()
	if got.Spec.Resources.Requests != nil || got.Status.Capacity != nil || got.Status.AllocatedResources != nil ||
		got.Status.AllocatedResourceStatuses != nil || got.Status.Conditions != nil || got.Annotations != nil ||
		got.Spec.VolumeAttributesClassName != nil || got.Status.CurrentVolumeAttributesClassName != nil || got.Status.ModifyVolumeStatus != nil {
		t.Errorf("bare claim came back with fields it did not have: %+v", got)
	}
}

func TestVolumeKeepsWhatTheResizerReads(t *testing.T) {
	pv := &v1.PersistentVolume{
		ObjectMeta: fullMeta("pv-1", ""),
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: oneGi},
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			ClaimRef:                      &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: "ns", Name: "data", UID: "uid-data", ResourceVersion: "5"},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			StorageClassName:              "fast",
			MountOptions:                  []string{"noatime"},
			VolumeMode:                    ptr.To(v1.PersistentVolumeBlock),
			NodeAffinity:                  &v1.VolumeNodeAffinity{},
			VolumeAttributesClassName:     ptr.To("gold"),
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "d", VolumeHandle: "h", FSType: "xfs", ReadOnly: true,
				VolumeAttributes:          map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "123"},
				NodeStageSecretRef:        &v1.SecretReference{Name: "stage"},
				ControllerExpandSecretRef: &v1.SecretReference{Name: "expand", Namespace: "ns"},
			}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	want := &v1.PersistentVolume{
		ObjectMeta: keptMeta("pv-1", ""),
		Spec: v1.PersistentVolumeSpec{
			Capacity:                  v1.ResourceList{v1.ResourceStorage: oneGi},
			AccessModes:               []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			ClaimRef:                  &v1.ObjectReference{Namespace: "ns", Name: "data", UID: "uid-data"},
			StorageClassName:          "fast",
			MountOptions:              []string{"noatime"},
			VolumeMode:                ptr.To(v1.PersistentVolumeBlock),
			VolumeAttributesClassName: ptr.To("gold"),
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "d", VolumeHandle: "h", FSType: "xfs", ReadOnly: true,
				ControllerExpandSecretRef: &v1.SecretReference{Name: "expand", Namespace: "ns"},
			}},
		},
	}
	obj, err := TransformVolume(pv)
	if err != nil {
		t.Fatalf("TransformVolume: %v", err)
	}
	got := obj.(*Volume).PV()
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("PV from the projection (-got +want):\n%s", diff.Diff(got, want))
	}
}

func TestInTreeVolumeKeepsSourceAndLabels(t *testing.T) {
	pv := &v1.PersistentVolume{
		ObjectMeta: fullMeta("pv-gce", ""),
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "disk-1", FSType: "ext4"},
		}},
	}
	v := NewVolume(pv)
	pv.Spec.GCEPersistentDisk.PDName = "changed after"
	got := v.PV()
	if got.Spec.GCEPersistentDisk == nil || got.Spec.CSI != nil {
		t.Fatalf("in-tree source not kept: %+v", got.Spec.PersistentVolumeSource)
	}
	if got.Labels["topology.kubernetes.io/zone"] != "z1" {
		t.Errorf("labels %v, want the zone label kept", got.Labels)
	}
	got.Spec.GCEPersistentDisk.FSType = "xfs"
	if again := v.PV(); again.Spec.GCEPersistentDisk.FSType != "ext4" {
		t.Errorf("changing a returned PV changed the projection: fsType %q", again.Spec.GCEPersistentDisk.FSType)
	}
}

// TestCopiesAreIndependent changes everything changeable in returned
// objects and deep copies, and checks that the projection did not move.
func TestCopiesAreIndependent(t *testing.T) {
	c := NewClaim(fullClaim())
	before := c.PVC()
	mutateClaim(c.PVC())
	mutateClaim(c.DeepCopyObject().(*Claim).PVC())
	cp := c.DeepCopyObject().(*Claim)
	cp.Annotations[1] = "changed"
	cp.Request.Add(oneGi)
	cp.Conditions[0].Message = "changed"
	*cp.StorageClassName = "other"
	*cp.ResizeStatus = v1.PersistentVolumeClaimNodeResizePending
	*cp.Classes.Spec, *cp.Classes.Current = "other", "other"
	cp.Classes.Modify.Status = v1.PersistentVolumeClaimModifyVolumeInfeasible
	if after := c.PVC(); !apiequality.Semantic.DeepEqual(after, before) {
		t.Errorf("projection changed through a copy (-after +before):\n%s", diff.Diff(after, before))
	}

	v := NewVolume(&v1.PersistentVolume{
		ObjectMeta: fullMeta("pv-1", ""),
		Spec: v1.PersistentVolumeSpec{
			Capacity:                  v1.ResourceList{v1.ResourceStorage: oneGi},
			AccessModes:               []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			ClaimRef:                  &v1.ObjectReference{Name: "data"},
			MountOptions:              []string{"noatime"},
			VolumeMode:                ptr.To(v1.PersistentVolumeFilesystem),
			VolumeAttributesClassName: ptr.To("gold"),
			PersistentVolumeSource:    v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "d"}},
		},
	})
	vBefore := v.PV()
	for _, pv := range []*v1.PersistentVolume{v.PV(), v.DeepCopyObject().(*Volume).PV()} {
		pv.Annotations["x"] = "y"
		pv.Spec.Capacity[v1.ResourceStorage] = twoGi
		pv.Spec.ClaimRef.Name = "other"
		pv.Spec.CSI.Driver = "other"
		pv.Spec.AccessModes[0] = v1.ReadOnlyMany
		pv.Spec.MountOptions[0] = "sync"
		*pv.Spec.VolumeMode = v1.PersistentVolumeBlock
		*pv.Spec.VolumeAttributesClassName = "other"
	}
	if after := v.PV(); !apiequality.Semantic.DeepEqual(after, vBefore) {
		t.Errorf("projection changed through a copy (-after +before):\n%s", diff.Diff(after, vBefore))
	}
}

func mutateClaim(pvc *v1.PersistentVolumeClaim) {
	pvc.Annotations["x"] = "y"
	pvc.Spec.Resources.Requests[v1.ResourceStorage] = oneGi
	pvc.Status.Capacity[v1.ResourceStorage] = twoGi
	pvc.Status.AllocatedResources[v1.ResourceStorage] = oneGi
	pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage] = v1.PersistentVolumeClaimNodeResizePending
	pvc.Status.Conditions[0].Message = "changed"
	*pvc.Spec.StorageClassName = "other"
	*pvc.Spec.VolumeAttributesClassName = "other"
	*pvc.Status.CurrentVolumeAttributesClassName = "other"
	pvc.Status.ModifyVolumeStatus.TargetVolumeAttributesClassName = "other"
}

func TestTransformsPassOtherObjects(t *testing.T) {
	pod := &v1.Pod{}
	for name, transform := range map[string]func(any) (any, error){"claim": TransformClaim, "volume": TransformVolume} {
		if got, err := transform(pod); got != pod || err != nil {
			t.Errorf("%s transform of a pod = %v, %v; want the pod unchanged", name, got, err)
		}
		var nilClaim *v1.PersistentVolumeClaim
		if got, err := transform(nilClaim); got != any(nilClaim) || err != nil {
			t.Errorf("%s transform of a nil claim = %v, %v; want it unchanged", name, got, err)
		}
	}
}

func TestAnnotationsWithOnlyLastApplied(t *testing.T) {
	pvc := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{LastApplied: "{}"}}}
	if got := NewClaim(pvc).Annotations; got != nil {
		t.Errorf("annotations %v, want none", got)
	}
	if len(pvc.Annotations) != 1 {
		t.Errorf("the decoded claim's annotations changed: %v", pvc.Annotations)
	}
}

func TestVolumeWithAffinityKeepsTheRequiredNodeAffinity(t *testing.T) {
	required := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{"host-1"}}},
	}}}
	pv := &v1.PersistentVolume{
		ObjectMeta: fullMeta("pv-1", ""),
		Spec: v1.PersistentVolumeSpec{
			NodeAffinity:           &v1.VolumeNodeAffinity{Required: required},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h"}},
		},
	}
	if got := NewVolume(pv).PV().Spec.NodeAffinity; got != nil {
		t.Errorf("NewVolume kept the node affinity %v", got)
	}
	obj, err := TransformVolumeKeeping(func(*v1.PersistentVolume) bool { return true })(pv)
	if err != nil {
		t.Fatal(err)
	}
	v := obj.(*Volume)
	want := required.DeepCopy()
	for _, got := range []*v1.PersistentVolume{v.PV(), v.DeepCopyObject().(*Volume).PV()} {
		if got.Spec.NodeAffinity == nil || !apiequality.Semantic.DeepEqual(got.Spec.NodeAffinity.Required, want) {
			t.Fatalf("node affinity %v, want required %v", got.Spec.NodeAffinity, want)
		}
		got.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0] = "changed"
	}
	cp := v.DeepCopyObject().(*Volume)
	cp.NodeAffinity.NodeSelectorTerms[0].MatchExpressions[0].Key = "changed"
	if !apiequality.Semantic.DeepEqual(v.NodeAffinity, want) {
		t.Errorf("projection changed through a copy: %v", v.NodeAffinity)
	}
	if got := NewVolumeWithAffinity(&v1.PersistentVolume{}); got.NodeAffinity != nil {
		t.Errorf("node affinity %v of a volume without one", got.NodeAffinity)
	}
}

func TestOwnershipOnly(t *testing.T) {
	class, mode := "gold", v1.PersistentVolumeFilesystem
	ref := &v1.SecretReference{Namespace: "ns", Name: "s"}
	required := &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{"host-2"}}},
	}}}
	pv := &v1.PersistentVolume{
		ObjectMeta: fullMeta("pv-1", ""),
		Spec: v1.PersistentVolumeSpec{
			Capacity:                  v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:               []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			VolumeMode:                &mode,
			MountOptions:              []string{"noatime"},
			StorageClassName:          "fast",
			VolumeAttributesClassName: &class,
			ClaimRef:                  &v1.ObjectReference{Namespace: "ns", Name: "claim", UID: "uid-1"},
			NodeAffinity:              &v1.VolumeNodeAffinity{Required: required},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "d", VolumeHandle: "h", FSType: "ext4", ControllerExpandSecretRef: ref,
			}},
		},
	}
	keepWhole := false
	obj, err := TransformVolumeKeeping(func(*v1.PersistentVolume) bool { return keepWhole })(pv)
	if err != nil {
		t.Fatal(err)
	}
	v := obj.(*Volume)
	want := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1", UID: pv.UID, ResourceVersion: pv.ResourceVersion},
		Spec: v1.PersistentVolumeSpec{
			ClaimRef:               pv.Spec.ClaimRef,
			NodeAffinity:           pv.Spec.NodeAffinity,
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h"}},
		},
	}
	if got := v.PV(); !v.Partial || !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("OwnershipOnly (partial %v) = %+v, want %+v", v.Partial, got, want)
	}
	keepWhole = true
	if obj, _ := TransformVolumeKeeping(func(*v1.PersistentVolume) bool { return keepWhole })(pv); obj.(*Volume).Partial || obj.(*Volume).Capacity == nil {
		t.Errorf("a volume kept whole: %+v", obj)
	}
}

func TestPairs(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]string
		drop string
		want map[string]string
	}{
		{name: "nil", in: nil, want: nil},
		{name: "only the dropped key", in: map[string]string{LastApplied: "{}"}, drop: LastApplied, want: nil},
		{name: "dropped key among others", in: map[string]string{LastApplied: "{}", "a": "1", "b": ""}, drop: LastApplied, want: map[string]string{"a": "1", "b": ""}},
		{name: "nothing dropped", in: map[string]string{"a": "1", "": "empty key"}, drop: LastApplied, want: map[string]string{"a": "1", "": "empty key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := PairsOf(tc.in, tc.drop)
			if got := p.Map(); !maps.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Errorf("Map() = %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got := p.Get(k); got != v {
					t.Errorf("Get(%q) = %q, want %q", k, got, v)
				}
			}
			if got := p.Get(tc.drop); got != "" && tc.drop != "" {
				t.Errorf("Get(dropped %q) = %q, want empty", tc.drop, got)
			}
			if got := p.Get("absent"); got != "" {
				t.Errorf("Get(absent) = %q, want empty", got)
			}
		})
	}
}
