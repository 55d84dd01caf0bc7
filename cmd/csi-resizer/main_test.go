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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// mainEnv makes the test binary run the real main instead of the tests, so
// that a test runs the resizer as a process: its own flags, environment,
// logging and exit code.
const mainEnv = "CSI_RESIZER_TEST_MAIN"

// runTimeout bounds one run. Outside a cluster (no KUBECONFIG, no
// KUBERNETES_SERVICE_HOST) the resizer stops at once after its Settings
// line: a run that takes longer is a hang.
const runTimeout = 30 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// run is the outcome of one run of main.
type run struct {
	code     int
	stdout   string
	stderr   string
	settings map[string]string // the Settings line's pairs; nil without one
}

// runMain runs main with args and an environment holding only env (and
// what makes the test binary run main).
func runMain(t *testing.T, env []string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	// A test binary built for coverage (make test-unit's -coverprofile)
	// warns on stderr when it exits without a place for its counts.
	cmd.Env = append([]string{mainEnv + "=1", "GOCOVERDIR=" + t.TempDir()}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("csi-resizer %q did not exit within %v (it must fail fast outside a cluster); stderr:\n%s", args, runTimeout, stderr.String())
	}
	r := run{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run csi-resizer: %v", err)
	}
	r.settings = settingsLine(t, r.stderr)
	return r
}

// settingsLine finds the Settings line in stderr, in the text or the JSON
// log format, and returns its pairs with every value as text.
func settingsLine(t *testing.T, stderr string) map[string]string {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "{") {
			var entry map[string]any
			d := json.NewDecoder(strings.NewReader(line))
			d.UseNumber()
			if d.Decode(&entry) != nil || entry["msg"] != "Settings" {
				continue
			}
			pairs := map[string]string{}
			for k, v := range entry {
				pairs[k] = strings.Trim(mustJSON(t, v), `"`)
			}
			return pairs
		}
		if _, kv, ok := strings.Cut(line, `] "Settings" `); ok {
			return textPairs(t, kv)
		}
	}
	return nil
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// textPairs reads klog's text key/value pairs: key=value, a string value
// quoted in Go's syntax.
func textPairs(t *testing.T, kv string) map[string]string {
	t.Helper()
	pairs := map[string]string{}
	for kv != "" {
		key, rest, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("Settings line: no value after %q", kv)
		}
		var value string
		if strings.HasPrefix(rest, `"`) {
			quoted, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("Settings line: value of %s: %v", key, err)
			}
			value, _ = strconv.Unquote(quoted)
			rest = rest[len(quoted):]
		} else {
			value, rest, _ = strings.Cut(rest, " ")
			rest = " " + rest
		}
		pairs[key] = value
		kv = strings.TrimPrefix(rest, " ")
	}
	return pairs
}

// TestRefusals: what the resizer refuses exits 2 with one line on stderr
// and no usage, before it logs its Settings.
func TestRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "unknown flag", args: []string{"--csiTimeout=2m5s"}, want: "flag provided but not defined: -csiTimeout"},
		{name: "stray positional argument", args: []string{"--v=5", "extra", "--leader-election"}, want: `unexpected argument "extra"`},
		{name: "flags after --", args: []string{"--", "--v=5"}, want: `unexpected argument "--v=5"`},
		{name: "no workers", args: []string{"--workers=0"}, want: "invalid value 0 for flag --workers"},
		{name: "a logging gate", args: []string{"--feature-gates=ContextualLogging=false"}, want: "unrecognized feature gate: ContextualLogging"},
		{name: "a client-go gate", args: []string{"--feature-gates=WatchListClient=true"}, want: "unrecognized feature gate: WatchListClient"},
		{name: "a locked gate", args: []string{"--feature-gates=APIServerTracing=false"}, want: "feature is locked to true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runMain(t, nil, tc.args...)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) || r.stdout != "" {
				t.Errorf("csi-resizer %q: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout and one line on stderr with %q",
					tc.args, r.code, r.stdout, r.stderr, tc.want)
			}
		})
	}
}

// TestHelpListsEveryGate: --help names every gate --feature-gates accepts.
func TestHelpListsEveryGate(t *testing.T) {
	t.Parallel()
	r := runMain(t, nil, "--help")
	if r.code != 0 {
		t.Fatalf("--help: exit %d, stderr %q", r.code, r.stderr)
	}
	for name := range options.NewGate().GetAll() {
		if !strings.Contains(r.stdout, "\t"+string(name)+"=") {
			t.Errorf("--help does not list the gate %s", name)
		}
	}
}
