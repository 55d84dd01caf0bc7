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
	"strings"
	"time"

	"github.com/csi-resizer/csi-resizer/pkg/version"
)

// ProgramName is the command's name; kubectl runs it as the plugin
// `kubectl csi-resizer`.
const ProgramName = "kubectl-csi_resizer"

// CommandName is the command as its usage and its errors name it: the
// plugin as kubectl runs it.
const CommandName = "kubectl csi-resizer"

// ListName is the subcommand `kubectl csi-resizer list`; any other runs
// explain, which takes `explain CLAIM`.
const ListName = "list"

// Exit codes of Command.Run, for explain and list alike: list exits ExitOK
// once it has listed, whatever it found.
const (
	ExitOK    = 0
	ExitError = 1 // the claim (list: the claims or PVs) could not be read, or the output written
	ExitUsage = 2 // bad flags or arguments
)

// Connect makes a Reader from the kubeconfig flags (the standard loading
// rules: --kubeconfig, else $KUBECONFIG, else ~/.kube/config; --context,
// else the current one). It returns the namespace of that context too.
type Connect func(kubeconfig, context string) (r Reader, namespace string, err error)

// Command is the command line: `explain CLAIM` or `list`, with kubectl's
// flags.
type Command struct {
	Stdout, Stderr io.Writer
	Connect        Connect
	// Now is time.Now when nil.
	Now func() time.Time
}

// options are the parsed command line: the flags every command takes, as
// kubectl names them, list's -A, and the arguments.
type options struct {
	kubeconfig, context, namespace, output string
	driver, resizerNamespace               string
	version, allNamespaces                 bool
	// list is true for the command list.
	list bool
	args []string
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
	run := c.explain
	if o.list {
		run = c.listClaims
	}
	if err := run(ctx, o); err != nil {
		fmt.Fprintf(c.Stderr, "%s: %v\n", name, err)
		return ExitError
	}
	return ExitOK
}

// connect reads through Connect, in the namespace the flags name, else
// the context's, else "default"; "" for every namespace (list -A).
func (c Command) connect(o *options) (Reader, string, time.Time, error) {
	r, namespace, err := c.Connect(o.kubeconfig, o.context)
	if err != nil {
		return nil, "", time.Time{}, err
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
	return r, namespace, now(), nil
}

func (c Command) explain(ctx context.Context, o *options) error {
	r, namespace, now, err := c.connect(o)
	if err != nil {
		return err
	}
	objs, err := Gather(ctx, r, Request{Namespace: namespace, Claim: o.args[1], Driver: o.driver, ResizerNamespace: o.resizerNamespace})
	if err != nil {
		return err
	}
	x := Explain(objs, now)
	if o.output == "json" {
		return JSON(c.Stdout, x)
	}
	return Text(c.Stdout, x)
}

func (c Command) listClaims(ctx context.Context, o *options) error {
	r, namespace, now, err := c.connect(o)
	if err != nil {
		return err
	}
	in, err := Read(ctx, r, Request{Namespace: namespace, Driver: o.driver, ResizerNamespace: o.resizerNamespace})
	if err != nil {
		return err
	}
	res := List(in, now)
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
// does: `explain -n ns data` is `explain data -n ns`, and `-n ns list` is
// `list -n ns`. On --help it writes the command's usage and flags to
// Stdout and returns flag.ErrHelp.
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
	o.args[1] = claimName(o.args[1])
	if o.args[1] == "" {
		return errors.New("empty claim name")
	}
	return nil
}

// claimName accepts kubectl's TYPE/NAME forms of a claim.
func claimName(arg string) string {
	for _, prefix := range []string{"pvc/", "persistentvolumeclaim/", "persistentvolumeclaims/"} {
		if strings.HasPrefix(strings.ToLower(arg), prefix) {
			return arg[len(prefix):]
		}
	}
	return arg
}
