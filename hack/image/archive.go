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

package main

import (
	"encoding/json"
	"io"
	"strings"
	"time"
)

// WriteArchive writes img as an OCI image layout in a tar archive (what
// skopeo calls oci-archive), dated created: the archive's bytes, too,
// depend only on the image.
func (img *Image) WriteArchive(w io.Writer, created time.Time) error {
	files := []file{
		{name: "blobs/", mode: 0o755},
		{name: "blobs/sha256/", mode: 0o755},
		{name: "index.json", mode: 0o644, data: img.IndexJSON},
		{name: "oci-layout", mode: 0o644, data: []byte(`{"imageLayoutVersion":"1.0.0"}`)},
	}
	for d, data := range img.Blobs {
		files = append(files, file{name: "blobs/sha256/" + strings.TrimPrefix(d, "sha256:"), mode: 0o644, data: data})
	}
	return writeTar(w, files, created.UTC().Truncate(time.Second))
}

// manifest decodes the manifest blob of digest d.
func (img *Image) manifest(d string) (manifest, error) {
	var m manifest
	err := json.Unmarshal(img.Blobs[d], &m)
	return m, err
}
