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
	"flag"
	"testing"
	"time"

	"github.com/kubernetes-csi/csi-lib-utils/standardflags"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// upstreamFlags is the flag set of upstream external-resizer v2.2.1: its
// own flags (cmd/csi-resizer/main.go of that release), csi-lib-utils
// v0.24.0's common flags (the version upstream and we build with; its
// --metrics-path and --automaxprocs register on the global flag set, where
// upstream parses, so they are added here), and the logging flags.
func upstreamFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("upstream", flag.ContinueOnError)
	fs.String("master", "", "")
	fs.Duration("resync-period", 10*time.Minute, "")
	fs.Int("workers", 10, "")
	fs.Bool("extra-modify-metadata", false, "")
	fs.Duration("timeout", 10*time.Second, "")
	fs.Duration("retry-interval-start", time.Second, "")
	fs.Duration("retry-interval-max", 5*time.Minute, "")
	fs.Bool("handle-volume-inuse-error", true, "")
	var gates map[string]bool
	fs.Var(cliflag.NewMapStringBool(&gates), "feature-gates", "")
	logsapi.AddGoFlags(logsapi.NewLoggingConfiguration(), fs)
	standardflags.RegisterCommonFlags(fs)
	fs.String("metrics-path", "/metrics", "")
	fs.Bool("automaxprocs", false, "")
	return fs
}

// flagDifferences are the flags where ours differ from upstream v2.2.1's, by
// name; the README's table of flags lists each with its reason.
var flagDifferences = map[string]string{
	"resize-timeout": "ours only",
	"modify-timeout": "ours only",
	// Upstream's open PR 573 adds it, with NODE_NAME and without leader
	// election, as here.
	"node-deployment": "ours only",
	// Go does not read a cgroup's memory limit by itself.
	"automemlimit": "ours only",
}

// TestFlagsAgainstUpstream compares our flags with upstream v2.2.1's, flag
// by flag: the same names and defaults, but for flagDifferences.
func TestFlagsAgainstUpstream(t *testing.T) {
	o := &Options{Features: NewGate(), Logging: logsapi.NewLoggingConfiguration(), LeaderElectionLabels: map[string]string{}}
	var gates map[string]bool
	ours := newFlagSet(o, &gates, nil)
	upstream := upstreamFlags()
	got := map[string]string{}
	ours.VisitAll(func(f *flag.Flag) {
		u := upstream.Lookup(f.Name)
		switch {
		case u == nil:
			got[f.Name] = "ours only"
		case defaultOf(u) != defaultOf(f):
			got[f.Name] = "default " + f.DefValue + ", upstream " + u.DefValue
		case isBool(u) != isBool(f):
			got[f.Name] = "boolean in one only"
		}
	})
	upstream.VisitAll(func(f *flag.Flag) {
		if ours.Lookup(f.Name) == nil {
			got[f.Name] = "upstream only"
		}
	})
	for name, want := range flagDifferences {
		if got[name] != want {
			t.Errorf("--%s: %q, want %q", name, got[name], want)
		}
	}
	for name, diff := range got {
		if _, listed := flagDifferences[name]; !listed {
			t.Errorf("--%s differs from upstream v2.2.1 (%s) and is not listed", name, diff)
		}
	}
}

// defaultOf is f's default as --help shows it; an empty map reads as empty.
func defaultOf(f *flag.Flag) string {
	if f.DefValue == "map[]" {
		return ""
	}
	return f.DefValue
}

// isBool reports whether f may be given without a value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
