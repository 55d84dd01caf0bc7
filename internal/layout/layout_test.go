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

package layout

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/csi-resizer/csi-resizer/"

// lines are the README's drawing of imports, top line first.
var lines = [][]string{
	{"cmd/csi-resizer", "cmd/kubectl-csi_resizer"},
	{"pkg/sidecar", "pkg/plugin"},
	{"pkg/controller", "pkg/metrics"},
	{"pkg/driver", "pkg/events", "pkg/secrets", "pkg/inuse", "pkg/options"},
	{"pkg/decide", "pkg/ownership", "pkg/leader"},
	{"pkg/claimstatus", "pkg/slim", "pkg/kube", "pkg/version"},
}

// TestImportsPointDown: every package of pkg/ and cmd/ is drawn, and its
// non-test files import only packages drawn on lower lines.
func TestImportsPointDown(t *testing.T) {
	line := map[string]int{}
	for i, l := range lines {
		for _, p := range l {
			line[p] = i
		}
	}
	root := filepath.Join("..", "..")
	dirs, err := filepath.Glob(filepath.Join(root, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		pkg := filepath.ToSlash(strings.TrimPrefix(dir, root+string(filepath.Separator)))
		if !strings.HasPrefix(pkg, "pkg/") && !strings.HasPrefix(pkg, "cmd/") {
			continue
		}
		own, drawn := line[pkg]
		if !drawn {
			t.Errorf("%s is not in the drawing", pkg)
			continue
		}
		for _, imported := range imports(t, dir) {
			if l, ok := line[imported]; !ok || l <= own {
				t.Errorf("%s (line %d) imports %s (line %d): an arrow that does not point down", pkg, own+1, imported, l+1)
			}
		}
	}
}

// imports are the packages of this module that the non-test files of dir
// import.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if strings.HasPrefix(path, module) {
				out = append(out, strings.TrimPrefix(path, module))
			}
		}
	}
	return out
}
