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

// Package ociread reads, from an OCI image layout in a tar archive (what
// `make image` writes, skopeo's oci-archive), who a container runtime runs
// an image's entrypoint as: the config's User, resolved against the image's
// own /etc/passwd and /etc/group as runc does. A test runs the resizer
// binary with that identity (SysProcAttr.Credential) to meet a driver's
// socket as the image would:
//
//	id, err := ociread.ImageIdentity(os.Getenv("CSI_RESIZER_IMAGE"), "")
//	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{
//		Uid: id.UID, Gid: id.GID, Groups: id.Groups}}
package ociread

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Media types this reader follows.
const (
	mediaTypeOCIIndex       = "application/vnd.oci.image.index.v1+json"
	mediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
	mediaTypeOCIManifest    = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
)

// Identity is who a runtime runs an image's entrypoint as.
type Identity struct {
	// User is the image config's User as written: "0" (root, the
	// resizer's image), "65532:65532", a name, or "" (the runtime's
	// default, root).
	User string
	// UID and GID are User resolved: a name through /etc/passwd, a
	// group through /etc/group, and a user without a group gets its
	// passwd entry's group (0 without an entry).
	UID, GID uint32
	// Groups are the supplementary groups /etc/group lists the user in,
	// as a runtime adds them; without them for a user not named in
	// /etc/passwd.
	Groups []uint32
}

// ImageIdentity returns the Identity of the image for platform ("linux/amd64",
// "linux/arm64" or "linux/arm64/v8"; "" is this machine's) in the OCI
// archive at archivePath.
func ImageIdentity(archivePath, platform string) (Identity, error) {
	raw, err := os.ReadFile(archivePath)
	if err != nil {
		return Identity{}, err
	}
	id, err := ReadIdentity(raw, platform)
	if err != nil {
		return Identity{}, fmt.Errorf("%s: %w", archivePath, err)
	}
	return id, nil
}

// ImageUser returns the config's User of the image for platform in the OCI
// archive at archivePath (see ImageIdentity), unresolved.
func ImageUser(archivePath, platform string) (string, error) {
	id, err := ImageIdentity(archivePath, platform)
	return id.User, err
}

// ReadIdentity is ImageIdentity of an archive read into memory.
func ReadIdentity(archive []byte, platform string) (Identity, error) {
	files, err := untar(bytes.NewReader(archive))
	if err != nil {
		return Identity{}, err
	}
	want, err := parsePlatform(platform)
	if err != nil {
		return Identity{}, err
	}
	blob := func(digest string) ([]byte, error) {
		algo, hex, ok := strings.Cut(digest, ":")
		if !ok {
			return nil, fmt.Errorf("digest %q", digest)
		}
		data, ok := files["blobs/"+algo+"/"+hex]
		if !ok {
			return nil, fmt.Errorf("blob %s missing", digest)
		}
		return data, nil
	}

	top, ok := files["index.json"]
	if !ok {
		return Identity{}, fmt.Errorf("no index.json: not an OCI image layout")
	}
	m, err := findManifest(top, want, blob, 0)
	if err != nil {
		return Identity{}, err
	}
	var cfg struct {
		Config struct {
			User string `json:"User"`
		} `json:"config"`
	}
	data, err := blob(m.Config.Digest)
	if err != nil {
		return Identity{}, err
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return Identity{}, fmt.Errorf("config %s: %w", m.Config.Digest, err)
	}

	// /etc/passwd and /etc/group as the container sees them: the last
	// layer that has them wins, a whiteout removes them.
	etc := map[string][]byte{}
	for _, l := range m.Layers {
		data, err := blob(l.Digest)
		if err != nil {
			return Identity{}, err
		}
		if err := readLayer(data, l.MediaType, etc); err != nil {
			return Identity{}, fmt.Errorf("layer %s: %w", l.Digest, err)
		}
	}
	return Resolve(cfg.Config.User, etc["etc/passwd"], etc["etc/group"])
}

type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Platform  *struct {
		OS      string `json:"os"`
		Arch    string `json:"architecture"`
		Variant string `json:"variant"`
	} `json:"platform"`
}

type manifest struct {
	Config descriptor   `json:"config"`
	Layers []descriptor `json:"layers"`
}

type platformSpec struct{ os, arch, variant string }

func parsePlatform(s string) (platformSpec, error) {
	if s == "" {
		return platformSpec{os: runtime.GOOS, arch: runtime.GOARCH}, nil
	}
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return platformSpec{}, fmt.Errorf("platform %q: want os/arch[/variant]", s)
	}
	p := platformSpec{os: parts[0], arch: parts[1]}
	if len(parts) == 3 {
		p.variant = parts[2]
	}
	return p, nil
}

// findManifest follows index (index.json, or an image index blob) down to
// the manifest of platform want.
func findManifest(index []byte, want platformSpec, blob func(string) ([]byte, error), depth int) (manifest, error) {
	if depth > 4 {
		return manifest{}, fmt.Errorf("image indexes nested too deep")
	}
	var idx struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(index, &idx); err != nil {
		return manifest{}, fmt.Errorf("index: %w", err)
	}
	var seen []string
	for _, d := range idx.Manifests {
		switch d.MediaType {
		case mediaTypeOCIIndex, mediaTypeDockerList:
			data, err := blob(d.Digest)
			if err != nil {
				return manifest{}, err
			}
			m, err := findManifest(data, want, blob, depth+1)
			var nf *notFound
			if errors.As(err, &nf) {
				seen = append(seen, nf.seen...)
				continue
			}
			if err != nil {
				return manifest{}, err
			}
			return m, nil
		case mediaTypeOCIManifest, mediaTypeDockerManifest:
			data, err := blob(d.Digest)
			if err != nil {
				return manifest{}, err
			}
			var m manifest
			if err := json.Unmarshal(data, &m); err != nil {
				return manifest{}, fmt.Errorf("manifest %s: %w", d.Digest, err)
			}
			// A manifest without a platform in its descriptor is the
			// only one of a single-platform layout: take it.
			if d.Platform == nil {
				return m, nil
			}
			p := d.Platform
			if p.OS == want.os && p.Arch == want.arch && (want.variant == "" || p.Variant == want.variant) {
				return m, nil
			}
			seen = append(seen, strings.TrimSuffix(p.OS+"/"+p.Arch+"/"+p.Variant, "/"))
		}
	}
	return manifest{}, &notFound{want: want, seen: seen}
}

// notFound says that an index has no image for a platform, and which
// platforms it has.
type notFound struct {
	want platformSpec
	seen []string
}

func (e *notFound) Error() string {
	p := e.want.os + "/" + e.want.arch
	if e.want.variant != "" {
		p += "/" + e.want.variant
	}
	return fmt.Sprintf("no image for %s (there are: %s)", p, strings.Join(e.seen, ", "))
}
