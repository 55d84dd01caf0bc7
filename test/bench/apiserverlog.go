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
	"bufio"
	"os"
	"strings"
)

// forcedClose is the message kube-apiserver's watch cache logs (at V(1))
// when it drops a watcher that does not take its events fast enough; the
// client must then start a new watch.
const forcedClose = "watcher close due to unresponsiveness"

// forcedCloses counts, in a kube-apiserver log, the watches the server
// closed as unresponsive, by key: "/persistentvolumeclaims/" is a watch of
// all namespaces (the resizer's), "/persistentvolumeclaims/bench" one of a
// namespace (the benchmark's own).
func forcedCloses(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int{}
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		if key, ok := forcedCloseKey(s.Text()); ok {
			out[key]++
		}
	}
	return out, s.Err()
}

// forcedCloseKey returns the storage key of a forced-close log line.
func forcedCloseKey(line string) (string, bool) {
	if !strings.Contains(line, forcedClose) {
		return "", false
	}
	_, rest, ok := strings.Cut(line, `key: "`)
	if !ok {
		return "unknown", true
	}
	key, _, _ := strings.Cut(rest, `"`)
	return key, true
}

// allNamespaces reports whether a watch-cache key is a watch of every
// namespace (or of a cluster-scoped resource): "/<resource>/".
func allNamespaces(key string) bool {
	return strings.Count(key, "/") == 2 && strings.HasSuffix(key, "/")
}
