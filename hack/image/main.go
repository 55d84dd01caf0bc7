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

// Command image writes the resizer's multi-platform container image as an
// OCI image layout in a tar archive, with no daemon and no base image
// (`make image`, which builds the binaries first):
//
//	go run ./hack/image -o _output/csi-resizer-image.tar \
//		-name ghcr.io/csi-resizer/csi-resizer:v0.1.0 -version v0.1.0 \
//		-revision "$(git rev-parse HEAD)" -created "$(git log -1 --format=%ct)" \
//		linux/amd64=_output/image/linux_amd64/csi-resizer \
//		linux/arm64=_output/image/linux_arm64/csi-resizer
//
// Each platform's image is two layers: the few files of distroless/static
// the resizer needs (see baseFiles), the same blob for every platform, and
// the binary at /csi-resizer. It runs as root (User "0"), as upstream's
// image does (see user), with /csi-resizer as its entrypoint, and has no
// shell; distroless' nonroot (65532) is there for those who run it as
// that user. The same binaries and flags give the
// same bytes: -created (the commit's time) dates the image and every file
// in it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	out := fs.String("o", "_output/csi-resizer-image.tar", "the archive to write")
	name := fs.String("name", "", "the image's reference, repository:tag (index.json's org.opencontainers.image.ref.name)")
	version := fs.String("version", "", "the version label, as stamped in the binary")
	revision := fs.String("revision", "", "the revision label, the commit's hash")
	source := fs.String("source", "https://github.com/csi-resizer/csi-resizer", "the source label")
	created := fs.String("created", "", "the creation time, in seconds since the epoch (the commit's time, or SOURCE_DATE_EPOCH)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: image [flags] os/arch=binary...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" || *version == "" || *revision == "" || *created == "" {
		return fmt.Errorf("-name, -version, -revision and -created are required")
	}
	secs, err := strconv.ParseInt(*created, 10, 64)
	if err != nil {
		return fmt.Errorf("-created: %w", err)
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("no os/arch=binary given")
	}
	spec := Spec{
		Name:     *name,
		Version:  *version,
		Revision: *revision,
		Source:   *source,
		Created:  time.Unix(secs, 0),
	}
	for _, arg := range fs.Args() {
		platform, path, ok := strings.Cut(arg, "=")
		if !ok {
			return fmt.Errorf("%q: want os/arch=binary", arg)
		}
		p, err := ParsePlatform(platform)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		spec.Binaries = append(spec.Binaries, Binary{Platform: p, Data: data})
	}

	img, err := Build(spec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".image-*.tar")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := img.WriteArchive(tmp, spec.Created); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return err
	}

	info, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s, %.1f MB\n", *out, *name, float64(info.Size())/1e6)
	for _, m := range img.Manifests {
		fmt.Fprintf(stdout, "  %-14s %s, %.1f MB compressed\n", m.Platform, m.Digest, float64(imageSize(img, m.Digest))/1e6)
	}
	fmt.Fprintf(stdout, "index digest: %s\n", img.Index.Digest)
	return nil
}

// imageSize is the size of a platform's manifest, config and layers.
func imageSize(img *Image, manifestDigest string) int64 {
	m, err := img.manifest(manifestDigest)
	if err != nil {
		return 0
	}
	size := int64(len(img.Blobs[manifestDigest])) + m.Config.Size
	for _, l := range m.Layers {
		size += l.Size
	}
	return size
}
