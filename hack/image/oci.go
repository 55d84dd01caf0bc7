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
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// Media types of the OCI image specification (v1.1).
const (
	mediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	mediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	mediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// Annotations and labels.
const (
	annotationRefName       = "org.opencontainers.image.ref.name"
	annotationContainerdRef = "io.containerd.image.name"
	labelSource             = "org.opencontainers.image.source"
	labelRevision           = "org.opencontainers.image.revision"
	labelVersion            = "org.opencontainers.image.version"
	labelLicenses           = "org.opencontainers.image.licenses"
	labelTitle              = "org.opencontainers.image.title"
	labelDescription        = "org.opencontainers.image.description"
	labelCreated            = "org.opencontainers.image.created"
)

// The user the resizer runs as: distroless' "nonroot", which the chart and
// deploy/kubernetes also name (runAsUser and runAsGroup 65532).
const (
	nonrootID   = 65532
	user        = "65532:65532"
	binaryPath  = "/csi-resizer"
	licenses    = "Apache-2.0"
	title       = "csi-resizer"
	description = "CSI external-resizer sidecar"
)

// Platform is an OCI platform.
type Platform struct {
	OS      string `json:"os"`
	Arch    string `json:"architecture"`
	Variant string `json:"variant,omitempty"`
}

func (p Platform) String() string {
	s := p.OS + "/" + p.Arch
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}

// ParsePlatform parses os/arch. arm64 gets the variant v8, as distroless
// and Docker name it, so that clients that match the variant find it.
func ParsePlatform(s string) (Platform, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return Platform{}, fmt.Errorf("platform %q: want os/arch", s)
	}
	p := Platform{OS: parts[0], Arch: parts[1]}
	if len(parts) == 3 {
		p.Variant = parts[2]
	} else if p.Arch == "arm64" {
		p.Variant = "v8"
	}
	return p, nil
}

// Binary is the resizer built for one platform.
type Binary struct {
	Platform Platform
	Data     []byte
}

// Spec is everything the image is made of. The same Spec gives the same
// bytes, hence the same digests.
type Spec struct {
	// Name is the image reference the archive names, repository:tag.
	Name string
	// Version, Revision and Source are the labels'
	// org.opencontainers.image.version, .revision and .source.
	Version, Revision, Source string
	// Created is the image's creation time and the mtime of every file in
	// it: the commit's time, not the build's, for a reproducible digest.
	Created time.Time
	// Binaries are the platforms of the image, in the index's order.
	Binaries []Binary
}

// Image is a built image: its blobs and index.json.
type Image struct {
	// Index is the digest of the image index that lists one manifest per
	// platform: the digest the registry reports for the pushed image.
	Index Descriptor
	// Manifests are the platforms' manifests, in the index's order.
	Manifests []Descriptor
	// Blobs are the blobs by digest.
	Blobs map[string][]byte
	// IndexJSON is the layout's index.json.
	IndexJSON []byte
}

// Descriptor is an OCI content descriptor.
type Descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    *Platform         `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type index struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Manifests     []Descriptor      `json:"manifests"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

type manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        Descriptor   `json:"config"`
	Layers        []Descriptor `json:"layers"`
}

// config is the image configuration. It has no Cmd and no Env: the
// entrypoint is the binary itself, run without a shell, and a static Go
// binary that execs nothing needs no PATH (HOME comes from /etc/passwd,
// which the runtime reads).
type config struct {
	Created      string    `json:"created"`
	Architecture string    `json:"architecture"`
	Variant      string    `json:"variant,omitempty"`
	OS           string    `json:"os"`
	Config       runConfig `json:"config"`
	RootFS       rootFS    `json:"rootfs"`
	History      []history `json:"history"`
}

type runConfig struct {
	User       string            `json:"User"`
	Entrypoint []string          `json:"Entrypoint"`
	WorkingDir string            `json:"WorkingDir"`
	Labels     map[string]string `json:"Labels"`
}

type rootFS struct {
	Type    string   `json:"type"`
	DiffIDs []string `json:"diff_ids"`
}

type history struct {
	Created   string `json:"created"`
	CreatedBy string `json:"created_by"`
	Comment   string `json:"comment,omitempty"`
}

// file is one entry of a layer.
type file struct {
	name     string // relative, no leading slash; a directory ends in "/"
	mode     int64
	uid, gid int
	data     []byte
}

// baseFiles is what the resizer needs of gcr.io/distroless/static:nonroot
// (which the Dockerfile's image is based on), written here because base
// images cannot be pulled where this is built:
//
//   - /etc/passwd and /etc/group with root, nobody and nonroot (65532), so
//     that the user has a name and a home (the runtime sets HOME from
//     /etc/passwd; client-go looks for ~/.kube only without in-cluster
//     config);
//   - /home/nonroot, nonroot's home, mode 0700 as in distroless;
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
	{name: "tmp/", mode: 0o1777},
}

// layer is a layer's blob and its uncompressed digest.
type layer struct {
	blob   []byte
	diffID string
}

// Build makes the image of spec. It is a pure function of spec: files
// are sorted, owned by numeric ids without names, dated spec.Created, and
// gzip's header has no name and no time.
func Build(spec Spec) (*Image, error) {
	if len(spec.Binaries) == 0 {
		return nil, fmt.Errorf("no binaries")
	}
	if spec.Name == "" {
		return nil, fmt.Errorf("no image name")
	}
	created := spec.Created.UTC().Truncate(time.Second)
	createdText := created.Format(time.RFC3339)
	seen := map[Platform]bool{}
	for _, b := range spec.Binaries {
		if seen[b.Platform] {
			return nil, fmt.Errorf("platform %s given twice", b.Platform)
		}
		seen[b.Platform] = true
	}

	img := &Image{Blobs: map[string][]byte{}}
	add := func(mediaType string, data []byte) Descriptor {
		d := digest(data)
		img.Blobs[d] = data
		return Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(data))}
	}

	// The binaries' layers are compressed at once: gzip is most of the
	// time this takes.
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
			layers[i], errs[i] = makeLayer(files, created)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	base := layers[0]

	labels := map[string]string{
		labelSource:      spec.Source,
		labelRevision:    spec.Revision,
		labelVersion:     spec.Version,
		labelLicenses:    licenses,
		labelTitle:       title,
		labelDescription: description,
		labelCreated:     createdText,
	}
	for i, b := range spec.Binaries {
		bin := layers[i+1]
		cfg := config{
			Created:      createdText,
			Architecture: b.Platform.Arch,
			Variant:      b.Platform.Variant,
			OS:           b.Platform.OS,
			Config: runConfig{
				User:       user,
				Entrypoint: []string{binaryPath},
				WorkingDir: "/",
				Labels:     labels,
			},
			RootFS: rootFS{Type: "layers", DiffIDs: []string{base.diffID, bin.diffID}},
			History: []history{
				{Created: createdText, CreatedBy: "hack/image: /etc/passwd, /etc/group, /etc/nsswitch.conf, /home/nonroot, /tmp", Comment: "what the resizer needs of distroless/static:nonroot"},
				{Created: createdText, CreatedBy: "hack/image: " + binaryPath, Comment: "make build for " + b.Platform.String()},
			},
		}
		cfgJSON, err := json.Marshal(cfg)
		if err != nil {
			return nil, err
		}
		m := manifest{
			SchemaVersion: 2,
			MediaType:     mediaTypeManifest,
			Config:        add(mediaTypeConfig, cfgJSON),
			Layers:        []Descriptor{add(mediaTypeLayer, base.blob), add(mediaTypeLayer, bin.blob)},
		}
		mJSON, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		d := add(mediaTypeManifest, mJSON)
		p := b.Platform
		d.Platform = &p
		img.Manifests = append(img.Manifests, d)
	}

	// The image index is a blob, so that its digest is the one a registry
	// reports once it is pushed as is (skopeo copy --all, crane push
	// --index); index.json only points at it, under the image's name.
	annotations := map[string]string{
		labelSource:   spec.Source,
		labelRevision: spec.Revision,
		labelVersion:  spec.Version,
		labelCreated:  createdText,
	}
	idxJSON, err := json.Marshal(index{SchemaVersion: 2, MediaType: mediaTypeIndex, Manifests: img.Manifests, Annotations: annotations})
	if err != nil {
		return nil, err
	}
	img.Index = add(mediaTypeIndex, idxJSON)
	top := img.Index
	top.Annotations = map[string]string{annotationRefName: spec.Name, annotationContainerdRef: spec.Name}
	img.IndexJSON, err = json.Marshal(index{SchemaVersion: 2, MediaType: mediaTypeIndex, Manifests: []Descriptor{top}})
	if err != nil {
		return nil, err
	}
	return img, nil
}

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

// manifest decodes the manifest blob of digest d.
func (img *Image) manifest(d string) (manifest, error) {
	var m manifest
	err := json.Unmarshal(img.Blobs[d], &m)
	return m, err
}
