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
	"os"
	"path/filepath"
	"testing"
)

func TestForcedCloses(t *testing.T) {
	log := `I1123 02:16:09.992085    1008 cache_watcher.go:203] Forcing persistentvolumeclaims watcher close due to unresponsiveness: key: "/persistentvolumeclaims/", labels: "", fields: "". len(c.input) = 22, len(c.result) = 22, graceful = false
I1123 02:16:10.100000    1008 httplog.go:134] "HTTP" verb="PATCH" URI="/api/v1/namespaces/bench/persistentvolumeclaims/claim-00001/status"
I1123 02:16:11.992085    1008 cache_watcher.go:203] Forcing persistentvolumeclaims watcher close due to unresponsiveness: key: "/persistentvolumeclaims/bench", labels: "", fields: "". len(c.input) = 10, len(c.result) = 10, graceful = false
I1123 02:16:12.992085    1008 cache_watcher.go:203] Forcing persistentvolumeclaims watcher close due to unresponsiveness: key: "/persistentvolumeclaims/", labels: "", fields: "". len(c.input) = 22, len(c.result) = 22, graceful = true
`
	path := filepath.Join(t.TempDir(), "kube-apiserver.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := forcedCloses(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["/persistentvolumeclaims/"] != 2 || got["/persistentvolumeclaims/bench"] != 1 {
		t.Errorf("forced closes = %v", got)
	}
	if !allNamespaces("/persistentvolumeclaims/") || allNamespaces("/persistentvolumeclaims/bench") || !allNamespaces("/persistentvolumes/") {
		t.Error("allNamespaces tells the keys apart wrongly")
	}
}
