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
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// testPV is testobj's PV name of ns/claim, handle vol-1, with an optional
// controllerExpandSecretRef.
func testPV(name string, ref *v1.SecretReference) *v1.PersistentVolume {
	pvc := testobj.Claim("ns", "claim", "1Gi", "1Gi", testobj.VolumeName(name))
	return testobj.Volume(pvc, "hostpath.csi.k8s.io", "1Gi", testobj.Handle("vol-1"), testobj.ExpandSecret(ref))
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

// testClass is testobj's StorageClass fast with type=ssd and the given
// parameters (key, value, key, value...).
func testClass(params ...string) *storagev1.StorageClass {
	sc := testobj.StorageClass("fast", "hostpath.csi.k8s.io", map[string]string{"type": "ssd"})
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

func TestResolveNamespace(t *testing.T) {
	pv := testPV("pv-1", nil)
	pvc := testPVC("team-a", "data", "ns", "kube-system")
	tests := []struct {
		name    string
		tmpl    string
		noPVC   bool
		want    string
		wantErr []string
	}{
		{name: "literal", tmpl: "secrets", want: "secrets"},
		{name: "pvc namespace", tmpl: "${pvc.namespace}", want: "team-a"},
		{name: "pv name", tmpl: "${pv.name}", want: "pv-1"},
		{name: "mixed", tmpl: "s-${pvc.namespace}-${pv.name}", want: "s-team-a-pv-1"},
		{name: "pvc name not allowed", tmpl: "${pvc.name}",
			wantErr: []string{`template "${pvc.name}"`, `token "${pvc.name}" is not allowed in a namespace template`, "${pv.name}", "${pvc.namespace}"}},
		{name: "annotation not allowed", tmpl: "${pvc.annotations['ns']}",
			wantErr: []string{`token "${pvc.annotations['ns']}" is not allowed in a namespace template`}},
		{name: "unknown token", tmpl: "${pod.namespace}", wantErr: []string{`"${pod.namespace}" is not allowed`}},
		{name: "resolves to a subdomain, not a label", tmpl: "a.${pvc.namespace}",
			wantErr: []string{`template "a.${pvc.namespace}" resolved to "a.team-a", which is not a valid namespace name`}},
		{name: "upper case", tmpl: "Secrets", wantErr: []string{`resolved to "Secrets"`, "RFC 1123 label"}},
		{name: "path traversal", tmpl: "../kube-system", wantErr: []string{`resolved to "../kube-system"`}},
		{name: "empty", tmpl: "", wantErr: []string{`resolved to ""`}},
		{name: "too long", tmpl: strings.Repeat("a", 64), wantErr: []string{"must be no more than 63"}},
		{name: "no PVC", tmpl: "${pvc.namespace}", noPVC: true,
			wantErr: []string{"needs a PersistentVolumeClaim"}},
		{name: "unterminated", tmpl: "${pvc.namespace", wantErr: []string{`unterminated token "${pvc.namespace" at byte 0`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := pvc
			if tc.noPVC {
				c = nil
			}
			got, err := resolve(tc.tmpl, pv, c, true)
			checkErr(t, err, tc.wantErr)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResolveName(t *testing.T) {
	pv := testPV("pv-1", nil)
	long := strings.Repeat("x", 300000)
	pvc := testPVC("team-a", "data",
		"team", "blue",
		"example.com/owner", "alice",
		"traversal", "../kube-system/x",
		"slash", "kube-system/x",
		"dots", "a..b",
		"dotdot", "..",
		"upper", "Blue",
		"empty", "",
		"unicode", "Ω-секрет",
		"nul", "a\x00b",
		"token", "${pv.name}",
		"long", long,
	)
	tests := []struct {
		name    string
		tmpl    string
		want    string
		wantErr []string
	}{
		// Good templates.
		{name: "literal", tmpl: "expand-secret", want: "expand-secret"},
		{name: "literal subdomain", tmpl: "expand.secret.v1", want: "expand.secret.v1"},
		{name: "pv name", tmpl: "${pv.name}", want: "pv-1"},
		{name: "pvc namespace", tmpl: "${pvc.namespace}", want: "team-a"},
		{name: "pvc name", tmpl: "${pvc.name}-expand", want: "data-expand"},
		{name: "annotation", tmpl: "${pvc.annotations['team']}", want: "blue"},
		{name: "prefixed annotation key", tmpl: "${pvc.annotations['example.com/owner']}-key", want: "alice-key"},
		{name: "all tokens", tmpl: "${pv.name}.${pvc.namespace}.${pvc.name}.${pvc.annotations['team']}", want: "pv-1.team-a.data.blue"},
		{name: "repeated token", tmpl: "${pvc.name}${pvc.name}", want: "datadata"},

		// Bad or malicious templates and values.
		{name: "unknown token", tmpl: "${pod.name}",
			wantErr: []string{`template "${pod.name}"`, `unknown token "${pod.name}"`, "${pvc.annotations['<key>']}"}},
		{name: "empty token", tmpl: "a${}", wantErr: []string{`unknown token "${}"`}},
		{name: "token with spaces", tmpl: "${ pv.name }", wantErr: []string{`unknown token "${ pv.name }"`}},
		{name: "annotation token without quotes", tmpl: "${pvc.annotations[team]}", wantErr: []string{"unknown token"}},
		{name: "annotation token with double quotes", tmpl: `${pvc.annotations["team"]}`, wantErr: []string{"unknown token"}},
		{name: "annotation token half", tmpl: "${pvc.annotations['}", wantErr: []string{"unknown token"}},
		{name: "missing annotation", tmpl: "${pvc.annotations['nope']}",
			wantErr: []string{`token "${pvc.annotations['nope']}"`, `PersistentVolumeClaim "team-a/data" has no annotation "nope"`}},
		{name: "annotation path traversal", tmpl: "${pvc.annotations['traversal']}",
			wantErr: []string{`resolved to "../kube-system/x", which is not a valid Secret name`}},
		{name: "annotation with slash", tmpl: "${pvc.annotations['slash']}", wantErr: []string{`resolved to "kube-system/x"`}},
		{name: "annotation with double dot", tmpl: "${pvc.annotations['dots']}", wantErr: []string{`resolved to "a..b"`}},
		{name: "annotation is ..", tmpl: "${pvc.annotations['dotdot']}", wantErr: []string{`resolved to ".."`}},
		{name: "annotation upper case", tmpl: "${pvc.annotations['upper']}", wantErr: []string{`resolved to "Blue"`}},
		{name: "annotation empty", tmpl: "${pvc.annotations['empty']}", wantErr: []string{`resolved to ""`}},
		{name: "annotation unicode", tmpl: "${pvc.annotations['unicode']}", wantErr: []string{`resolved to "Ω-секрет"`}},
		{name: "annotation NUL byte", tmpl: "${pvc.annotations['nul']}", wantErr: []string{`resolved to "a\x00b"`}},
		{name: "annotation holding a token is not expanded again", tmpl: "${pvc.annotations['token']}",
			wantErr: []string{`resolved to "${pv.name}"`}},
		{name: "very long annotation", tmpl: "${pvc.annotations['long']}",
			wantErr: []string{"...(300000 bytes)", "must be no more than 253"}},
		{name: "literal traversal", tmpl: "../${pvc.name}", wantErr: []string{`resolved to "../data"`}},
		{name: "nested token", tmpl: "${${pv.name}}", wantErr: []string{`unknown token "${${pv.name}"`}},
		{name: "nested annotation token", tmpl: "${pvc.annotations['${pvc.name}']}", wantErr: []string{"unknown token"}},
		{name: "unterminated", tmpl: "s-${pv.name", wantErr: []string{`unterminated token "${pv.name" at byte 2`}},
		{name: "lone dollar-brace", tmpl: "${", wantErr: []string{`unterminated token "${"`}},
		{name: "bare dollar", tmpl: "$pv.name", wantErr: []string{`"$" at byte 0 does not start a token`}},
		{name: "trailing dollar", tmpl: "secret$", wantErr: []string{`"$" at byte 6 does not start a token`}},
		{name: "double dollar", tmpl: "$${pv.name}", wantErr: []string{"does not start a token"}},
		{name: "unicode literal", tmpl: "sécret", wantErr: []string{`resolved to "sécret"`}},
		{name: "invalid UTF-8", tmpl: "s\xffx", wantErr: []string{`resolved to "s\xffx"`}},
		{name: "too long literal", tmpl: strings.Repeat("a", 254), wantErr: []string{"must be no more than 253"}},
		{name: "very long template", tmpl: strings.Repeat("${pvc.name}", 30000), wantErr: []string{"...(330000 bytes)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolve(tc.tmpl, pv, pvc, false)
			checkErr(t, err, tc.wantErr)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if err != nil && len(err.Error()) > maxErrorLen {
				t.Errorf("error is %d bytes long, want at most %d", len(err.Error()), maxErrorLen)
			}
		})
	}
}

func TestResolveNameWithoutPVC(t *testing.T) {
	pv := testPV("pv-1", nil)
	for _, tmpl := range []string{"${pvc.name}", "${pvc.namespace}", "${pvc.annotations['a']}"} {
		if _, err := resolve(tmpl, pv, nil, false); err == nil || !strings.Contains(err.Error(), "needs a PersistentVolumeClaim") {
			t.Errorf("resolve(%q) without PVC: got error %v", tmpl, err)
		}
	}
}

func TestQuote(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "short", in: "abc", want: `"abc"`},
		{name: "exactly the limit", in: strings.Repeat("a", maxShown), want: `"` + strings.Repeat("a", maxShown) + `"`},
		{name: "cut", in: strings.Repeat("a", maxShown+1), want: `"` + strings.Repeat("a", maxShown) + `"...(101 bytes)`},
		// 99 ASCII bytes then a 2-byte rune across the limit: cut before the rune.
		{name: "cut on a rune boundary", in: strings.Repeat("a", maxShown-1) + "éé", want: `"` + strings.Repeat("a", maxShown-1) + `"...(103 bytes)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := quote(tc.in); got != tc.want {
				t.Errorf("quote() = %s, want %s", got, tc.want)
			}
		})
	}
}

// maxErrorLen bounds the length of a template error, whatever the input: errors go into events.
const maxErrorLen = 4096

// FuzzResolveTemplate feeds arbitrary templates and annotation values through RefFor. It must
// never panic, keep its errors short, and on success return a valid namespace and Secret name.
func FuzzResolveTemplate(f *testing.F) {
	f.Add("${pvc.namespace}", "${pvc.name}-${pvc.annotations['x']}", "blue")
	f.Add("secrets", "${pvc.annotations['x']}", "../kube-system/x")
	f.Add("${pv.name}", "${${pvc.name}}", "")
	f.Add("${pvc.namespace", "s-${", "Ω")
	f.Add("$pvc.namespace", "$", "a..b")
	f.Add("${pvc.name}", "${pvc.annotations['x']}", strings.Repeat("a", 300))
	f.Fuzz(func(t *testing.T, nsTmpl, nameTmpl, annotation string) {
		pv := testPV("pv-1", nil)
		pvc := testPVC("team-a", "data", "x", annotation)
		sc := testClass(NamespaceParam, nsTmpl, NameParam, nameTmpl)
		ref, err := RefFor(pv, pvc, sc)
		if err != nil {
			if ref != nil {
				t.Fatalf("got ref %v with error %v", ref, err)
			}
			if len(err.Error()) > maxErrorLen {
				t.Fatalf("error is %d bytes long", len(err.Error()))
			}
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error is not valid UTF-8: %q", err)
			}
			return
		}
		if ref == nil {
			if nsTmpl != "" || nameTmpl != "" {
				t.Fatalf("no ref and no error for namespace %q, name %q", nsTmpl, nameTmpl)
			}
			return
		}
		if errs := validation.IsDNS1123Label(ref.Namespace); len(errs) > 0 {
			t.Fatalf("namespace %q is invalid: %v", ref.Namespace, errs)
		}
		if errs := validation.IsDNS1123Subdomain(ref.Name); len(errs) > 0 {
			t.Fatalf("name %q is invalid: %v", ref.Name, errs)
		}
	})
}
