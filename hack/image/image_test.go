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
	"debug/buildinfo"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csi-resizer/csi-resizer/hack/image/ociread"
)

// The archive `make image` made, the binary `make build` made and the
// image's reference: `make test-unit` sets them (and makes both first).
const (
	envArchive = "CSI_RESIZER_IMAGE"
	envBinary  = "CSI_RESIZER_BIN"
	envRef     = "CSI_RESIZER_IMAGE_REF"
)

var platforms = []string{"linux/amd64", "linux/arm64/v8"}

// entry is a file of a layer.
type entry struct {
	hdr  *tar.Header
	data []byte
}

// testConfig is the image configuration, with the fields that must stay
// empty (Cmd, Env, ExposedPorts, Volumes, Shell) too.
type testConfig struct {
	Created      string `json:"created"`
	Architecture string `json:"architecture"`
	Variant      string `json:"variant"`
	OS           string `json:"os"`
	Config       struct {
		User         string
		Entrypoint   []string
		Cmd          []string
		Env          []string
		Shell        []string
		WorkingDir   string
		ExposedPorts map[string]any
		Volumes      map[string]any
		Labels       map[string]string
	} `json:"config"`
	RootFS  rootFS    `json:"rootfs"`
	History []history `json:"history"`
}

// platformImage is one platform's image of an archive.
type platformImage struct {
	platform Platform
	manifest Descriptor
	config   testConfig
	// layers are the descriptors of the layers, files their contents by
	// path (the last layer that has a path wins, as in a container).
	layers []Descriptor
	files  map[string]entry
}

type archive struct {
	raw    []byte
	top    index // index.json
	index  Descriptor
	images []platformImage
}

// readArchive reads an OCI archive and checks that it is consistent: every
// blob has the digest of its name and the size its descriptor says, every
// layer's uncompressed digest is the config's diff_id, nothing is left
// unreferenced.
func readArchive(t *testing.T, raw []byte) *archive {
	t.Helper()
	a := &archive{raw: raw}
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("archive: %v", err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("archive %s: %v", h.Name, err)
		}
		if _, dup := files[h.Name]; dup {
			t.Errorf("archive: %s twice", h.Name)
		}
		files[h.Name] = data
	}
	if got := string(files["oci-layout"]); got != `{"imageLayoutVersion":"1.0.0"}` {
		t.Errorf("oci-layout = %q", got)
	}
	blobs := map[string][]byte{}
	for name, data := range files {
		hex, ok := strings.CutPrefix(name, "blobs/sha256/")
		if !ok || hex == "" {
			continue
		}
		if d := digest(data); d != "sha256:"+hex {
			t.Errorf("blob %s has digest %s", name, d)
		}
		blobs["sha256:"+hex] = data
	}
	used := map[string]bool{}
	blob := func(d Descriptor, mediaType string) []byte {
		t.Helper()
		data, ok := blobs[d.Digest]
		if !ok {
			t.Fatalf("blob %s (%s) missing", d.Digest, d.MediaType)
		}
		if int64(len(data)) != d.Size {
			t.Errorf("blob %s: %d bytes, its descriptor says %d", d.Digest, len(data), d.Size)
		}
		if d.MediaType != mediaType {
			t.Errorf("blob %s: media type %q, want %q", d.Digest, d.MediaType, mediaType)
		}
		used[d.Digest] = true
		return data
	}
	decode := func(data []byte, v any) {
		t.Helper()
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
	}

	decode(files["index.json"], &a.top)
	if a.top.SchemaVersion != 2 || a.top.MediaType != mediaTypeIndex || len(a.top.Manifests) != 1 {
		t.Fatalf("index.json = %s: want one image index", files["index.json"])
	}
	a.index = a.top.Manifests[0]
	var idx index
	decode(blob(a.index, mediaTypeIndex), &idx)
	if idx.SchemaVersion != 2 || idx.MediaType != mediaTypeIndex {
		t.Errorf("image index: schema %d, media type %q", idx.SchemaVersion, idx.MediaType)
	}
	for _, md := range idx.Manifests {
		if md.Platform == nil {
			t.Fatalf("manifest %s has no platform", md.Digest)
		}
		img := platformImage{platform: *md.Platform, manifest: md, files: map[string]entry{}}
		var m manifest
		decode(blob(md, mediaTypeManifest), &m)
		if m.SchemaVersion != 2 || m.MediaType != mediaTypeManifest {
			t.Errorf("%s manifest: schema %d, media type %q", img.platform, m.SchemaVersion, m.MediaType)
		}
		decode(blob(m.Config, mediaTypeConfig), &img.config)
		if got := (Platform{OS: img.config.OS, Arch: img.config.Architecture, Variant: img.config.Variant}); got != img.platform {
			t.Errorf("%s config is for %s", img.platform, got)
		}
		if img.config.RootFS.Type != "layers" || len(img.config.RootFS.DiffIDs) != len(m.Layers) || len(img.config.History) != len(m.Layers) {
			t.Errorf("%s: %d layers, rootfs %+v, %d history entries", img.platform, len(m.Layers), img.config.RootFS, len(img.config.History))
		}
		img.layers = m.Layers
		for i, l := range m.Layers {
			zr, err := gzip.NewReader(bytes.NewReader(blob(l, mediaTypeLayer)))
			if err != nil {
				t.Fatalf("%s layer %d: %v", img.platform, i, err)
			}
			if zr.Name != "" || !zr.ModTime.IsZero() || zr.Comment != "" {
				t.Errorf("%s layer %d: gzip header names %q, dated %v: not reproducible", img.platform, i, zr.Name, zr.ModTime)
			}
			raw, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("%s layer %d: %v", img.platform, i, err)
			}
			if i < len(img.config.RootFS.DiffIDs) && digest(raw) != img.config.RootFS.DiffIDs[i] {
				t.Errorf("%s layer %d: diff_id %s, the config says %s", img.platform, i, digest(raw), img.config.RootFS.DiffIDs[i])
			}
			lr := tar.NewReader(bytes.NewReader(raw))
			for {
				h, err := lr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s layer %d: %v", img.platform, i, err)
				}
				data, err := io.ReadAll(lr)
				if err != nil {
					t.Fatalf("%s layer %d %s: %v", img.platform, i, h.Name, err)
				}
				img.files["/"+strings.TrimSuffix(h.Name, "/")] = entry{hdr: h, data: data}
			}
		}
		a.images = append(a.images, img)
	}
	for d := range blobs {
		if !used[d] {
			t.Errorf("blob %s is not referenced", d)
		}
	}
	return a
}

// image returns the image of a platform.
func (a *archive) image(t *testing.T, platform string) platformImage {
	t.Helper()
	for _, img := range a.images {
		if img.platform.String() == platform {
			return img
		}
	}
	t.Fatalf("no image for %s", platform)
	return platformImage{}
}

// checkImage checks what every archive must be: the platforms, the user
// (root, read by ociread too), the entrypoint, the labels, the files (and that nothing else, no shell,
// is in it), the dates.
func checkImage(t *testing.T, a *archive, wantRef string, wantLabels map[string]string) {
	t.Helper()
	var got []string
	for _, img := range a.images {
		got = append(got, img.platform.String())
	}
	if !slices.Equal(got, platforms) {
		t.Errorf("platforms %v, want %v", got, platforms)
	}
	ann := a.index.Annotations
	if ann[annotationRefName] != wantRef || ann[annotationContainerdRef] != wantRef {
		t.Errorf("index.json names %v, want %s", ann, wantRef)
	}

	baseLayer := ""
	for _, img := range a.images {
		c := img.config
		p := img.platform.String()
		// Root, as upstream's image (distroless/static's root variant
		// says "0"): a driver running as root makes a socket only root
		// may connect to.
		if c.Config.User != "0" {
			t.Errorf("%s: User %q, want 0 (root, as upstream's image)", p, c.Config.User)
		}
		if !slices.Equal(c.Config.Entrypoint, []string{"/csi-resizer"}) {
			t.Errorf("%s: Entrypoint %q", p, c.Config.Entrypoint)
		}
		if c.Config.Cmd != nil || c.Config.Env != nil || c.Config.Shell != nil || c.Config.ExposedPorts != nil || c.Config.Volumes != nil {
			t.Errorf("%s: Cmd %q, Env %q, Shell %q, ports %v, volumes %v: want none", p, c.Config.Cmd, c.Config.Env, c.Config.Shell, c.Config.ExposedPorts, c.Config.Volumes)
		}
		if c.Config.WorkingDir != "/" {
			t.Errorf("%s: WorkingDir %q", p, c.Config.WorkingDir)
		}
		for k, v := range wantLabels {
			if c.Config.Labels[k] != v {
				t.Errorf("%s: label %s = %q, want %q", p, k, c.Config.Labels[k], v)
			}
		}
		created, err := time.Parse(time.RFC3339, c.Created)
		if err != nil {
			t.Errorf("%s: created: %v", p, err)
		}
		if c.Config.Labels[labelCreated] != c.Created {
			t.Errorf("%s: label %s = %q, created %q", p, labelCreated, c.Config.Labels[labelCreated], c.Created)
		}
		for _, h := range c.History {
			if h.Created != c.Created {
				t.Errorf("%s: history %q dated %s, the image %s", p, h.CreatedBy, h.Created, c.Created)
			}
		}

		// The base layer is the same blob for every platform.
		if baseLayer == "" {
			baseLayer = img.layers[0].Digest
		} else if img.layers[0].Digest != baseLayer {
			t.Errorf("%s: base layer %s, another platform's %s", p, img.layers[0].Digest, baseLayer)
		}

		type want struct {
			dir      bool
			mode     int64
			uid, gid int
		}
		wantFiles := map[string]want{
			"/etc":               {dir: true, mode: 0o755},
			"/etc/passwd":        {mode: 0o644},
			"/etc/group":         {mode: 0o644},
			"/etc/nsswitch.conf": {mode: 0o644},
			"/home":              {dir: true, mode: 0o755},
			"/home/nonroot":      {dir: true, mode: 0o700, uid: 65532, gid: 65532},
			"/root":              {dir: true, mode: 0o700},
			"/tmp":               {dir: true, mode: 0o1777},
			"/csi-resizer":       {mode: 0o755},
		}
		for name, e := range img.files {
			w, ok := wantFiles[name]
			if !ok {
				// No shell, no other binary: nothing but the files above.
				t.Errorf("%s: unexpected file %s", p, name)
				continue
			}
			h := e.hdr
			if (h.Typeflag == tar.TypeDir) != w.dir || (!w.dir && h.Typeflag != tar.TypeReg) {
				t.Errorf("%s: %s has type %q", p, name, h.Typeflag)
			}
			if h.Mode != w.mode || h.Uid != w.uid || h.Gid != w.gid || h.Uname != "" || h.Gname != "" {
				t.Errorf("%s: %s mode %o, owner %d:%d (%q:%q), want mode %o, owner %d:%d", p, name, h.Mode, h.Uid, h.Gid, h.Uname, h.Gname, w.mode, w.uid, w.gid)
			}
			if !h.ModTime.Equal(created) {
				t.Errorf("%s: %s dated %v, the image %v", p, name, h.ModTime, created)
			}
		}
		for name := range wantFiles {
			if _, ok := img.files[name]; !ok {
				t.Errorf("%s: %s missing", p, name)
			}
		}
		for _, sh := range []string{"/bin/sh", "/bin/bash", "/bin/busybox", "/usr/bin/sh"} {
			if _, ok := img.files[sh]; ok {
				t.Errorf("%s: has a shell, %s", p, sh)
			}
		}
		if !strings.Contains(string(img.files["/etc/passwd"].data), "nonroot:x:65532:65532:nonroot:/home/nonroot:") {
			t.Errorf("%s: /etc/passwd lacks nonroot:\n%s", p, img.files["/etc/passwd"].data)
		}
		if !strings.Contains(string(img.files["/etc/group"].data), "nonroot:x:65532:") {
			t.Errorf("%s: /etc/group lacks nonroot:\n%s", p, img.files["/etc/group"].data)
		}

		// ociread, which tests use to run the binary as the image's
		// user, reads root; and 65532 stays a user with a name and a
		// group, for those who run the image as nonroot.
		if id, err := ociread.ReadIdentity(a.raw, p); err != nil || !reflect.DeepEqual(id, ociread.Identity{User: "0"}) {
			t.Errorf("%s: ociread.ReadIdentity = %+v, %v; want root, User \"0\"", p, id, err)
		}
		passwd, group := img.files["/etc/passwd"].data, img.files["/etc/group"].data
		for _, u := range []string{"65532", "nonroot", "65532:65532"} {
			if id, err := ociread.Resolve(u, passwd, group); err != nil || id.UID != 65532 || id.GID != 65532 || len(id.Groups) != 0 {
				t.Errorf("%s: user %s resolves to %+v, %v; want 65532:65532", p, u, id, err)
			}
		}
	}
}

func testSpec() Spec {
	return Spec{
		Name:     "registry.example.com/csi-resizer:v1.2.3",
		Version:  "v1.2.3",
		Revision: strings.Repeat("ab", 20),
		Source:   "https://github.com/csi-resizer/csi-resizer",
		Created:  time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC),
		Binaries: []Binary{
			{Platform: Platform{OS: "linux", Arch: "amd64"}, Data: []byte("the amd64 binary")},
			{Platform: Platform{OS: "linux", Arch: "arm64", Variant: "v8"}, Data: []byte("the arm64 binary")},
		},
	}
}

func build(t *testing.T, spec Spec) (*Image, []byte) {
	t.Helper()
	img, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := img.WriteArchive(&buf, spec.Created); err != nil {
		t.Fatal(err)
	}
	return img, buf.Bytes()
}

func TestArchive(t *testing.T) {
	spec := testSpec()
	img, raw := build(t, spec)
	a := readArchive(t, raw)
	if a.index.Digest != img.Index.Digest {
		t.Errorf("index.json points at %s, Build says %s", a.index.Digest, img.Index.Digest)
	}
	checkImage(t, a, spec.Name, map[string]string{
		labelSource:   spec.Source,
		labelRevision: spec.Revision,
		labelVersion:  "v1.2.3",
		labelLicenses: "Apache-2.0",
		labelTitle:    "csi-resizer",
		labelCreated:  "2026-03-04T05:06:07Z",
	})
	for _, b := range spec.Binaries {
		if got := a.image(t, b.Platform.String()).files["/csi-resizer"].data; !bytes.Equal(got, b.Data) {
			t.Errorf("%s: /csi-resizer is %q, want %q", b.Platform, got, b.Data)
		}
	}
}

// TestReproducible: the same inputs give the same bytes; each input is in
// the index's digest.
func TestReproducible(t *testing.T) {
	img, raw := build(t, testSpec())
	img2, raw2 := build(t, testSpec())
	if img.Index.Digest != img2.Index.Digest || !bytes.Equal(raw, raw2) {
		t.Fatalf("two builds: index %s and %s, archives %x and %x", img.Index.Digest, img2.Index.Digest, sha256.Sum256(raw), sha256.Sum256(raw2))
	}
	changes := map[string]func(*Spec){
		"created":  func(s *Spec) { s.Created = s.Created.Add(time.Second) },
		"revision": func(s *Spec) { s.Revision = strings.Repeat("cd", 20) },
		"version":  func(s *Spec) { s.Version = "v1.2.4" },
		"binary":   func(s *Spec) { s.Binaries[1].Data = []byte("another arm64 binary") },
	}
	for name, change := range changes {
		spec := testSpec()
		change(&spec)
		if other, _ := build(t, spec); other.Index.Digest == img.Index.Digest {
			t.Errorf("a different %s gives the same index digest", name)
		}
	}
	// The name is index.json's, not the image's: retagging keeps the digest.
	spec := testSpec()
	spec.Name = "registry.example.com/csi-resizer:latest"
	if other, _ := build(t, spec); other.Index.Digest != img.Index.Digest {
		t.Errorf("another tag changes the index digest")
	}
}

func TestBuildRejects(t *testing.T) {
	spec := testSpec()
	spec.Binaries = append(spec.Binaries, spec.Binaries[0])
	if _, err := Build(spec); err == nil {
		t.Error("a platform given twice: no error")
	}
	if _, err := Build(Spec{Name: "x:y"}); err == nil {
		t.Error("no binaries: no error")
	}
	for _, bad := range []string{"linux", "/amd64", "linux/", "a/b/c/d"} {
		if _, err := ParsePlatform(bad); err == nil {
			t.Errorf("ParsePlatform(%q): no error", bad)
		}
	}
	if p, err := ParsePlatform("linux/arm64"); err != nil || p.Variant != "v8" {
		t.Errorf("ParsePlatform(linux/arm64) = %+v, %v", p, err)
	}
}

// TestRun runs the command as make image does.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	amd64 := filepath.Join(dir, "amd64")
	arm64 := filepath.Join(dir, "arm64")
	must(t, os.WriteFile(amd64, []byte("amd64"), 0o755))
	must(t, os.WriteFile(arm64, []byte("arm64"), 0o755))
	out := filepath.Join(dir, "out", "image.tar")
	args := []string{"-o", out, "-name", "example.com/r:v1", "-version", "v1", "-revision", "unknown", "-created", "1700000000",
		"linux/amd64=" + amd64, "linux/arm64=" + arm64}
	must(t, run(args, io.Discard))
	raw, err := os.ReadFile(out)
	must(t, err)
	a := readArchive(t, raw)
	checkImage(t, a, "example.com/r:v1", map[string]string{labelVersion: "v1", labelCreated: "2023-11-14T22:13:20Z"})
	if err := run(args[:len(args)-2], io.Discard); err == nil {
		t.Error("no binaries: no error")
	}
}

// TestDeployNamesTheImage: the chart and deploy/kubernetes name the
// repository `make image` and `make container` name, and deploy/kubernetes
// the chart's version, the tag of a release's image.
func TestDeployNamesTheImage(t *testing.T) {
	read := func(path string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", path))
		must(t, err)
		return string(data)
	}
	find := func(path, pattern string) string {
		m := regexp.MustCompile(pattern).FindStringSubmatch(read(path))
		if m == nil {
			t.Fatalf("%s: no match for %s", path, pattern)
		}
		return m[1]
	}
	repo := find("Makefile", `(?m)^IMAGE \?= (\S+)$`)
	appVersion := find("deploy/helm/csi-resizer/Chart.yaml", `(?m)^appVersion: "?([^"\s]+)"?$`)
	for path, pattern := range map[string]string{
		"deploy/helm/csi-resizer/values.yaml":              `(?m)^  repository: (\S+)$`,
		"deploy/helm/csi-resizer/templates/_container.tpl": `"repository" "([^"]+)"`,
	} {
		if got := find(path, pattern); got != repo {
			t.Errorf("%s names %s, make image %s", path, got, repo)
		}
	}
	if got, want := find("deploy/kubernetes/deployment.yaml", `image: (\S*csi-resizer:\S+)`), repo+":"+appVersion; got != want {
		t.Errorf("deploy/kubernetes/deployment.yaml names %s, want %s (make image VERSION=%s)", got, want, appVersion)
	}
}

// TestMadeArchive checks the archive `make image` made (make test-unit
// makes it first): its binaries are the resizer's `make build` for each
// platform, the one of this machine's platform byte for byte the binary
// the tests run; building it again from its own contents gives the same
// bytes.
func TestMadeArchive(t *testing.T) {
	path, bin := os.Getenv(envArchive), os.Getenv(envBinary)
	if path == "" || bin == "" {
		t.Skipf("%s and %s are not set: make test-unit sets them, after make image and make build", envArchive, envBinary)
	}
	raw, err := os.ReadFile(path)
	must(t, err)
	built, err := os.ReadFile(bin)
	must(t, err)
	a := readArchive(t, raw)

	builtInfo, err := buildinfo.Read(bytes.NewReader(built))
	must(t, err)
	builtSettings := settings(builtInfo)
	// With -trimpath, go build does not record -ldflags: the binary says
	// the version they stamped.
	out, err := exec.Command(bin, "--version").Output()
	must(t, err)
	version, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "csi-resizer ")
	if !ok || version == "" || version == "unknown" {
		t.Fatalf("%s --version: %q, want a stamped version", bin, out)
	}
	ref := os.Getenv(envRef)
	if ref == "" {
		ref = a.index.Annotations[annotationRefName]
	}
	checkImage(t, a, ref, map[string]string{
		labelSource:   "https://github.com/csi-resizer/csi-resizer",
		labelVersion:  version,
		labelLicenses: "Apache-2.0",
		labelTitle:    "csi-resizer",
	})
	revision := a.images[0].config.Config.Labels[labelRevision]
	if !regexp.MustCompile(`^([0-9a-f]{40}|unknown)$`).MatchString(revision) {
		t.Errorf("label %s = %q: want a commit hash", labelRevision, revision)
	}

	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	compared := false
	for _, img := range a.images {
		p := img.platform
		data := img.files["/csi-resizer"].data
		if p.OS == runtime.GOOS && p.Arch == runtime.GOARCH {
			if !bytes.Equal(data, built) {
				t.Errorf("%s: /csi-resizer (%d bytes, sha256 %x) is not %s (%d bytes, sha256 %x)", p, len(data), sha256.Sum256(data), bin, len(built), sha256.Sum256(built))
			}
			compared = true
		}
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: /csi-resizer: %v", p, err)
			continue
		}
		if f.Machine != machines[p.Arch] {
			t.Errorf("%s: /csi-resizer is for %v", p, f.Machine)
		}
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP {
				t.Errorf("%s: /csi-resizer is dynamically linked", p)
			}
		}
		info, err := buildinfo.Read(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: /csi-resizer: %v", p, err)
			continue
		}
		// What `go version -m` prints: the same build of the same code as
		// make build's, for another platform.
		s := settings(info)
		for key, want := range map[string]string{"GOOS": p.OS, "GOARCH": p.Arch, "CGO_ENABLED": "0", "-trimpath": "true"} {
			if s[key] != want {
				t.Errorf("%s: /csi-resizer built with %s=%q, want %q", p, key, s[key], want)
			}
		}
		if !bytes.Contains(data, []byte(version)) {
			t.Errorf("%s: /csi-resizer lacks the version %s", p, version)
		}
		if info.GoVersion != builtInfo.GoVersion || info.Path != builtInfo.Path || info.Main != builtInfo.Main || depsOf(info) != depsOf(builtInfo) {
			t.Errorf("%s: /csi-resizer is %s %s %v, %s is %s %s %v", p, info.GoVersion, info.Path, info.Main, bin, builtInfo.GoVersion, builtInfo.Path, builtInfo.Main)
		}
		for key, value := range builtSettings {
			if key != "GOARCH" && key != "GOOS" && !strings.HasPrefix(key, "GO"+strings.ToUpper(runtime.GOARCH)) && !strings.HasPrefix(key, "GO"+strings.ToUpper(p.Arch)) && s[key] != value {
				t.Errorf("%s: /csi-resizer built with %s=%q, %s with %q", p, key, s[key], bin, value)
			}
		}
	}
	if !compared && runtime.GOOS == "linux" {
		t.Errorf("no image for this machine's platform, linux/%s", runtime.GOARCH)
	}

	// The same contents give the same archive, byte for byte.
	spec := Spec{Name: a.index.Annotations[annotationRefName]}
	labels := a.images[0].config.Config.Labels
	spec.Version, spec.Revision, spec.Source = labels[labelVersion], labels[labelRevision], labels[labelSource]
	spec.Created, err = time.Parse(time.RFC3339, a.images[0].config.Created)
	must(t, err)
	for _, img := range a.images {
		spec.Binaries = append(spec.Binaries, Binary{Platform: img.platform, Data: img.files["/csi-resizer"].data})
	}
	again, rebuilt := build(t, spec)
	if again.Index.Digest != a.index.Digest || !bytes.Equal(rebuilt, raw) {
		t.Errorf("built again: index %s, archive sha256 %x; %s: index %s, archive sha256 %x", again.Index.Digest, sha256.Sum256(rebuilt), path, a.index.Digest, sha256.Sum256(raw))
	}
	t.Logf("%s: %s, index %s, %.1f MB", path, spec.Name, a.index.Digest, float64(len(raw))/1e6)
}

func settings(info *buildinfo.BuildInfo) map[string]string {
	m := map[string]string{}
	for _, s := range info.Settings {
		m[s.Key] = s.Value
	}
	return m
}

func depsOf(info *buildinfo.BuildInfo) string {
	var b strings.Builder
	for _, d := range info.Deps {
		fmt.Fprintf(&b, "%s %s %s\n", d.Path, d.Version, d.Sum)
	}
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
