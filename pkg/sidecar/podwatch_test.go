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

package sidecar

import (
	"strings"
	"testing"

	"github.com/csi-resizer/csi-resizer/pkg/driver"
)

func TestPodWatchOf(t *testing.T) {
	offline := driver.Capabilities{ControllerExpand: true, OfflineExpansion: true}
	online := driver.Capabilities{ControllerExpand: true, OnlineExpansion: true}
	both := driver.Capabilities{ControllerExpand: true, OnlineExpansion: true, OfflineExpansion: true}
	tests := []struct {
		name        string
		handleInUse bool
		caps        driver.Capabilities
		node        string
		want        bool
		// why is a part of the reason logged.
		why string
	}{
		{name: "offline only, flag on: watch", handleInUse: true, caps: offline, want: true, why: "OFFLINE expansion only"},
		{name: "offline only, node-only driver: watch", handleInUse: true, caps: driver.Capabilities{NodeExpand: true, OfflineExpansion: true}, want: true, why: "OFFLINE expansion only"},
		{name: "offline only, node deployment: the node's pods", handleInUse: true, caps: offline, node: "n1", want: true, why: "only the pods of node n1"},
		{name: "online: no watch", handleInUse: true, caps: online, why: "ONLINE expansion"},
		{name: "online and offline: no watch", handleInUse: true, caps: both, why: "ONLINE expansion"},
		{name: "online, node deployment: no watch", handleInUse: true, caps: online, node: "n1", why: "retried with backoff"},
		{name: "no expansion type: read as online", handleInUse: true, caps: driver.Capabilities{ControllerExpand: true}, why: "no VolumeExpansion type"},
		{name: "flag off, offline only: no watch", caps: offline, why: "--handle-volume-inuse-error is off"},
		{name: "flag off, node deployment: no watch", caps: offline, node: "n1", why: "--handle-volume-inuse-error is off"},
		{name: "no expansion (modification only): no watch", handleInUse: true, caps: driver.Capabilities{OfflineExpansion: true, ControllerModify: true}, why: "does not expand"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := podWatchOf(tc.handleInUse, tc.caps, tc.node)
			if got.watch != tc.want {
				t.Errorf("watch = %v, want %v (%s)", got.watch, tc.want, got.why)
			}
			if !strings.Contains(got.why, tc.why) {
				t.Errorf("why = %q, want it to say %q", got.why, tc.why)
			}
			if want := map[bool]string{true: "Watching pods", false: "Not watching pods"}[tc.want]; got.message() != want {
				t.Errorf("message = %q, want %q", got.message(), want)
			}
		})
	}
}
