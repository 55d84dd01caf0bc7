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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// file is one entry of a layer.
type file struct {
	name     string // relative, no leading slash; a directory ends in "/"
	mode     int64
	uid, gid int
	data     []byte
}

// baseFiles is what the resizer needs of gcr.io/distroless/static (which
// the Dockerfile's image is based on, as upstream's), written here because
// base images cannot be pulled where this is built:
//
//   - /etc/passwd and /etc/group with root, nobody and nonroot (65532), so
//     that the user, root by default or nonroot when a securityContext says
//     runAsUser 65532, has a name and a home (the runtime sets HOME from
//     /etc/passwd; client-go looks for ~/.kube only without in-cluster
//     config);
//   - /root and /home/nonroot, the users' homes, mode 0700 as in
//     distroless;
//   - /tmp, mode 1777 (klog writes there only when asked to log to files;
//     with a read-only root file system, mount an emptyDir to use it);
//   - /etc/nsswitch.conf, "hosts: files dns", so that Go's resolver reads
//     /etc/hosts before DNS, as glibc-based images do.
//
// Left out on purpose:
//
//   - CA certificates (/etc/ssl/certs/ca-certificates.crt): the resizer
//     talks to the API server with the service account's CA
//     (/var/run/secrets/kubernetes.io/serviceaccount/ca.crt) or the
//     kubeconfig's, to the driver over a unix socket, and serves metrics
//     over plain HTTP. A bundle copied from the build machine would also
//     make the digest depend on that machine. A kubeconfig whose server
//     needs public CAs (none given in it) would not work: mount a bundle
//     and set SSL_CERT_FILE.
//   - tzdata: nothing in the resizer loads a time zone; logs are in UTC.
//   - a shell, libc or any other binary, and the dpkg status files.
var baseFiles = []file{
	{name: "etc/", mode: 0o755},
	{name: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n")},
	{name: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
	{name: "etc/passwd", mode: 0o644, data: []byte(
		"root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
	{name: "home/", mode: 0o755},
	{name: "home/nonroot/", mode: 0o700, uid: nonrootID, gid: nonrootID},
	{name: "root/", mode: 0o700},
	{name: "tmp/", mode: 0o1777},
}

// layer is a layer's blob and its uncompressed digest.
type layer struct {
	blob   []byte
	diffID string
}

// makeLayers makes the layers of spec: the base first, then one per
// binary. They are compressed at once: gzip is most of the time this takes.
func makeLayers(spec Spec, mtime time.Time) ([]layer, error) {
	layers := make([]layer, len(spec.Binaries)+1)
	errs := make([]error, len(layers))
	var wg sync.WaitGroup
	for i := range layers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files := baseFiles
			if i > 0 {
				files = []file{{name: strings.TrimPrefix(binaryPath, "/"), mode: 0o755, data: spec.Binaries[i-1].Data}}
			}
			layers[i], errs[i] = makeLayer(files, mtime)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return layers, nil
}

// makeLayer returns the gzipped tar of files and the digest of the tar.
func makeLayer(files []file, mtime time.Time) (layer, error) {
	var raw bytes.Buffer
	if err := writeTar(&raw, files, mtime); err != nil {
		return layer{}, err
	}
	var gz bytes.Buffer
	// A zero Header: no name, no mtime, OS "unknown".
	zw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return layer{}, err
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return layer{}, err
	}
	if err := zw.Close(); err != nil {
		return layer{}, err
	}
	return layer{blob: gz.Bytes(), diffID: digest(raw.Bytes())}, nil
}

// writeTar writes files sorted by name, in the USTAR format (no PAX
// records, no access or change times), with numeric owners only.
func writeTar(w io.Writer, files []file, mtime time.Time) error {
	sorted := append([]file(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	tw := tar.NewWriter(w)
	for _, f := range sorted {
		h := &tar.Header{
			Name:    f.name,
			Mode:    f.mode,
			Uid:     f.uid,
			Gid:     f.gid,
			ModTime: mtime,
			Format:  tar.FormatUSTAR,
		}
		if strings.HasSuffix(f.name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return tw.Close()
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
