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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpusFile holds the resizer arguments of public CSI drivers' manifests
// and the settings upstream v2.2.1 resolves from them; its header says the
// format. Adding a driver is adding a line.
var corpusFile = filepath.Join("..", "..", "test", "testdata", "driver-args.txt")

// settingKeys maps the keys of the Settings line to the corpus's keys (flag
// names), with each setting's default.
var settingKeys = []struct{ log, corpus, def string }{
	{"csiAddress", "csi-address", "/run/csi/socket"},
	{"timeout", "timeout", "10s"},
	{"resizeTimeout", "resize-timeout", "10s"},
	{"modifyTimeout", "modify-timeout", "10s"},
	{"workers", "workers", "10"},
	{"resyncPeriod", "resync-period", "10m0s"},
	{"retryIntervalStart", "retry-interval-start", "1s"},
	{"retryIntervalMax", "retry-interval-max", "5m0s"},
	{"handleVolumeInUseError", "handle-volume-inuse-error", "true"},
	{"leaderElection", "leader-election", "false"},
	{"leaderElectionNamespace", "leader-election-namespace", podNamespace()},
	{"leaseDuration", "lease-duration", "15s"},
	{"renewDeadline", "renew-deadline", "10s"},
	{"retryPeriod", "retry-period", "5s"},
	{"kubeAPIQPS", "kube-api-qps", "5"},
	{"kubeAPIBurst", "kube-api-burst", "10"},
	{"httpEndpoint", "http-endpoint", ""},
	{"metricsAddress", "metrics-address", ""},
	{"metricsPath", "metrics-path", "/metrics"},
	{"verbosity", "v", "0"},
	{"featureGates", "feature-gates", ""},
	{"extraModifyMetadata", "extra-modify-metadata", "false"},
	{"nodeDeployment", "node-deployment", "false"},
}

// podNamespace is the Lease's namespace without flag nor POD_NAMESPACE:
// the service account's when the tests run in a pod, else "default".
func podNamespace() string {
	if b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		if ns := strings.TrimSpace(string(b)); ns != "" {
			return ns
		}
	}
	return "default"
}

// driver is one line of the corpus.
type driver struct {
	line    int
	name    string
	env     []string
	args    []string
	expect  map[string]string // corpus key → value, for what is not a default
	refused string            // the flag upstream does not define, when it refuses the line
}

// TestDriverArgs runs the resizer with each driver's arguments and
// environment, and compares the settings it logs with upstream's.
func TestDriverArgs(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	drivers, errs := parseCorpus(string(data))
	for _, err := range errs {
		t.Errorf("%s:%v", corpusFile, err)
	}
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			r := runMain(t, d.env, d.args...)
			if d.refused != "" {
				want := "flag provided but not defined: -" + d.refused
				if r.code != 2 || !strings.Contains(r.stderr, want) || r.settings != nil {
					t.Errorf("line %d: exit %d, stderr %q; want exit 2 with %q, as upstream refuses it", d.line, r.code, r.stderr, want)
				}
				return
			}
			if r.code == 2 || strings.Contains(r.stdout, "Usage") || r.settings == nil {
				t.Fatalf("line %d: refused or no Settings line: exit %d, stdout %q, stderr:\n%s", d.line, r.code, r.stdout, r.stderr)
			}
			for _, k := range settingKeys {
				want, ok := d.expect[k.corpus]
				if !ok {
					want = k.def
				}
				got, ok := r.settings[k.log]
				if k.corpus == "kube-api-qps" {
					got = qps(got)
				}
				if !ok || got != want {
					t.Errorf("line %d: %s = %q (Settings %s), want %q", d.line, k.corpus, got, k.log, want)
				}
			}
		})
	}
}

// qps writes a logged number as the corpus does (%g).
func qps(logged string) string {
	f, err := strconv.ParseFloat(logged, 64)
	if err != nil {
		return logged
	}
	return fmt.Sprintf("%g", f)
}

// parseCorpus reads the corpus: "name | source | env | args | expect" a
// line, '#' comments. Each malformed line is an error naming its number.
func parseCorpus(data string) ([]driver, []error) {
	known := map[string]bool{}
	for _, k := range settingKeys {
		known[k.corpus] = true
	}
	var drivers []driver
	var errs []error
	names := map[string]int{}
	for i, line := range strings.Split(data, "\n") {
		n := i + 1
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		d, err := parseLine(line, known)
		if err == nil && names[d.name] != 0 {
			err = fmt.Errorf("driver %q is on line %d too", d.name, names[d.name])
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%d: %w", n, err))
			continue
		}
		d.line = n
		names[d.name] = n
		drivers = append(drivers, d)
	}
	if len(drivers) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("0: no driver"))
	}
	return drivers, errs
}

// parseLine reads one driver line; known holds the expect keys.
func parseLine(line string, known map[string]bool) (driver, error) {
	fields := strings.Split(line, " | ")
	if len(fields) != 5 {
		return driver{}, fmt.Errorf("%d fields, want 5 separated by \" | \"", len(fields))
	}
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	d := driver{name: fields[0], expect: map[string]string{}}
	if d.name == "" || strings.ContainsAny(d.name, " /") {
		return driver{}, fmt.Errorf("name %q: want one word without '/'", d.name)
	}
	envWords, err := words(fields[2])
	if err != nil {
		return driver{}, fmt.Errorf("env: %w", err)
	}
	vars := map[string]string{}
	for _, w := range envWords {
		name, value, ok := strings.Cut(w, "=")
		if !ok || name == "" {
			return driver{}, fmt.Errorf("env: %q is not VAR=value", w)
		}
		vars[name] = expand(value, vars)
		d.env = append(d.env, name+"="+vars[name])
	}
	args, err := words(fields[3])
	if err != nil {
		return driver{}, fmt.Errorf("args: %w", err)
	}
	for _, a := range args {
		d.args = append(d.args, expand(a, vars))
	}
	expect, err := words(fields[4])
	if err != nil {
		return driver{}, fmt.Errorf("expect: %w", err)
	}
	for _, w := range expect {
		key, value, ok := strings.Cut(w, "=")
		switch {
		case !ok:
			return driver{}, fmt.Errorf("expect: %q is not key=value", w)
		case key == "refused" && len(expect) == 1:
			d.refused = value
		case !known[key]:
			return driver{}, fmt.Errorf("expect: unknown key %q", key)
		default:
			d.expect[key] = value
		}
	}
	return d, nil
}

// words splits a field at spaces, keeping a single-quoted part whole; "-"
// is no words.
func words(field string) ([]string, error) {
	if field == "-" {
		return nil, nil
	}
	var out []string
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range field {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				out = append(out, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote in %q", field)
	}
	if inWord {
		out = append(out, word.String())
	}
	return out, nil
}

// expand replaces $(VAR) references in s with vars' values as kubelet does
// in a container's args: "$$" is "$", and a reference to an unknown
// variable, or an unterminated one, stays as written.
func expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch next := s[i+1]; next {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			ref := s[i : i+3+end]
			if v, ok := vars[s[i+2:i+2+end]]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(ref)
			}
			i += 2 + end
		default:
			b.WriteByte('$')
			b.WriteByte(next)
			i++
		}
	}
	return b.String()
}
