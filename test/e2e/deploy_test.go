//go:build e2e

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

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestPlainManifestsValidate has the API server validate every object of
// deploy/kubernetes (server-side apply, dry run).
func TestPlainManifestsValidate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "deploy", "kubernetes", "*.yaml"))
	must(t, err)
	if len(files) < 2 {
		t.Fatalf("manifests found: %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			must(t, err)
			objs, err := framework.DecodeUnstructured(data)
			must(t, err)
			for _, obj := range objs {
				if err := framework.DryRunApply(context.Background(), cluster.AdminConfig, obj, "default"); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}

// TestDockerfileBuildsTheTestedBinary: docker cannot run here, so the
// Dockerfile is checked by construction: it runs `make build`, the command
// that built the binary this suite tests, and ends on a non-root distroless
// image.
func TestDockerfileBuildsTheTestedBinary(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	must(t, err)
	dockerfile := string(data)
	for _, want := range []string{"make build VERSION=${VERSION}", "FROM gcr.io/distroless/static:nonroot", "USER 65532:65532", `ENTRYPOINT ["/csi-resizer"]`} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}
