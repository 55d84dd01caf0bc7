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

package csidriver

import (
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestNodeGetCapabilities(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		wantCode codes.Code
		want     bool
	}{
		{name: "node expand", cfg: Config{NodeExpand: true}, want: true},
		{name: "no node expand", cfg: Config{}},
		{name: "no node service", cfg: Config{NodeExpand: true, NoNodeService: true}, wantCode: codes.Unimplemented},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := dial(t, tc.cfg)
			resp, err := c.node.NodeGetCapabilities(testContext(t), &csi.NodeGetCapabilitiesRequest{})
			if status.Code(err) != tc.wantCode {
				t.Fatalf("NodeGetCapabilities error = %v, want code %v", err, tc.wantCode)
			}
			got := slices.ContainsFunc(resp.GetCapabilities(), func(c *csi.NodeServiceCapability) bool {
				return c.GetRpc().GetType() == csi.NodeServiceCapability_RPC_EXPAND_VOLUME
			})
			if got != tc.want {
				t.Errorf("node EXPAND_VOLUME = %v, want %v", got, tc.want)
			}
		})
	}
}
