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
	"compress/gzip"
	"fmt"
	"io"
	"path"
	"strings"
)

// untar reads the regular files of an archive by name.
func untar(r io.Reader) (map[string][]byte, error) {
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", h.Name, err)
		}
		files[path.Clean(strings.TrimPrefix(h.Name, "./"))] = data
	}
}

// readLayer applies a layer's /etc/passwd and /etc/group, or their
// whiteouts, to etc.
func readLayer(data []byte, mediaType string, etc map[string][]byte) error {
	var r io.Reader = bytes.NewReader(data)
	if strings.HasSuffix(mediaType, "gzip") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/"))
		dir, base := path.Split(name)
		if base == ".wh..wh..opq" && dir == "etc/" {
			clear(etc)
			continue
		}
		if wh, ok := strings.CutPrefix(base, ".wh."); ok {
			delete(etc, dir+wh)
			continue
		}
		if name != "etc/passwd" && name != "etc/group" {
			continue
		}
		if h.Typeflag != tar.TypeReg {
			delete(etc, name)
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		etc[name] = b
	}
}
