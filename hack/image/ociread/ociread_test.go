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

package ociread

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"
)

const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group = "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\nsocket:x:2000:nonroot,other\n"
)

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		user string
		want Identity
	}{
		{"", Identity{User: "", UID: 0, GID: 0}},
		{"0", Identity{User: "0", UID: 0, GID: 0}},
		{"0:0", Identity{User: "0:0", UID: 0, GID: 0}},
		{"root", Identity{User: "root", UID: 0, GID: 0}},
		{"65532", Identity{User: "65532", UID: 65532, GID: 65532, Groups: []uint32{2000}}},
		{"nonroot", Identity{User: "nonroot", UID: 65532, GID: 65532, Groups: []uint32{2000}}},
		{"65532:65532", Identity{User: "65532:65532", UID: 65532, GID: 65532, Groups: []uint32{2000}}},
		{"nonroot:socket", Identity{User: "nonroot:socket", UID: 65532, GID: 2000}},
		// A uid without an entry: group 0, as runc.
		{"1234", Identity{User: "1234", UID: 1234, GID: 0}},
		{"1234:5678", Identity{User: "1234:5678", UID: 1234, GID: 5678}},
	} {
		got, err := Resolve(tc.user, []byte(passwd), []byte(group))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Resolve(%q) = %+v, %v; want %+v", tc.user, got, err, tc.want)
		}
	}
	for _, bad := range []string{"nosuchuser", "nonroot:nosuchgroup"} {
		if got, err := Resolve(bad, []byte(passwd), []byte(group)); err == nil {
			t.Errorf("Resolve(%q) = %+v, no error", bad, got)
		}
	}
}

// tarOf is a tar of name → contents.
func tarOf(t *testing.T, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadIdentity reads a single-platform layout whose manifest has no
// platform, with uncompressed layers, the second replacing /etc/passwd
// (the resizer's own image is read by hack/image's tests).
func TestReadIdentity(t *testing.T) {
	var files [][2]string
	add := func(v any) string {
		data, ok := v.([]byte)
		if !ok {
			var err error
			if data, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		sum := sha256.Sum256(data)
		files = append(files, [2]string{"blobs/sha256/" + hex.EncodeToString(sum[:]), string(data)})
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	layer1 := add(tarOf(t, [2]string{"etc/passwd", "root:x:0:0::/:/x\n"}, [2]string{"etc/group", group}))
	layer2 := add(tarOf(t, [2]string{"./etc/passwd", passwd}))
	cfg := add(map[string]any{"config": map[string]any{"User": "nonroot"}})
	m := add(map[string]any{
		"schemaVersion": 2,
		"config":        map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cfg},
		"layers": []any{
			map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": layer1},
			map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": layer2},
		},
	})
	index, err := json.Marshal(map[string]any{"schemaVersion": 2, "manifests": []any{
		map[string]any{"mediaType": mediaTypeOCIManifest, "digest": m},
	}})
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, [2]string{"index.json", string(index)}, [2]string{"oci-layout", `{"imageLayoutVersion":"1.0.0"}`})
	got, err := ReadIdentity(tarOf(t, files...), "linux/amd64")
	want := Identity{User: "nonroot", UID: 65532, GID: 65532, Groups: []uint32{2000}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadIdentity = %+v, %v; want %+v", got, err, want)
	}
	if _, err := ReadIdentity(tarOf(t, [2]string{"oci-layout", "{}"}), ""); err == nil {
		t.Error("no index.json: no error")
	}
}
