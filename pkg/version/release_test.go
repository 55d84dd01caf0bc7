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

package version

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The release procedure is docs/release.md: a tag vX.Y.Z, which `make
// build` stamps into Version, and which the changelog and the chart name.

// root is the repository, from this package's directory.
var root = filepath.Join("..", "..")

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var semver = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)$`)

// parts returns the three numbers of a version, with or without its v.
func parts(t *testing.T, v string) [3]int {
	t.Helper()
	m := semver.FindStringSubmatch(v)
	if m == nil {
		t.Fatalf("%q is not a version X.Y.Z", v)
	}
	var p [3]int
	for i := range p {
		p[i], _ = strconv.Atoi(m[i+1])
	}
	return p
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

type release struct {
	version string
	date    time.Time
}

var heading = regexp.MustCompile(`(?m)^## \[([^\]]+)\](.*)$`)

// releases returns the changelog's releases, newest first, checking the
// headings' form, their order and their links.
func releases(t *testing.T) []release {
	t.Helper()
	changelog := read(t, "CHANGELOG.md")
	var out []release
	for i, m := range heading.FindAllStringSubmatch(changelog, -1) {
		name, rest := m[1], m[2]
		if i == 0 {
			if name != "Unreleased" || rest != "" {
				t.Errorf("CHANGELOG.md: the first section is %q, want ## [Unreleased]", m[0])
			}
			continue
		}
		date, ok := strings.CutPrefix(rest, " - ")
		if !semver.MatchString(name) || !strings.HasPrefix(name, "v") || !ok {
			t.Errorf("CHANGELOG.md: %q, want ## [vX.Y.Z] - YYYY-MM-DD", m[0])
			continue
		}
		d, err := time.Parse(time.DateOnly, date)
		if err != nil {
			t.Errorf("CHANGELOG.md: %s: date %q: %v", name, date, err)
		}
		if n := len(out); n > 0 && (!less(parts(t, name), parts(t, out[n-1].version)) || d.After(out[n-1].date)) {
			t.Errorf("CHANGELOG.md: %s (%s) comes after %s (%s): newest first", name, date, out[n-1].version, out[n-1].date.Format(time.DateOnly))
		}
		out = append(out, release{name, d})
	}
	for _, want := range []string{"[Unreleased]: https://github.com/csi-resizer/csi-resizer/compare/"} {
		if !strings.Contains(changelog, "\n"+want) {
			t.Errorf("CHANGELOG.md lacks the link %s...", want)
		}
	}
	for _, r := range out {
		link := "\n[" + r.version + "]: https://github.com/csi-resizer/csi-resizer/releases/tag/" + r.version + "\n"
		if !strings.Contains(changelog, link) {
			t.Errorf("CHANGELOG.md lacks the link %s", strings.TrimSpace(link))
		}
	}
	return out
}

// TestChangelogNamesTheChartsRelease: the newest release of the changelog
// is the chart's appVersion, the tag of the image it installs, and the
// chart's own version is not older. (hack/image's TestDeployNamesTheImage
// checks that deploy/kubernetes names the appVersion too.)
func TestChangelogNamesTheChartsRelease(t *testing.T) {
	rs := releases(t)
	if len(rs) == 0 {
		t.Fatal("CHANGELOG.md has no release")
	}
	chart := read(t, "deploy/helm/csi-resizer/Chart.yaml")
	field := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `: "?([^"\s]+)"?$`).FindStringSubmatch(chart)
		if m == nil {
			t.Fatalf("Chart.yaml has no %s", name)
		}
		return m[1]
	}
	appVersion, version := field("appVersion"), field("version")
	if appVersion != rs[0].version {
		t.Errorf("Chart.yaml appVersion %s, the newest release of CHANGELOG.md %s", appVersion, rs[0].version)
	}
	if strings.HasPrefix(version, "v") {
		t.Errorf("Chart.yaml version %s: Helm wants X.Y.Z", version)
	}
	if less(parts(t, version), parts(t, appVersion)) {
		t.Errorf("Chart.yaml version %s is older than its appVersion %s", version, appVersion)
	}
}

// TestMakefileStampsThisVariable: `make build` at a tag vX.Y.Z prints
// `csi-resizer vX.Y.Z`, because its VERSION is the tag (git describe) and
// its -X flag names this package's Version.
func TestMakefileStampsThisVariable(t *testing.T) {
	makefile := read(t, "Makefile")
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(read(t, "go.mod"))
	if module == nil {
		t.Fatal("go.mod names no module")
	}
	for _, want := range []string{
		"MODULE := " + module[1] + "\n",
		"VERSION := $(shell git describe --tags --always --dirty",
		"-X $(MODULE)/pkg/version.Version=$(VERSION)",
	} {
		if !strings.Contains(makefile, want) {
			t.Errorf("Makefile lacks %q", want)
		}
	}
	type probe struct{}
	if got, want := reflect.TypeOf(probe{}).PkgPath(), module[1]+"/pkg/version"; got != want {
		t.Errorf("this package is %s, the Makefile stamps %s.Version", got, want)
	}
	_ = Version // the variable the Makefile stamps
}

// TestOneGoToolchain: a release is built with the Go toolchain the Makefile
// exports as GOTOOLCHAIN (its standard library's fixes are part of the
// release; make verify-vuln checks them): .ci/run exports the same, every
// hack/*.sh that runs go defaults to it when run alone, the Dockerfile's
// builder is that Go, and the README tells users to export it.
func TestOneGoToolchain(t *testing.T) {
	m := regexp.MustCompile(`(?m)^GOTOOLCHAIN := (go\d+\.\d+\.\d+)$`).FindStringSubmatch(read(t, "Makefile"))
	if m == nil {
		t.Fatal("the Makefile sets no GOTOOLCHAIN := goX.Y.Z")
	}
	toolchain := m[1]
	want := map[string]string{
		".ci/run":    "\nexport GOTOOLCHAIN=" + toolchain + "\n",
		"Dockerfile": " golang:" + strings.TrimPrefix(toolchain, "go") + " AS builder\n",
		"README.md":  "\nexport GOTOOLCHAIN=" + toolchain + "\n",
	}
	scripts, err := filepath.Glob(filepath.Join(root, "hack", "*.sh"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("hack/*.sh: %v %v", scripts, err)
	}
	runsGo := regexp.MustCompile(`(?m)^[^#\n]*\bgo (build|env|install|list|mod|run|test|vet|version)\b`)
	for _, path := range scripts {
		rel, _ := filepath.Rel(root, path)
		if runsGo.MatchString(read(t, rel)) {
			want[rel] = "\n: \"${GOTOOLCHAIN:=" + toolchain + "}\"\nexport GOTOOLCHAIN\n"
		}
	}
	for path, line := range want {
		if !strings.Contains(read(t, path), line) {
			t.Errorf("%s lacks %q: the Makefile's toolchain is %s", path, line, toolchain)
		}
	}
	if _, ok := want["hack/verify-vuln.sh"]; !ok {
		t.Error("hack/verify-vuln.sh is not seen to run go: the pattern of this test is wrong")
	}
}
