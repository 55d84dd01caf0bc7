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

package sidecar

import (
	"context"
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// servesAttributeClasses makes the fake API server's discovery list
// VolumeAttributesClasses.
func servesAttributeClasses(client *fake.Clientset) {
	client.Resources = append(client.Resources, &metav1.APIResourceList{
		GroupVersion: attributeClassesGroupVersion,
		APIResources: []metav1.APIResource{{Name: "storageclasses"}, {Name: attributeClassesResource}},
	})
}

func TestModification(t *testing.T) {
	modifying := &connectedDriver{name: testDriver, caps: driver.Capabilities{ControllerModify: true}}
	tests := []struct {
		name    string
		flags   []string
		driver  *connectedDriver
		api     func(*fake.Clientset)
		want    bool
		wantWhy string
		wantErr string
	}{
		{name: "on", driver: modifying, api: servesAttributeClasses, want: true},
		{name: "gate off", flags: []string{"--feature-gates=VolumeAttributesClass=false"}, driver: modifying,
			api: servesAttributeClasses, wantWhy: "feature gate VolumeAttributesClass is off"},
		{name: "driver without MODIFY_VOLUME", driver: &connectedDriver{name: testDriver}, api: servesAttributeClasses,
			wantWhy: "does not advertise the controller capability MODIFY_VOLUME"},
		{name: "group version not served", driver: modifying, api: func(*fake.Clientset) {},
			wantWhy: "API server does not serve storage.k8s.io/v1 volumeattributesclasses"},
		{name: "group version served without the resource", driver: modifying,
			api: func(c *fake.Clientset) {
				c.Resources = []*metav1.APIResourceList{{GroupVersion: attributeClassesGroupVersion, APIResources: []metav1.APIResource{{Name: "storageclasses"}}}}
			},
			wantWhy: "API server does not serve"},
		{name: "discovery fails", driver: modifying,
			api: func(c *fake.Clientset) {
				c.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("connection refused")
				})
			},
			wantErr: "discover storage.k8s.io/v1 volumeattributesclasses: connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			tc.api(client)
			o := newOptions(t, csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver}), tc.flags...)
			got, why, err := modification(o, tc.driver, client.Discovery())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("modification() error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || !strings.Contains(why, tc.wantWhy) {
				t.Errorf("modification() = %v, %q; want %v, %q", got, why, tc.want, tc.wantWhy)
			}
			if got && why != "" || !got && why == "" {
				t.Errorf("modification() = %v with reason %q: a reason is given exactly when it is off", got, why)
			}
		})
	}
}

// TestRunModifies: a driver that only modifies volumes (no expansion at
// all) runs, and a claim reaches the class its spec names.
func TestRunModifies(t *testing.T) {
	d := csidriver.StartForTest(t, csidriver.Config{DriverName: testDriver, ControllerModify: true})
	pvc := claim("data", "1Gi", "1Gi")
	pvc.Spec.VolumeAttributesClassName = ptr("gold")
	gold := &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: "gold"}, DriverName: testDriver,
		Parameters: map[string]string{"iops": "3000"}}
	client := newFakeAPI(pvc, volume(pvc, "1Gi", testDriver), gold)
	servesAttributeClasses(client)
	s := startSidecar(t, newOptions(t, d), fakeClients(client))

	ctx := context.Background()
	waitFor(t, "the claim to reach class gold", func() (bool, error) {
		got, err := getClaim(ctx, client, "data")
		if err != nil {
			return false, err
		}
		cur := got.Status.CurrentVolumeAttributesClassName
		return cur != nil && *cur == "gold" && got.Status.ModifyVolumeStatus == nil, nil
	})
	pv, err := getVolume(ctx, client, "pv-data")
	if err != nil {
		t.Fatal(err)
	}
	if c := pv.Spec.VolumeAttributesClassName; c == nil || *c != "gold" {
		t.Errorf("PV class = %v, want gold", c)
	}
	calls := d.ModifyCalls()
	if len(calls) != 1 || calls[0].VolumeID != "vol-data" || calls[0].MutableParameters["iops"] != "3000" {
		t.Errorf("ControllerModifyVolume calls = %+v, want one for vol-data with iops=3000", calls)
	}
	if got := d.Calls(); len(got) != 0 {
		t.Errorf("ControllerExpandVolume calls = %d, want none", len(got))
	}
	s.cancel()
	if err := s.wait(waitTimeout); err != nil {
		t.Errorf("run after cancel = %v, want nil", err)
	}
}

// TestRunModificationOffWatchesNoClasses: with modification off the
// resizer never lists VolumeAttributesClasses (it may lack the RBAC), and a
// claim's class change is left alone.
func TestRunModificationOffWatchesNoClasses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   csidriver.Config
		flags []string
	}{
		{name: "gate off", cfg: csidriver.Config{DriverName: testDriver, ControllerExpand: true, ControllerModify: true},
			flags: []string{"--feature-gates=VolumeAttributesClass=false"}},
		{name: "driver without MODIFY_VOLUME", cfg: csidriver.Config{DriverName: testDriver, ControllerExpand: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := csidriver.StartForTest(t, tc.cfg)
			objs := resizeObjects(testDriver)
			objs[0].(*v1.PersistentVolumeClaim).Spec.VolumeAttributesClassName = ptr("gold")
			gold := &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: "gold"}, DriverName: testDriver}
			client := newFakeAPI(append(objs, gold)...)
			servesAttributeClasses(client)
			listed := make(chan struct{}, 1)
			client.PrependReactor("list", "volumeattributesclasses", func(clienttesting.Action) (bool, runtime.Object, error) {
				listed <- struct{}{}
				return false, nil, nil
			})
			s := startSidecar(t, newOptions(t, d, tc.flags...), fakeClients(client))
			waitClaimFinished(t, client, "data", "2Gi")
			select {
			case <-listed:
				t.Error("VolumeAttributesClasses were listed with modification off")
			default:
			}
			if got, _ := getClaim(context.Background(), client, "data"); got.Status.CurrentVolumeAttributesClassName != nil || got.Status.ModifyVolumeStatus != nil {
				t.Errorf("claim status = %+v, want no class recorded", got.Status)
			}
			if n := len(d.ModifyCalls()); n != 0 {
				t.Errorf("ControllerModifyVolume calls = %d, want none", n)
			}
			s.cancel()
			_ = s.wait(waitTimeout)
		})
	}
}

func ptr[T any](v T) *T { return &v }
