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

package claimstatus

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// onlyPatch returns the single action recorded by client, which must be a
// JSON merge patch of name on resource/subresource, and the
// resourceVersion its body is guarded by.
func onlyPatch(t *testing.T, client *fake.Clientset, resource, subresource, namespace, name string) string {
	t.Helper()
	actions := client.Actions()
	if len(actions) != 1 {
		t.Fatalf("got %d actions, want exactly one patch: %v", len(actions), actions)
	}
	patch, ok := actions[0].(clienttesting.PatchAction)
	if !ok || actions[0].GetVerb() != "patch" {
		t.Fatalf("action is %s, want a patch", actions[0])
	}
	if got := patch.GetResource().Resource; got != resource {
		t.Errorf("patched resource %q, want %q", got, resource)
	}
	if got := patch.GetSubresource(); got != subresource {
		t.Errorf("patched subresource %q, want %q", got, subresource)
	}
	if patch.GetNamespace() != namespace || patch.GetName() != name {
		t.Errorf("patched %s/%s, want %s/%s", patch.GetNamespace(), patch.GetName(), namespace, name)
	}
	if got := patch.GetPatchType(); got != types.MergePatchType {
		t.Errorf("patch type %q, want %q", got, types.MergePatchType)
	}
	var body struct {
		Metadata struct {
			ResourceVersion *string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(patch.GetPatch(), &body); err != nil {
		t.Fatalf("patch body %s: %v", patch.GetPatch(), err)
	}
	if body.Metadata.ResourceVersion == nil {
		t.Fatalf("patch body %s carries no metadata.resourceVersion", patch.GetPatch())
	}
	return *body.Metadata.ResourceVersion
}

func TestPatchClaim(t *testing.T) {
	oneGi := claim()
	tests := []struct {
		name    string
		old     *v1.PersistentVolumeClaim
		updated *v1.PersistentVolumeClaim
	}{
		{name: "intent", old: oneGi, updated: ResizeIntent(oneGi, q("2Gi"), now)},
		{
			name:    "node pending",
			old:     ResizeIntent(oneGi, q("2Gi"), then),
			updated: NodePending(ResizeIntent(oneGi, q("2Gi"), then), now),
		},
		{
			name:    "finished at the driver's larger capacity: allocated charged in the same patch",
			old:     ResizeIntent(oneGi, q("2Gi"), then),
			updated: ResizeFinished(ResizeIntent(oneGi, q("2Gi"), then), q("2560Mi"), now),
		},
		{
			name:    "settled at the driver's larger capacity after kubelet",
			old:     claim(withCapacity("2Gi"), withAllocated("2Gi")),
			updated: VolumeSizeRecorded(claim(withCapacity("2Gi"), withAllocated("2Gi")), q("2560Mi")),
		},
		{
			name:    "finished: status map and conditions removed, annotation added",
			old:     claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, ""), testobj.Condition(nodeError, then.Time, "kubelet")),
			updated: ResizeFinished(claim(withAllocated("2Gi"), withResizeStatus(inProgress), testobj.Condition(resizing, then.Time, ""), testobj.Condition(nodeError, then.Time, "kubelet")), q("2Gi"), now),
		},
		{
			name:    "finished: other resource kept",
			old:     claim(withAllocated("2Gi"), withResizeStatus(inProgress), withResourceStatus(otherResource, inProgress)),
			updated: ResizeFinished(claim(withAllocated("2Gi"), withResizeStatus(inProgress), withResourceStatus(otherResource, inProgress)), q("2Gi"), now),
		},
		{
			name:    "failed infeasible",
			old:     ResizeIntent(oneGi, q("100Ti"), then),
			updated: ResizeFailed(ResizeIntent(oneGi, q("100Ti"), then), true, "OutOfRange", "out of range", now),
		},
		{
			name:    "new intent after a failure drops the annotation",
			old:     claim(testobj.Annotated(AnnNodeExpansionNotRequired, "true"), testobj.Condition(ctrlError, then.Time, "x")),
			updated: ResizeIntent(claim(testobj.Annotated(AnnNodeExpansionNotRequired, "true"), testobj.Condition(ctrlError, then.Time, "x")), q("2Gi"), now),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.old)
			got, err := PatchClaim(context.Background(), kubetest.Wrap(client), tc.old, tc.updated)
			if err != nil {
				t.Fatalf("PatchClaim: %v", err)
			}
			if rv := onlyPatch(t, client, "persistentvolumeclaims", "status", "ns", "data"); rv != tc.old.ResourceVersion {
				t.Errorf("patch guarded by resourceVersion %q, want %q", rv, tc.old.ResourceVersion)
			}
			checkClaim(t, "returned", got, tc.updated)
			stored, err := client.Tracker().Get(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), "ns", "data")
			if err != nil {
				t.Fatalf("get stored claim: %v", err)
			}
			checkClaim(t, "stored", stored.(*v1.PersistentVolumeClaim), tc.updated)
		})
	}
}

// checkClaim compares a claim that went through the fake API server with
// the one intended. Semantic equality because JSON turns times local and
// quantities canonical, and because a map whose last key a patch removed is
// empty in the fake API server (a real one drops empty maps).
func checkClaim(t *testing.T, what string, got, want *v1.PersistentVolumeClaim) {
	t.Helper()
	got = got.DeepCopy()
	got.ManagedFields = nil
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("%s claim is not the intended one (-got +want):\n%s", what, diff.Diff(got, want))
	}
	if len(got.Status.Conditions) != len(want.Status.Conditions) {
		t.Errorf("%s conditions = %v, want %v", what, got.Status.Conditions, want.Status.Conditions)
	}
}

// TestPatchClaimFromPartialView patches from a claim that lacks what the
// server holds, as the slim cache keeps it: what the view lacks survives.
func TestPatchClaimFromPartialView(t *testing.T) {
	const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"
	stored := claim(testobj.Annotated(lastApplied, "{}"), withAllocated("2Gi"), withResizeStatus(inProgress), withResourceStatus(otherResource, inProgress))
	view := claim(withAllocated("2Gi"), withResizeStatus(inProgress))
	client := fake.NewClientset(stored)
	if _, err := PatchClaim(context.Background(), kubetest.Wrap(client), view, ResizeFinished(view, q("2Gi"), now)); err != nil {
		t.Fatalf("PatchClaim: %v", err)
	}
	obj, err := client.Tracker().Get(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), "ns", "data")
	if err != nil {
		t.Fatalf("get stored claim: %v", err)
	}
	got := obj.(*v1.PersistentVolumeClaim)
	if got.Annotations[lastApplied] != "{}" || got.Annotations[AnnNodeExpansionNotRequired] != "true" {
		t.Errorf("annotations %v, want %s kept and %s added", got.Annotations, lastApplied, AnnNodeExpansionNotRequired)
	}
	want := map[v1.ResourceName]v1.ClaimResourceStatus{otherResource: inProgress}
	if !apiequality.Semantic.DeepEqual(got.Status.AllocatedResourceStatuses, want) {
		t.Errorf("allocatedResourceStatuses %v, want %v", got.Status.AllocatedResourceStatuses, want)
	}
}

func TestPatchClaimNoChange(t *testing.T) {
	old := ResizeIntent(claim(), q("2Gi"), then)
	client := fake.NewClientset(old)
	got, err := PatchClaim(context.Background(), kubetest.Wrap(client), old, ResizeIntent(old, q("2Gi"), now))
	if err != nil {
		t.Fatalf("PatchClaim: %v", err)
	}
	if actions := client.Actions(); len(actions) != 0 {
		t.Errorf("got actions %v, want none", actions)
	}
	if got != old {
		t.Errorf("PatchClaim returned a new object, want old")
	}
}

func TestPatchVolume(t *testing.T) {
	oneGi := q("1Gi")
	tests := []struct {
		name    string
		old     *v1.PersistentVolume
		updated *v1.PersistentVolume
	}{
		{name: "grown", old: volume(), updated: VolumeWithCapacity(volume(), q("2Gi"), nil)},
		{name: "grown with pre-resize capacity", old: volume(), updated: VolumeWithCapacity(volume(), q("2Gi"), &oneGi)},
		{name: "annotation only", old: volume(withSize("2Gi")), updated: VolumeWithCapacity(volume(withSize("2Gi")), q("2Gi"), &oneGi)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.old)
			got, err := PatchVolume(context.Background(), kubetest.Wrap(client), tc.old, tc.updated)
			if err != nil {
				t.Fatalf("PatchVolume: %v", err)
			}
			if rv := onlyPatch(t, client, "persistentvolumes", "", "", "pv-1"); rv != tc.old.ResourceVersion {
				t.Errorf("patch guarded by resourceVersion %q, want %q", rv, tc.old.ResourceVersion)
			}
			stored, err := client.Tracker().Get(v1.SchemeGroupVersion.WithResource("persistentvolumes"), "", "pv-1")
			if err != nil {
				t.Fatalf("get stored volume: %v", err)
			}
			for what, pv := range map[string]*v1.PersistentVolume{"returned": got, "stored": stored.(*v1.PersistentVolume)} {
				pv = pv.DeepCopy()
				pv.ManagedFields = nil
				if !apiequality.Semantic.DeepEqual(pv, tc.updated) {
					t.Errorf("%s volume is not the intended one (-got +want):\n%s", what, diff.Diff(pv, tc.updated))
				}
			}
		})
	}
}

func TestPatchVolumeNoChange(t *testing.T) {
	old := volume(withSize("3Gi"))
	client := fake.NewClientset(old)
	got, err := PatchVolume(context.Background(), kubetest.Wrap(client), old, VolumeWithCapacity(old, q("2Gi"), nil))
	if err != nil {
		t.Fatalf("PatchVolume: %v", err)
	}
	if actions := client.Actions(); len(actions) != 0 {
		t.Errorf("got actions %v, want none", actions)
	}
	if got != old {
		t.Errorf("PatchVolume returned a new object, want old")
	}
}

func TestEncodeError(t *testing.T) {
	data, err := encode(patch{"status": make(chan int)}, "1")
	if err == nil || !strings.Contains(err.Error(), "encode patch") {
		t.Errorf("encode error %v, want one with %q", err, "encode patch")
	}
	if data != nil {
		t.Errorf("encode returned %s with an error", data)
	}
}

// TestPatchDataBody pins the exact wire form of one patch: only what
// changed, plus the resourceVersion guard.
func TestPatchDataBody(t *testing.T) {
	old := claim(testobj.Annotated(AnnNodeExpansionNotRequired, "true"), testobj.Annotated("pv.kubernetes.io/bind-completed", "yes"))
	data, err := encode(claimPatch(old, ResizeIntent(old, q("2Gi"), now)), old.ResourceVersion)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	var got, want map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	wantJSON := `{
		"metadata": {"annotations": {"volume.kubernetes.io/node-expansion-not-required": null}, "resourceVersion": "42"},
		"status": {
			"allocatedResources": {"storage": "2Gi"},
			"allocatedResourceStatuses": {"storage": "ControllerResizeInProgress"},
			"conditions": [{"type": "Resizing", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2026-03-01T11:00:00Z"}]
		}
	}`
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("patch body (-got +want):\n%s", diff.Diff(got, want))
	}
}

// PatchClaim sends ClaimPatch to client as the resizer does, and returns
// the claim the API server answers with; old when there is no patch.
func PatchClaim(ctx context.Context, client kube.Interface, old, updated *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	data, err := ClaimPatch(old, updated)
	if err != nil || data == nil {
		return old, err
	}
	return client.CoreV1().PersistentVolumeClaims(old.Namespace).Patch(ctx, old.Name, types.MergePatchType, data, metav1.PatchOptions{}, "status")
}

// PatchVolume is PatchClaim for a PV.
func PatchVolume(ctx context.Context, client kube.Interface, old, updated *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	data, err := VolumePatch(old, updated)
	if err != nil || data == nil {
		return old, err
	}
	return client.CoreV1().PersistentVolumes().Patch(ctx, old.Name, types.MergePatchType, data, metav1.PatchOptions{})
}
