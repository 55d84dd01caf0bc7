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

package options

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestLeaseName(t *testing.T) {
	tests := []struct {
		name   string
		driver string
		want   string
	}{
		{name: "dots and slash", driver: "csi.example.com/x", want: "external-resizer-csi-example-com-x"},
		{name: "dots", driver: "ebs.csi.aws.com", want: "external-resizer-ebs-csi-aws-com"},
		{name: "underscores", driver: "my_driver_v2", want: "external-resizer-my-driver-v2"},
		{name: "already safe", driver: "hostpath-Driver-1", want: "external-resizer-hostpath-Driver-1"},
		{name: "other characters", driver: "a:b@c~d", want: "external-resizer-a-b-c-d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := LeaseName(tc.driver); got != tc.want {
				t.Errorf("LeaseName(%q) = %q, want %q", tc.driver, got, tc.want)
			}
		})
	}
}

func TestHostOfIdentity(t *testing.T) {
	for _, tc := range []struct{ id, host string }{
		{id: Identity("csi-ebs-controller-0", "1a2b3c4d"), host: "csi-ebs-controller-0"},
		{id: Identity("node_with_underscores", "1a2b3c4d"), host: "node_with_underscores"},
		{id: "no-random-part"},
		{id: "_1a2b3c4d"},
		{id: ""},
	} {
		if got := HostOf(tc.id); got != tc.host {
			t.Errorf("HostOf(%q) = %q, want %q", tc.id, got, tc.host)
		}
	}
}

func TestNodeLeaseName(t *testing.T) {
	if got, want := NodeLeaseName("hostpath.csi.k8s.io", "node-a.example.com"), "external-resizer-hostpath-csi-k8s-io-node-a.example.com"; got != want {
		t.Errorf("NodeLeaseName = %q, want %q", got, want)
	}
	long := strings.Repeat("n", 250)
	a, b := NodeLeaseName("d", long+"a"), NodeLeaseName("d", long+"b")
	if len(a) > 253 || len(b) > 253 || a == b {
		t.Errorf("long node names: %q (%d) and %q (%d): want two names of at most 253 characters", a, len(a), b, len(b))
	}
	if strings.HasSuffix(a, "-") || !strings.HasPrefix(a, "external-resizer-d-nnn") {
		t.Errorf("long node name: %q", a)
	}
}

func TestNodeLeaseValue(t *testing.T) {
	for driver, want := range map[string]string{
		"hostpath.csi.k8s.io":   "hostpath.csi.k8s.io",
		"csi.example.com/x":     "csi.example.com-x",
		"-odd_":                 "odd",
		strings.Repeat("a", 70): strings.Repeat("a", 63),
	} {
		got := NodeLeaseValue(driver)
		if got != want || len(validation.IsValidLabelValue(got)) > 0 {
			t.Errorf("NodeLeaseValue(%q) = %q (%v), want %q, a valid label value", driver, got, validation.IsValidLabelValue(got), want)
		}
	}
}

func TestLeaseNamespaceOrder(t *testing.T) {
	dir := t.TempDir()
	file := func(content string) string {
		path := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	missing := filepath.Join(dir, "missing")
	tests := []struct {
		name string
		flag string
		env  string
		file string // the service account's namespace file, "" for none
		want string
	}{
		{name: "flag before everything", flag: "storage", env: "from-env", file: "from-file", want: "storage"},
		{name: "POD_NAMESPACE before the file", env: "from-env", file: "from-file", want: "from-env"},
		{name: "the file without POD_NAMESPACE", file: "from-file\n", want: "from-file"},
		{name: "default without either", want: "default"},
		{name: "an empty file is no namespace", file: " \n", want: "default"},
		{name: "POD_NAMESPACE without a file", env: "from-env", want: "from-env"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := missing
			if tc.file != "" {
				path = file(tc.file)
			}
			getenv := func(name string) string {
				if name == PodNamespaceEnv {
					return tc.env
				}
				return ""
			}
			if got := leaseNamespace(tc.flag, getenv, path); got != tc.want {
				t.Errorf("leaseNamespace(%q, POD_NAMESPACE=%q, file %q) = %q, want %q", tc.flag, tc.env, tc.file, got, tc.want)
			}
		})
	}
}

// TestLeaseNamespaceFromEnvironment: the method reads the process's
// POD_NAMESPACE (not parallel: it sets the environment).
func TestLeaseNamespaceFromEnvironment(t *testing.T) {
	t.Setenv(PodNamespaceEnv, "kube-system")
	if got := (&Options{}).LeaseNamespace(); got != "kube-system" {
		t.Errorf("LeaseNamespace() with POD_NAMESPACE=kube-system = %q", got)
	}
	if got := (&Options{LeaderElectionNamespace: "storage"}).LeaseNamespace(); got != "storage" {
		t.Errorf("LeaseNamespace() with the flag = %q, want the flag's", got)
	}
}

// TestPublishedJSON pins the annotation's JSON, which explain reads.
func TestPublishedJSON(t *testing.T) {
	s := Published{RetryIntervalStart: Duration(time.Second), RetryIntervalMax: Duration(5 * time.Minute), Recovery: true,
		HandleVolumeInUseError: true, ResizeTimeout: Duration(10 * time.Second), ModifyTimeout: Duration(time.Minute), NodeDeployment: true, OfflineOnly: true, AnnotateFsResize: true}
	want := `{"retryIntervalStart":"1s","retryIntervalMax":"5m0s","recoverVolumeExpansionFailure":true,"handleVolumeInUseError":true,` +
		`"resizeTimeout":"10s","modifyTimeout":"1m0s","nodeDeployment":true,"offlineOnly":true,"annotateFsResize":true}`
	if got := s.Annotations()[SettingsAnnotation]; got != want {
		t.Errorf("annotation = %s\nwant         %s", got, want)
	}
	var back Published
	if err := json.Unmarshal([]byte(want), &back); err != nil || back != s {
		t.Errorf("read back %+v (%v), want %+v", back, err, s)
	}
}
