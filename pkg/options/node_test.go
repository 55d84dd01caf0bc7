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
	"strings"
	"testing"
)

func TestNodeDeployment(t *testing.T) {
	t.Setenv(NodeNameEnv, "node-1")
	for _, arg := range []string{"-node-deployment", "--node-deployment", "--node-deployment=true"} {
		o := mustParse(t, arg)
		if !o.NodeDeployment || o.NodeName != "node-1" {
			t.Errorf("Parse(%q): NodeDeployment %v, NodeName %q; want true, node-1", arg, o.NodeDeployment, o.NodeName)
		}
	}
}

func TestNodeNameReadOnlyWithNodeDeployment(t *testing.T) {
	t.Setenv(NodeNameEnv, "node-1")
	if o := mustParse(t); o.NodeDeployment || o.NodeName != "" {
		t.Errorf("without --node-deployment: NodeDeployment %v, NodeName %q; want false, empty", o.NodeDeployment, o.NodeName)
	}
	// Nothing checks NODE_NAME when it is not used.
	t.Setenv(NodeNameEnv, "Not A Node")
	mustParse(t, "--leader-election")
}

func TestNodeDeploymentRefusals(t *testing.T) {
	const (
		together = "--node-deployment and --leader-election cannot be used together: with --node-deployment every node runs its own resizer for the volumes of that node, so there is no leader to elect"
		noName   = "--node-deployment requires the NODE_NAME environment variable, the name of the node the resizer runs on: set it from the pod's spec.nodeName with the downward API"
	)
	tests := []struct {
		name     string
		nodeName string
		args     []string
		wantErr  string
	}{
		{name: "no NODE_NAME", args: []string{"--node-deployment"}, wantErr: noName},
		{name: "with leader election", nodeName: "node-1", args: []string{"--node-deployment", "--leader-election"}, wantErr: together},
		{name: "both, on one line", args: []string{"--leader-election", "--node-deployment"}, wantErr: together + "; " + noName},
		{name: "NODE_NAME not a node name", nodeName: "Node_1", args: []string{"--node-deployment"},
			wantErr: `invalid NODE_NAME "Node_1" for --node-deployment: it is not a node name: a lowercase RFC 1123 subdomain`},
		{name: "with other problems", nodeName: "node-1", args: []string{"--node-deployment", "--leader-election", "--workers=0"},
			wantErr: "invalid value 0 for flag --workers: must be at least 1; " + together},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(NodeNameEnv, tc.nodeName)
			o, out, err := parse(t, tc.args...)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error %q", tc.args, o, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse(%q) error = %q, want it to contain %q", tc.args, err, tc.wantErr)
			}
			if strings.ContainsAny(err.Error(), "\r\n") || out != "" {
				t.Errorf("Parse(%q): error %q on more than one line, or wrote %q", tc.args, err, out)
			}
		})
	}
}
