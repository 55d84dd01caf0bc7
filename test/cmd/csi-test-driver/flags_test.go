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
	"flag"
	"testing"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

func TestBindFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want csidriver.Config
	}{
		{name: "defaults", want: csidriver.Config{DriverName: "csi-test.example.com", ControllerExpand: true}},
		{
			name: "node plugin",
			args: []string{"--node-id=node-1", "--node-expand", "--fault-file=/tmp/faults.json"},
			want: csidriver.Config{DriverName: "csi-test.example.com", ControllerExpand: true, NodeExpand: true, NodeID: "node-1", FaultFile: "/tmp/faults.json"},
		},
		{
			name: "node-only",
			args: []string{"--node-expand", "--controller-expand=false"},
			want: csidriver.Config{DriverName: "csi-test.example.com", NodeExpand: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("csi-test-driver", flag.ContinueOnError)
			o := bindFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got := o.config
			if got.DriverName != tc.want.DriverName || got.ControllerExpand != tc.want.ControllerExpand || got.NodeExpand != tc.want.NodeExpand ||
				got.NodeID != tc.want.NodeID || got.FaultFile != tc.want.FaultFile {
				t.Errorf("config = %+v, want %+v", got, tc.want)
			}
		})
	}
}
