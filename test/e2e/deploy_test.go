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
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
// that built the binary this suite tests, and ends on upstream's base,
// distroless/static's root variant, as root (the user of `make image`'s
// config, "0"): a driver running as root makes a socket only root may open.
func TestDockerfileBuildsTheTestedBinary(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	must(t, err)
	dockerfile := string(data)
	for _, want := range []string{"make build VERSION=${VERSION}", "\nFROM gcr.io/distroless/static:latest\n", "\nUSER 0\n", `ENTRYPOINT ["/csi-resizer"]`} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	for _, bad := range []string{":nonroot", "USER 65532", "USER nonroot"} {
		if strings.Contains(dockerfile, bad) {
			t.Errorf("Dockerfile has %q: the image runs as root, as upstream's", bad)
		}
	}
}

// TestPlainManifestsRunAsTheImage: deploy/kubernetes runs the resizer as
// the chart does by default: as the image's user, root as upstream's, with
// the chart's securityContext, and sets no user or group for the pod (it
// would apply to the driver's container too).
func TestPlainManifestsRunAsTheImage(t *testing.T) {
	_, chartPod := workload(t, render(t))
	want := podContainer(t, chartPod, "csi-resizer").SecurityContext
	for name, kind := range map[string]string{"deployment.yaml": "Deployment", "daemonset.yaml": "DaemonSet"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", name))
			must(t, err)
			objs, err := framework.DecodeUnstructured(data)
			must(t, err)
			o := find(objs, kind)
			if o == nil {
				t.Fatalf("%s has no %s", name, kind)
			}
			_, pod := workload(t, []*unstructured.Unstructured{o})
			c := podContainer(t, pod, "csi-resizer")
			checkHardening(t, name, c.SecurityContext)
			checkImageUser(t, name, pod.Spec, c)
			if !reflect.DeepEqual(c.SecurityContext, want) {
				t.Errorf("%s: resizer securityContext %+v, the chart's %+v", name, c.SecurityContext, want)
			}
		})
	}
}
