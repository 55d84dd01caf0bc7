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

package driver

import (
	"context"
	"maps"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type recorder struct {
	got []ModifyRequest
	err error
}

func (r *recorder) Modify(_ context.Context, req ModifyRequest) error {
	r.got = append(r.got, req)
	return r.err
}

func TestVolumeModifier(t *testing.T) {
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: v1.PersistentVolumeSpec{
		PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "vol-1"}},
	}}
	r := &recorder{err: status.Error(codes.Internal, "boom")}
	m := &VolumeModifier{Driver: r, Timeout: time.Minute}
	params, secrets := map[string]string{"iops": "3000"}, map[string]string{"key": "s3cr3t"}
	if err := m.Modify(context.Background(), pv, params, secrets); status.Code(err) != codes.Internal {
		t.Errorf("error %v, want the driver's Internal", err)
	}
	if len(r.got) != 1 {
		t.Fatalf("%d calls, want 1", len(r.got))
	}
	got := r.got[0]
	if got.VolumeID != "vol-1" || !maps.Equal(got.MutableParameters, params) || !maps.Equal(got.Secrets, secrets) || got.Timeout != time.Minute {
		t.Errorf("request %+v", got)
	}
}

func TestModifyRefusesInTreeVolumes(t *testing.T) {
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-ebs"}, Spec: v1.PersistentVolumeSpec{
		PersistentVolumeSource: v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"}},
	}}
	r := &recorder{}
	err := (&VolumeModifier{Driver: r}).Modify(context.Background(), pv, nil, nil)
	if status.Code(err) != codes.InvalidArgument || len(r.got) != 0 {
		t.Errorf("in-tree volume: error %v after %d calls, want InvalidArgument and no call", err, len(r.got))
	}
}
