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

package list

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/csi-resizer/csi-resizer/pkg/explain"
	"github.com/csi-resizer/csi-resizer/pkg/version"
)

// Name is the subcommand's name: `kubectl csi-resizer list`.
const Name = "list"

// Connect makes a Reader from the kubeconfig flags, as explain.Connect
// does, and returns the namespace of the chosen context too.
type Connect func(kubeconfig, context string) (r Reader, namespace string, err error)

// Command is the command line `list` with kubectl's flags. Its exit codes
// are explain's: explain.ExitOK once it has listed (whatever it found),
// explain.ExitError when the claims or PVs cannot be read or the output
// not written, explain.ExitUsage on bad flags or arguments.
type Command struct {
	Stdout, Stderr io.Writer
	Connect        Connect
	// Now is time.Now when nil.
	Now func() time.Time
}

// options are the parsed command line.
type options struct {
	explain.Flags
	allNamespaces bool
	args          []string
}

const usage = `Usage: kubectl csi-resizer list [-A | -n NAMESPACE] [--driver DRIVER] [-o wide|json] [flags]

Lists the claims with an unfinished expansion or VolumeAttributesClass
modification, one line per unfinished operation, the oldest first (those
that record no time last): the state csi-resizer records (the state label of
csi_resizer_claims, computed by the same code, for the claims the driver's
resizer owns), since when, who owns the next step and why, as
'kubectl csi-resizer explain' says it for each claim. Explain a claim for
what to do.

Columns: NAMESPACE, NAME; OPERATION (resize or modify) and STATE; SINCE, how
long ago the claim entered the state (<unknown> when no condition records
it); OWNER, who owns the next step: resizer, driver, kubelet, user, or
nobody (no resizer runs); REASON, explain's summary of the state (cut to 80
characters). -o wide adds DRIVER, VOLUME, NODE (with --node-deployment, the
node whose resizer handles the claim), TARGET (the size or class the
operation is for) and SINCE-FROM (the condition SINCE is read from), and
keeps REASON whole; -o json writes the same fields.

It only reads: it lists the claims and the PVs, then, when a claim may be
unfinished, the pods and the claims' events (of the namespace, or of all
namespaces with -A) and the VolumeAttributesClasses, and gets each driver's
resizer Lease and the pod that holds it. Without the pods, a claim that pods
hold back (waiting_in_use) is missed, and a warning says so.

Flags:
`

// IsCommand reports whether args (without the program name) run list: its
// first argument that is not a flag is "list". Flags may come before it,
// as kubectl takes them.
func IsCommand(args []string) bool {
	fs := flagSet(&options{})
	if fs.Parse(args) != nil {
		return false
	}
	rest := fs.Args()
	return len(rest) > 0 && rest[0] == Name
}

// Run runs the command with args (without the program name) and returns
// its exit code.
func (c Command) Run(ctx context.Context, args []string) int {
	o, err := c.parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return explain.ExitOK
	case err != nil:
		fmt.Fprintf(c.Stderr, "%s %s: %v\nRun '%s %s --help' for usage.\n", explain.CommandName, Name, err, explain.CommandName, Name)
		return explain.ExitUsage
	case o.Version:
		fmt.Fprintln(c.Stdout, explain.ProgramName, version.Version)
		return explain.ExitOK
	}
	if err := c.list(ctx, o); err != nil {
		fmt.Fprintf(c.Stderr, "%s %s: %v\n", explain.CommandName, Name, err)
		return explain.ExitError
	}
	return explain.ExitOK
}

func (c Command) list(ctx context.Context, o *options) error {
	r, namespace, err := c.Connect(o.Kubeconfig, o.Context)
	if err != nil {
		return err
	}
	switch {
	case o.allNamespaces:
		namespace = ""
	case o.Namespace != "":
		namespace = o.Namespace
	case namespace == "":
		namespace = "default"
	}
	in, err := Read(ctx, r, Request{Namespace: namespace, Driver: o.Driver, ResizerNamespace: o.ResizerNamespace})
	if err != nil {
		return err
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	res := Unfinished(in, now())
	if o.Output == "json" {
		return JSON(c.Stdout, res)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(c.Stderr, "Warning: %s\n", w)
	}
	if len(res.Items) == 0 {
		fmt.Fprintf(c.Stderr, "No unfinished claims found%s%s.\n", ofDriver(o.Driver), inScope(namespace))
		return nil
	}
	return Table(c.Stdout, res, o.Output == "wide")
}

func ofDriver(driver string) string {
	if driver == "" {
		return ""
	}
	return " of driver " + driver
}

func inScope(namespace string) string {
	if namespace == "" {
		return " in any namespace"
	}
	return fmt.Sprintf(" in namespace %q", namespace)
}

// flagSet defines list's flags on o: explain's, and -A.
func flagSet(o *options) *flag.FlagSet {
	fs := explain.NewFlagSet(explain.CommandName+" "+Name, &o.Flags, explain.FlagHelp{
		Namespace:        "List the claims of this namespace; default: the namespace of the context.",
		Output:           "Output format: text, wide or json.",
		Driver:           "List the claims the resizer of this CSI driver handles; default: each claim for the driver of its volume.",
		ResizerNamespace: "Namespace of the resizers' Leases (their --leader-election-namespace); default: look in every namespace.",
	})
	fs.BoolVar(&o.allNamespaces, "all-namespaces", false, "List the claims of every namespace; overrides --namespace.")
	fs.BoolVar(&o.allNamespaces, "A", false, "Short for --all-namespaces.")
	return fs
}

// parse reads flags before, between and after the arguments, as kubectl
// does: `-n ns list` and `list -n ns` are the same.
func (c Command) parse(args []string) (*options, error) {
	o := &options{}
	var err error
	if o.args, err = explain.ParseFlags(flagSet(o), args, c.Stdout, usage); err != nil {
		return nil, err
	}
	if o.Version {
		return o, nil
	}
	switch {
	case len(o.args) == 0 || o.args[0] != Name:
		return nil, errors.New("not the list command")
	case len(o.args) > 1:
		return nil, fmt.Errorf("list takes no arguments, got %q: name a namespace with -n, or explain one claim with `explain CLAIM`", o.args[1:])
	case o.Output != "text" && o.Output != "wide" && o.Output != "json":
		return nil, fmt.Errorf("invalid output format %q: use text, wide or json", o.Output)
	}
	return o, nil
}
