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

package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
	"github.com/csi-resizer/csi-resizer/pkg/version"
)

// run runs the command on client, with the context's namespace "apps".
func run(client *fake.Clientset, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	cmd := Command{Stdout: &out, Stderr: &errOut, Now: func() time.Time { return now },
		Connect: func(kubeconfig, context string) (kube.Interface, string, error) {
			if kubeconfig == "/missing" {
				return nil, "", errors.New(`stat /missing: no such file or directory`)
			}
			return kubetest.Wrap(client), ns, nil
		}}
	code = cmd.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestCommandExitCodes(t *testing.T) {
	objs := append(growing(), freshLease())
	tests := []struct {
		name     string
		args     []string
		react    func(*fake.Clientset)
		code     int
		stdout   string
		stderr   string
		noStdout bool
	}{{
		name: "explains", args: []string{"explain", "data"}, code: ExitOK, stdout: "State:        none",
	}, {
		name: "flags after the claim", args: []string{"explain", "data", "-n", ns, "-o", "json"}, code: ExitOK, stdout: `"nextStepBy": "resizer"`,
	}, {
		name: "kubectl's TYPE/NAME", args: []string{"--namespace=apps", "explain", "pvc/data"}, code: ExitOK, stdout: "Claim:        apps/data (Bound)",
	}, {
		name: "claim not found", args: []string{"explain", "-n", "other", "data"}, code: ExitError, noStdout: true,
		stderr: `kubectl csi-resizer: persistentvolumeclaims "other/data" not found` + "\n",
	}, {
		name: "claim forbidden", args: []string{"explain", "data"}, code: ExitError, noStdout: true,
		react: func(c *fake.Clientset) {
			c.PrependReactor("get", "persistentvolumeclaims", forbidden("persistentvolumeclaims"))
		},
		stderr: `cannot read persistentvolumeclaims "apps/data": permission missing: get persistentvolumeclaims in namespace "apps"`,
	}, {
		name: "volume forbidden", args: []string{"explain", "data"}, code: ExitError, noStdout: true,
		react:  func(c *fake.Clientset) { c.PrependReactor("get", "persistentvolumes", forbidden("persistentvolumes")) },
		stderr: `cannot read persistentvolumes "pv-data": permission missing: get persistentvolumes (cluster-wide)`,
	}, {
		name: "events forbidden: explained without them", args: []string{"explain", "data"}, code: ExitOK,
		react:  func(c *fake.Clientset) { c.PrependReactor("list", "events", forbidden("events")) },
		stdout: `cannot read events of namespace "apps": permission missing: list events in namespace "apps"`,
	}, {
		name: "no kubeconfig", args: []string{"--kubeconfig=/missing", "explain", "data"}, code: ExitError, noStdout: true,
		stderr: "kubectl csi-resizer: stat /missing: no such file or directory\n",
	}, {
		name: "version", args: []string{"--version"}, code: ExitOK, stdout: "kubectl-csi_resizer " + version.Version + "\n",
	}, {
		name: "help", args: []string{"--help"}, code: ExitOK, stdout: "Usage: kubectl csi-resizer explain [-n NAMESPACE] CLAIM [flags]",
	}, {
		name: "no command", args: nil, code: ExitUsage, noStdout: true, stderr: "no command: use `explain CLAIM`",
	}, {
		name: "unknown command", args: []string{"describe", "data"}, code: ExitUsage, noStdout: true, stderr: `unknown command "describe"`,
	}, {
		name: "no claim", args: []string{"explain"}, code: ExitUsage, noStdout: true, stderr: "explain takes one claim name, got 0",
	}, {
		name: "bad output", args: []string{"explain", "data", "-o", "yaml"}, code: ExitUsage, noStdout: true,
		stderr: "kubectl csi-resizer: invalid output format \"yaml\": use text or json\nRun 'kubectl csi-resizer --help' for usage.\n",
	}, {
		name: "unknown flag", args: []string{"explain", "data", "--all"}, code: ExitUsage, noStdout: true,
		stderr: "kubectl csi-resizer: flag provided but not defined: -all\nRun 'kubectl csi-resizer --help' for usage.\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(objs...)
			if tc.react != nil {
				tc.react(client)
			}
			code, stdout, stderr := run(client, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if !strings.Contains(stdout, tc.stdout) || (tc.noStdout && stdout != "") {
				t.Errorf("stdout lacks %q (or should be empty):\n%s", tc.stdout, stdout)
			}
			if !strings.Contains(stderr, tc.stderr) || (tc.stderr == "" && stderr != "") {
				t.Errorf("stderr = %q, want %q", stderr, tc.stderr)
			}
			// The usage says `kubectl csi-resizer`: so does every error.
			if strings.Contains(stderr, ProgramName) || (stderr != "" && !strings.HasPrefix(stderr, CommandName+": ")) {
				t.Errorf("stderr = %q, want it to name the command %q", stderr, CommandName)
			}
		})
	}
}

// TestJSONFieldNames pins the JSON of an explanation: scripts read these
// names.
func TestJSONFieldNames(t *testing.T) {
	code, stdout, _ := run(fake.NewClientset(append(growing(), freshLease(), storageClass(true))...), "explain", "data", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit code %d", code)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	for _, path := range []string{"at", "claim.namespace", "claim.name", "claim.phase", "claim.request", "claim.capacity", "volume.name", "volume.csiDriver",
		"storageClass.allowVolumeExpansion", "owner.driver", "owner.handled", "owner.why", "resizer.lease", "resizer.status", "resizer.holder",
		"resizer.renewedAt", "resizer.settings.retryIntervalMax", "resizer.settings.recoverVolumeExpansionFailure", "resizer.settings.from",
		"operations.0.operation", "operations.0.state", "operations.0.nextStepBy", "operations.0.next", "operations.0.summary",
		"operations.0.decision.summary", "operations.0.decision.action", "operations.0.decision.target", "operations.0.decision.reason", "operations.1.operation", "unknowns"} {
		if lookup(got, path) == nil {
			t.Errorf("JSON has no %s:\n%s", path, stdout)
		}
	}
	var x Explanation
	if err := json.Unmarshal([]byte(stdout), &x); err != nil || x.Resizer.Settings.RetryIntervalMax != resizeroptions.Duration(5*time.Minute) {
		t.Errorf("JSON does not read back: %v, %+v", err, x.Resizer)
	}
}

// lookup follows a dotted path of keys and list indexes.
func lookup(v any, path string) any {
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[key]
		case []any:
			i := int(key[0] - '0')
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// TestCommandReadsOnly: every request explain makes is a get or a list,
// and it reads no pod but with the list of the claim's namespace (the
// resizer's settings are on its Lease).
func TestCommandReadsOnly(t *testing.T) {
	pvc := claim("1Gi", "1Gi", classes("gold", "silver"))
	client := fake.NewClientset(pvc, volume(pvc, "1Gi"), freshLease(), storageClass(true), vac("gold", driver), runningPod("app"))
	if code, _, stderr := run(client, "explain", "data"); code != ExitOK {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	seen := map[string]bool{}
	for _, a := range client.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" || a.GetVerb() == "get" && a.GetResource().Resource == "pods" {
			t.Errorf("explain did %s %s", a.GetVerb(), a.GetResource().Resource)
		}
		seen[a.GetVerb()+" "+a.GetResource().Resource] = true
	}
	for _, want := range []string{"get persistentvolumeclaims", "get persistentvolumes", "get storageclasses", "get volumeattributesclasses",
		"list events", "list pods", "list leases"} {
		if !seen[want] {
			t.Errorf("explain did not %s; it did %v", want, seen)
		}
	}
}
