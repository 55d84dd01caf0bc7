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

package secrets

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testPV builds a CSI PV named name, with an optional controllerExpandSecretRef.
func testPV(name string, ref *v1.SecretReference) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeSource: v1.PersistentVolumeSource{
				CSI: &v1.CSIPersistentVolumeSource{
					Driver:                    "hostpath.csi.k8s.io",
					VolumeHandle:              "vol-1",
					ControllerExpandSecretRef: ref,
				},
			},
		},
	}
}

// testPVC builds a PVC ns/name with the given annotations (key, value, key, value...).
func testPVC(ns, name string, annotations ...string) *v1.PersistentVolumeClaim {
	pvc := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if len(annotations) > 0 {
		pvc.Annotations = map[string]string{}
		for i := 0; i+1 < len(annotations); i += 2 {
			pvc.Annotations[annotations[i]] = annotations[i+1]
		}
	}
	return pvc
}

// testClass builds a StorageClass with the given parameters (key, value, key, value...).
func testClass(params ...string) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: "fast"},
		Provisioner: "hostpath.csi.k8s.io",
		Parameters:  map[string]string{"type": "ssd"},
	}
	for i := 0; i+1 < len(params); i += 2 {
		sc.Parameters[params[i]] = params[i+1]
	}
	return sc
}

func TestRefFor(t *testing.T) {
	inTree := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-intree"},
		Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"},
		}},
	}
	tests := []struct {
		name    string
		pv      *v1.PersistentVolume
		pvc     *v1.PersistentVolumeClaim
		sc      *storagev1.StorageClass
		want    *Ref
		wantErr []string // substrings of the error; nil means no error
	}{
		{
			name: "PV ref, no class",
			pv:   testPV("pv-1", &v1.SecretReference{Namespace: "vault", Name: "expand"}),
			pvc:  testPVC("ns", "claim"),
			want: &Ref{Namespace: "vault", Name: "expand"},
		},
		{
			name: "PV ref wins over StorageClass parameters",
			pv:   testPV("pv-1", &v1.SecretReference{Namespace: "vault", Name: "expand"}),
			pvc:  testPVC("ns", "claim"),
			sc:   testClass(NameParam, "other", NamespaceParam, "elsewhere"),
			want: &Ref{Namespace: "vault", Name: "expand"},
		},
		{
			name: "PV ref wins over a broken StorageClass",
			pv:   testPV("pv-1", &v1.SecretReference{Namespace: "vault", Name: "expand"}),
			pvc:  testPVC("ns", "claim"),
			sc:   testClass(NameParam, "only-name"),
			want: &Ref{Namespace: "vault", Name: "expand"},
		},
		{
			name:    "PV ref without namespace",
			pv:      testPV("pv-1", &v1.SecretReference{Name: "expand"}),
			pvc:     testPVC("ns", "claim"),
			wantErr: []string{`PersistentVolume "pv-1"`, "controllerExpandSecretRef", `namespace ""`},
		},
		{
			name:    "PV ref without name",
			pv:      testPV("pv-1", &v1.SecretReference{Namespace: "vault"}),
			pvc:     testPVC("ns", "claim"),
			wantErr: []string{`name ""`},
		},
		{
			name: "no ref, no class (or class deleted)",
			pv:   testPV("pv-1", nil),
			pvc:  testPVC("ns", "claim"),
		},
		{
			name: "no ref, class without secret parameters",
			pv:   testPV("pv-1", nil),
			pvc:  testPVC("ns", "claim"),
			sc:   testClass(),
		},
		{
			name: "no ref, class with nil parameters",
			pv:   testPV("pv-1", nil),
			pvc:  testPVC("ns", "claim"),
			sc:   &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "bare"}},
		},
		{
			name: "both parameters empty means not configured",
			pv:   testPV("pv-1", nil),
			pvc:  testPVC("ns", "claim"),
			sc:   testClass(NameParam, "", NamespaceParam, ""),
		},
		{
			name: "literal parameters",
			pv:   testPV("pv-1", nil),
			pvc:  testPVC("ns", "claim"),
			sc:   testClass(NameParam, "expand-secret", NamespaceParam, "kube-system"),
			want: &Ref{Namespace: "kube-system", Name: "expand-secret"},
		},
		{
			name: "templated parameters",
			pv:   testPV("pv-1", nil),
			pvc:  testPVC("ns", "claim", "team", "blue"),
			sc:   testClass(NameParam, "${pvc.name}-${pvc.annotations['team']}", NamespaceParam, "${pvc.namespace}"),
			want: &Ref{Namespace: "ns", Name: "claim-blue"},
		},
		{
			name: "in-tree PV uses the class",
			pv:   inTree,
			pvc:  testPVC("ns", "claim"),
			sc:   testClass(NameParam, "s-${pv.name}", NamespaceParam, "${pvc.namespace}"),
			want: &Ref{Namespace: "ns", Name: "s-pv-intree"},
		},
		{
			name:    "only the name parameter",
			pv:      testPV("pv-1", nil),
			pvc:     testPVC("ns", "claim"),
			sc:      testClass(NameParam, "expand-secret"),
			wantErr: []string{`StorageClass "fast"`, "sets " + NameParam + " but not " + NamespaceParam},
		},
		{
			name:    "only the namespace parameter",
			pv:      testPV("pv-1", nil),
			pvc:     testPVC("ns", "claim"),
			sc:      testClass(NamespaceParam, "kube-system"),
			wantErr: []string{"sets " + NamespaceParam + " but not " + NameParam},
		},
		{
			name:    "only the name parameter, set empty",
			pv:      testPV("pv-1", nil),
			pvc:     testPVC("ns", "claim"),
			sc:      testClass(NameParam, ""),
			wantErr: []string{"sets " + NameParam + " but not " + NamespaceParam},
		},
		{
			name:    "namespace template fails",
			pv:      testPV("pv-1", nil),
			pvc:     testPVC("ns", "claim"),
			sc:      testClass(NameParam, "s", NamespaceParam, "${pvc.name}"),
			wantErr: []string{`StorageClass "fast" parameter ` + NamespaceParam, `"${pvc.name}" is not allowed`},
		},
		{
			name:    "name template fails",
			pv:      testPV("pv-1", nil),
			pvc:     testPVC("ns", "claim", "x", "../kube-system/x"),
			sc:      testClass(NameParam, "${pvc.annotations['x']}", NamespaceParam, "ns"),
			wantErr: []string{`StorageClass "fast" parameter ` + NameParam, `resolved to "../kube-system/x"`, "not a valid Secret name"},
		},
		{
			name:    "one parameter empty",
			pv:      testPV("pv-1", nil),
			pvc:     testPVC("ns", "claim"),
			sc:      testClass(NameParam, "s", NamespaceParam, ""),
			wantErr: []string{`template "" resolved to ""`, "not a valid namespace name"},
		},
		{
			name:    "no PV",
			pvc:     testPVC("ns", "claim"),
			sc:      testClass(NameParam, "s", NamespaceParam, "ns"),
			wantErr: []string{"no PersistentVolume"},
		},
		{
			name:    "no PVC, template needs it",
			pv:      testPV("pv-1", nil),
			sc:      testClass(NameParam, "s", NamespaceParam, "${pvc.namespace}"),
			wantErr: []string{`"${pvc.namespace}" needs a PersistentVolumeClaim`},
		},
		{
			name: "no PVC, template does not need it",
			pv:   testPV("pv-1", nil),
			sc:   testClass(NameParam, "s-${pv.name}", NamespaceParam, "secrets"),
			want: &Ref{Namespace: "secrets", Name: "s-pv-1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RefFor(tc.pv, tc.pvc, tc.sc)
			checkErr(t, err, tc.wantErr)
			if err != nil {
				if got != nil {
					t.Errorf("got ref %v with error", got)
				}
				return
			}
			switch {
			case got == nil && tc.want == nil:
			case got == nil || tc.want == nil || *got != *tc.want:
				t.Errorf("got ref %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRefString(t *testing.T) {
	if got := (Ref{Namespace: "ns", Name: "s"}).String(); got != "ns/s" {
		t.Errorf("String() = %q, want %q", got, "ns/s")
	}
}

// checkErr fails t unless err contains every one of want, or err is nil when want is nil.
func checkErr(t *testing.T, err error, want []string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("got no error, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestModifyRefFor(t *testing.T) {
	annotated := func(pv *v1.PersistentVolume, kv ...string) *v1.PersistentVolume {
		pv.Annotations = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			pv.Annotations[kv[i]] = kv[i+1]
		}
		return pv
	}
	expandRef := &v1.SecretReference{Namespace: "vault", Name: "expand"}
	tests := []struct {
		name string
		pv   *v1.PersistentVolume
		sc   *storagev1.StorageClass
		want *Ref
	}{
		{name: "annotations win", pv: annotated(testPV("pv-1", expandRef), ModifyNameAnnotation, "modify", ModifyNamespaceAnnotation, "keys"),
			want: &Ref{Namespace: "keys", Name: "modify", Use: "volume modification"}},
		{name: "name annotation alone: the expansion ref", pv: annotated(testPV("pv-1", expandRef), ModifyNameAnnotation, "modify"),
			want: &Ref{Namespace: "vault", Name: "expand", Use: "volume modification"}},
		{name: "no annotations: the expansion ref", pv: testPV("pv-1", expandRef),
			want: &Ref{Namespace: "vault", Name: "expand", Use: "volume modification"}},
		{name: "no ref: the StorageClass templates", pv: testPV("pv-1", nil), sc: testClass(NameParam, "${pvc.name}", NamespaceParam, "${pvc.namespace}"),
			want: &Ref{Namespace: "ns", Name: "data", Use: "volume modification"}},
		{name: "nothing configured", pv: testPV("pv-1", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ModifyRefFor(tt.pv, testPVC("ns", "data"), tt.sc)
			if err != nil {
				t.Fatalf("ModifyRefFor: %v", err)
			}
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("ModifyRefFor = %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := ModifyRefFor(nil, nil, nil); err == nil {
		t.Error("no PV: no error")
	}
}
