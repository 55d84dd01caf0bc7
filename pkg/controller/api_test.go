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

package controller

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

func conflictOn(resource string) clienttesting.ReactionFunc {
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		name := action.(clienttesting.PatchAction).GetName()
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: resource}, name,
			errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
}

// TestPatchConflict: a write refused as a conflict names the object, and
// the old object is returned, as if nothing was written.
func TestPatchConflict(t *testing.T) {
	oldClaim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data", ResourceVersion: "1"}}
	oldVolume := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1", ResourceVersion: "1"}}
	client := fake.NewClientset(oldClaim, oldVolume)
	client.PrependReactor("patch", "persistentvolumeclaims", conflictOn("persistentvolumeclaims"))
	client.PrependReactor("patch", "persistentvolumes", conflictOn("persistentvolumes"))
	now := metav1.Now()

	c := &Controller{Config: Config{Client: kubetest.Wrap(client)}, memory: &memory{}}
	gotClaim, err := c.patchClaim(context.Background(), "ns/data", oldClaim, claimstatus.ResizeIntent(oldClaim, resource.MustParse("2Gi"), now))
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "ns/data") {
		t.Errorf("patchClaim error %v, want a conflict that names the claim ns/data", err)
	}
	if gotClaim != oldClaim {
		t.Errorf("patchClaim returned a new object on error, want old")
	}
	gotVolume, err := c.patchVolume(context.Background(), oldVolume, claimstatus.VolumeWithCapacity(oldVolume, resource.MustParse("2Gi"), nil))
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "pv-1") {
		t.Errorf("patchVolume error %v, want a conflict that names the volume pv-1", err)
	}
	if gotVolume != oldVolume {
		t.Errorf("patchVolume returned a new object on error, want old")
	}
	equal(t, "objects remembered after conflicts", c.memory.size(), 0)
}
