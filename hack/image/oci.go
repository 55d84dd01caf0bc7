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
	"fmt"
	"strings"
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

// user is the image's user, root, written "0" as upstream's image has it:
// the external-resizer's Dockerfile adds no USER to gcr.io/distroless/static
// (the root variant), whose config says User "0" (and WorkingDir "/").
// Root, because a CSI driver running as root creates its socket
// srwxr-xr-x root, and connect(2) needs write permission on it: a
// resizer of another uid could not open the socket of a driver that
// upstream's resizer opens, and swapping the image must change nothing.
// "0" rather than an empty User (which every runtime also runs as root):
// the same config as upstream's, and an explicit root that tools reading
// the config (and kubelet's runAsNonRoot check) need not guess.
//
// Running as distroless' "nonroot" stays possible where the driver's
// socket lets 65532 connect (the chart's README says how): /etc/passwd and
// /etc/group name it, and its home is there (see baseFiles).
const (
	user        = "0"
	nonrootID   = 65532
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
