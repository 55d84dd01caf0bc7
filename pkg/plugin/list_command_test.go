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
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/csi-resizer/csi-resizer/pkg/version"
)

func TestListCommandExitCodes(t *testing.T) {
	tests := []struct {
		name           string
		args           []string
		react          func(*fake.Clientset)
		code           int
		stdout, stderr string
		noStdout       bool
	}{{
		name: "the context's namespace", args: []string{"list"}, code: ExitOK,
		stdout: "apps        failing   resize      controller_error",
	}, {
		name: "flags first, as kubectl takes them", args: []string{"-n", "web", "list"}, code: ExitOK, stdout: "web         node      resize",
	}, {
		name: "every namespace", args: []string{"list", "-A", "-o", "wide"}, code: ExitOK, stdout: "web         node",
	}, {
		name: "-A overrides -n, as kubectl's", args: []string{"list", "-n", "empty", "--all-namespaces"}, code: ExitOK, stdout: "web ",
	}, {
		name: "nothing unfinished", args: []string{"list", "-n", "empty"}, code: ExitOK, noStdout: true,
		stderr: `No unfinished claims found in namespace "empty".`,
	}, {
		name: "nothing unfinished of a driver", args: []string{"list", "-A", "--driver", "none.csi.example.com"}, code: ExitOK, noStdout: true,
		stderr: `No unfinished claims found of driver none.csi.example.com in any namespace.`,
	}, {
		name: "claims forbidden", args: []string{"list", "-A"}, code: ExitError, noStdout: true,
		react: func(c *fake.Clientset) {
			c.PrependReactor("list", "persistentvolumeclaims", forbidden("persistentvolumeclaims"))
		},
		stderr: "kubectl csi-resizer list: cannot read persistentvolumeclaims of all namespaces: permission missing: list persistentvolumeclaims (cluster-wide)",
	}, {
		name: "volumes forbidden", args: []string{"list"}, code: ExitError, noStdout: true,
		react:  func(c *fake.Clientset) { c.PrependReactor("list", "persistentvolumes", forbidden("persistentvolumes")) },
		stderr: "cannot read persistentvolumes of all namespaces: permission missing: list persistentvolumes (cluster-wide)",
	}, {
		name: "pods forbidden: listed without them", args: []string{"list"}, code: ExitOK, stdout: "failing",
		react:  func(c *fake.Clientset) { c.PrependReactor("list", "pods", forbidden("pods")) },
		stderr: `Warning: cannot read pods of namespace "apps": permission missing: list pods in namespace "apps"`,
	}, {
		name: "kubeconfig missing", args: []string{"list", "--kubeconfig=/missing"}, code: ExitError, noStdout: true,
		stderr: "kubectl csi-resizer list: stat /missing: no such file or directory",
	}, {
		name: "an argument", args: []string{"list", "data"}, code: ExitUsage, noStdout: true,
		stderr: "list takes no arguments, got [\"data\"]",
	}, {
		name: "bad output", args: []string{"list", "-o", "yaml"}, code: ExitUsage, noStdout: true,
		stderr: `invalid output format "yaml": use text, wide or json`,
	}, {
		name: "bad flag", args: []string{"list", "--bogus"}, code: ExitUsage, noStdout: true,
		stderr: "kubectl csi-resizer list: flag provided but not defined: -bogus\nRun 'kubectl csi-resizer list --help' for usage.",
	}, {
		name: "help", args: []string{"list", "--help"}, code: ExitOK,
		stdout: "Usage: kubectl csi-resizer list [-A | -n NAMESPACE] [--driver DRIVER] [-o wide|json]",
	}, {
		name: "version", args: []string{"list", "--version"}, code: ExitOK, stdout: "kubectl-csi_resizer " + version.Version,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(cluster()...)
			if tt.react != nil {
				tt.react(client)
			}
			code, stdout, stderr := run(client, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) || (tt.noStdout && stdout != "") {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}

func TestIsList(t *testing.T) {
	for args, want := range map[string]bool{
		"list":                     true,
		"list -A -o wide":          true,
		"-n ns list":               true,
		"--kubeconfig=k -A list":   true,
		"-o json list --driver d":  true,
		"list --help":              true,
		"explain list":             false,
		"-n list explain data":     false,
		"explain data":             false,
		"":                         false,
		"--help":                   false,
		"--bogus list":             false,
		"--context c explain data": false,
	} {
		if got := isList(strings.Fields(args)); got != want {
			t.Errorf("isList(%q) = %v, want %v", args, got, want)
		}
	}
}

func TestTable(t *testing.T) {
	r := listed(t, Request{Namespace: ns, Driver: driver}, cluster()...)
	var text, wide bytes.Buffer
	if err := Table(&text, r, false); err != nil {
		t.Fatal(err)
	}
	if err := Table(&wide, r, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("text:\n%s\nwide:\n%s", text.String(), wide.String())
	// The columns but REASON, whose words are explain's (its tests check
	// them): here, that it is explain's summary, cut.
	want := []string{
		"NAMESPACE   NAME      OPERATION   STATE                   SINCE       OWNER     REASON",
		"apps        failing   resize      controller_error        3h          resizer   The driver's last answer to the expansion to 3Gi was a final failure",
		"apps        big       resize      controller_infeasible   2h          user      The driver refused 10Gi as infeasible",
		"apps        slow      modify      in_progress             30m         resizer   The resizer recorded the modification to class \"fast\"",
		"apps        gold      modify      pending                 <unknown>   user      The claim asks for VolumeAttributesClass \"gold\"",
		"apps        held      resize      waiting_in_use          <unknown>   user      The driver cannot expand the volume while a pod uses it",
	}
	got := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("table has %d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d: %q\nwant prefix %q", i, got[i], want[i])
		}
		if i > 0 && !strings.HasSuffix(got[i], "   "+cut(r.Items[i-1].Reason, reasonWidth)) {
			t.Errorf("line %d: %q does not end with the reason cut to %d", i, got[i], reasonWidth)
		}
	}
	wideLines := strings.Split(wide.String(), "\n")
	if h := strings.Fields(wideLines[0]); strings.Join(h, " ") != "NAMESPACE NAME OPERATION STATE SINCE OWNER DRIVER VOLUME NODE TARGET SINCE-FROM REASON" {
		t.Errorf("wide header: %q", h)
	}
	for i, want := range []string{
		"resizer   " + driver + "   pv-apps-failing   -         3Gi       ControllerResizeError   " + r.Items[0].Reason,
		"user      " + driver + "   pv-apps-gold      -         gold      -                       " + r.Items[3].Reason,
	} {
		if !strings.Contains(wide.String(), want) {
			t.Errorf("wide table lacks %q", want)
		}
		if len(r.Items[i].Reason) <= reasonWidth && i == 0 {
			t.Errorf("reason %q is not long enough to test the wide table", r.Items[i].Reason)
		}
	}
}

func TestCut(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"a sentence that is too long", 12, "a sentenc..."},
		{"ends at a space here", 13, "ends at a..."},
		{"ünïcödé ünïcödé", 10, "ünïcödé..."},
	} {
		if got := cut(tt.s, tt.n); got != tt.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	client := fake.NewClientset(cluster()...)
	code, stdout, stderr := run(client, "list", "-A", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	var r Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(r.Items) != 7 || r.Items[0].Name != "failing" || !r.At.Equal(now) || r.Namespace != "" {
		t.Errorf("parsed %+v", r)
	}
	// The field names and the time format are the contract of scripts.
	for _, want := range []string{
		`"at": "2026-11-23T13:00:00Z"`,
		`"namespace": "apps"`, `"name": "failing"`, `"operation": "resize"`, `"state": "controller_error"`,
		`"since": "2026-11-23T10:00:00Z"`, `"sinceFrom": "ControllerResizeError"`, `"nextStepBy": "resizer"`,
		`"reason": "The driver's last answer to the expansion to 3Gi was a final failure: rpc error: code = Internal desc = the backend is down`,
		`"driver": "ebs.csi.example.com"`, `"volume": "pv-apps-failing"`, `"target": "3Gi"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("JSON lacks %s:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, `"warnings"`) || strings.Contains(stdout, `"driver": ""`) {
		t.Errorf("JSON has empty fields:\n%s", stdout)
	}

	_, stdout, _ = run(client, "list", "-n", "empty", "-o", "json", "--driver", driver)
	if want := "{\n  \"at\": \"2026-11-23T13:00:00Z\",\n  \"namespace\": \"empty\",\n  \"driver\": \"" + driver + "\",\n  \"items\": []\n}\n"; stdout != want {
		t.Errorf("empty list as JSON:\n%s\nwant:\n%s", stdout, want)
	}
}
