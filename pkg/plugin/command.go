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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/version"
)

// ProgramName is the command's name; kubectl runs it as the plugin
// CommandName, which its usage and errors name.
const (
	ProgramName = "kubectl-csi_resizer"
	CommandName = "kubectl csi-resizer"
	// ListName is the subcommand list; any other runs `explain CLAIM`.
	ListName = "list"
)

// Exit codes of Command.Run, for explain and list alike: list exits ExitOK
// once it has listed, whatever it found.
const (
	ExitOK    = 0
	ExitError = 1 // the claim (list: the claims or PVs) could not be read, or the output written
	ExitUsage = 2 // bad flags or arguments
)

// Connect makes a client, and names its context's namespace, from the
// kubeconfig flags, by the standard loading rules.
type Connect func(kubeconfig, context string) (c kube.Interface, namespace string, err error)

// Command is the command line: `explain CLAIM` or `list`, with kubectl's
// flags; Now is time.Now when nil.
type Command struct {
	Stdout, Stderr io.Writer
	Connect        Connect
	Now            func() time.Time
}

// options are the parsed command line: the flags every command takes, as
// kubectl names them, list's -A, and the arguments.
type options struct {
	kubeconfig, context, namespace, output string
	driver, resizerNamespace               string
	version, allNamespaces, list           bool
	args                                   []string
}

// Run runs the command with args (without the program name) and returns
// its exit code.
func (c Command) Run(ctx context.Context, args []string) int {
	name := CommandName
	if isList(args) {
		name += " " + ListName
	}
	o, err := c.parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case err != nil:
		fmt.Fprintf(c.Stderr, "%s: %v\nRun '%s --help' for usage.\n", name, err, name)
		return ExitUsage
	case o.version:
		fmt.Fprintln(c.Stdout, ProgramName, version.Version)
		return ExitOK
	}
	if err := c.run(ctx, o); err != nil {
		fmt.Fprintf(c.Stderr, "%s: %v\n", name, err)
		return ExitError
	}
	return ExitOK
}

// run reads through Connect, in the namespace the flags name, else the
// context's, else "default"; "" for every namespace (list -A).
func (c Command) run(ctx context.Context, o *options) error {
	client, namespace, err := c.Connect(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	switch {
	case o.allNamespaces:
		namespace = ""
	case o.namespace != "":
		namespace = o.namespace
	case namespace == "":
		namespace = "default"
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	at, req := now(), Request{Namespace: namespace, Driver: o.driver, ResizerNamespace: o.resizerNamespace}
	if !o.list {
		req.Claim = o.args[1]
		objs, err := Gather(ctx, client, req)
		if err != nil {
			return err
		}
		x := Explain(objs, at)
		if o.output == "json" {
			return JSON(c.Stdout, x)
		}
		return Text(c.Stdout, x)
	}
	in, err := Read(ctx, client, req)
	if err != nil {
		return err
	}
	res := List(in, at)
	if o.output == "json" {
		return JSON(c.Stdout, res)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(c.Stderr, "Warning: %s\n", w)
	}
	if len(res.Items) == 0 {
		driver := ""
		if o.driver != "" {
			driver = " of driver " + o.driver
		}
		fmt.Fprintf(c.Stderr, "No unfinished claims found%s%s.\n", driver, inScope(namespace))
		return nil
	}
	return Table(c.Stdout, res, o.output == "wide")
}

// parse reads flags before, between and after the arguments, as kubectl
// does; on --help it writes the usage to Stdout and returns flag.ErrHelp.
func (c Command) parse(args []string) (*options, error) {
	o := &options{list: isList(args)}
	fs, usage := flagSet(o, o.list), explainUsage
	if o.list {
		usage = listUsage
	}
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(c.Stdout)
				fmt.Fprint(c.Stdout, usage)
				fs.PrintDefaults()
			}
			return nil, err
		}
		if rest = fs.Args(); len(rest) == 0 {
			break
		}
		o.args, rest = append(o.args, rest[0]), rest[1:]
	}
	if o.version {
		return o, nil
	}
	return o, o.validate()
}

func (o *options) validate() error {
	switch {
	case o.list && len(o.args) > 1:
		return fmt.Errorf("list takes no arguments, got %q: name a namespace with -n, or explain one claim with `explain CLAIM`", o.args[1:])
	case o.list && o.output != "text" && o.output != "wide" && o.output != "json":
		return fmt.Errorf("invalid output format %q: use text, wide or json", o.output)
	case o.list:
		return nil
	case len(o.args) == 0:
		return errors.New("no command: use `explain CLAIM` or `list`")
	case o.args[0] != "explain":
		return fmt.Errorf("unknown command %q: the commands are `explain CLAIM` and `list`", o.args[0])
	case len(o.args) != 2:
		return fmt.Errorf("explain takes one claim name, got %d", len(o.args)-1)
	case o.output != "text" && o.output != "json":
		return fmt.Errorf("invalid output format %q: use text or json", o.output)
	}
	kind, name, ok := strings.Cut(o.args[1], "/") // kubectl's TYPE/NAME
	if ok && slices.Contains([]string{"pvc", "persistentvolumeclaim", "persistentvolumeclaims"}, strings.ToLower(kind)) {
		o.args[1] = name
	}
	if o.args[1] == "" {
		return errors.New("empty claim name")
	}
	return nil
}

const explainUsage = `Usage: kubectl csi-resizer explain [-n NAMESPACE] CLAIM [flags]
       kubectl csi-resizer list [-A | -n NAMESPACE] [--driver DRIVER] [-o wide|json]
         (the unfinished claims, one line each: kubectl csi-resizer list --help)

Explains, in plain words, where a PersistentVolumeClaim's expansion and
VolumeAttributesClass modification stand: the state csi-resizer records and
since when, who owns the next step (the resizer, its driver, kubelet or the
user), what the resizer will do next and when, and what you can do. It only
reads (get and list): the claim, its PV, StorageClass and
VolumeAttributesClasses, its events, the pods of its namespace, and the
resizer's Lease.

Flags:
`

const listUsage = `Usage: kubectl csi-resizer list [-A | -n NAMESPACE] [--driver DRIVER] [-o wide|json] [flags]

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
resizer Lease. Without the pods, a claim that pods hold back
(waiting_in_use) is missed, and a warning says so.

Flags:
`

// flagSet defines on o the flags of the command, list's when list is set;
// it prints nothing itself (see parse).
func flagSet(o *options, list bool) *flag.FlagSet {
	help := [4]string{"Namespace of the claim; default: the namespace of the context.", "Output format: text or json.",
		"Explain the claim for the resizer of this CSI driver; default: the driver of the claim's volume.",
		"Namespace of the resizer's Lease (its --leader-election-namespace); default: look in every namespace."}
	name := ProgramName
	if list {
		help = [4]string{"List the claims of this namespace; default: the namespace of the context.", "Output format: text, wide or json.",
			"List the claims the resizer of this CSI driver handles; default: each claim for the driver of its volume.",
			"Namespace of the resizers' Leases (their --leader-election-namespace); default: look in every namespace."}
		name = CommandName + " " + ListName
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to the kubeconfig file; default: $KUBECONFIG, else ~/.kube/config.")
	fs.StringVar(&o.context, "context", "", "The kubeconfig context to use; default: the current one.")
	fs.StringVar(&o.namespace, "namespace", "", help[0])
	fs.StringVar(&o.namespace, "n", "", "Short for --namespace.")
	fs.StringVar(&o.output, "output", "text", help[1])
	fs.StringVar(&o.output, "o", "text", "Short for --output.")
	fs.StringVar(&o.driver, "driver", "", help[2])
	fs.StringVar(&o.resizerNamespace, "resizer-namespace", "", help[3])
	fs.BoolVar(&o.version, "version", false, "Print the version and exit.")
	if list {
		fs.BoolVar(&o.allNamespaces, "all-namespaces", false, "List the claims of every namespace; overrides --namespace.")
		fs.BoolVar(&o.allNamespaces, "A", false, "Short for --all-namespaces.")
	}
	return fs
}

// isList reports whether args run list: its first argument that is not a
// flag (flags may come before it, as kubectl takes them) is "list".
func isList(args []string) bool {
	fs := flagSet(&options{}, true)
	return fs.Parse(args) == nil && fs.Arg(0) == ListName
}
