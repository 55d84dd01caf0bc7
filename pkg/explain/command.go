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

package explain

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

// Exit codes of Command.Run.
const (
	ExitOK    = 0
	ExitError = 1 // the claim could not be read, or the output written
	ExitUsage = 2 // bad flags or arguments
)

// Connect makes a Reader from the kubeconfig flags (the standard loading
// rules: --kubeconfig, else $KUBECONFIG, else ~/.kube/config; --context,
// else the current one). It returns the namespace of that context too.
type Connect func(kubeconfig, context string) (r Reader, namespace string, err error)

// Command is the command line: `explain CLAIM` with kubectl's flags.
type Command struct {
	Stdout, Stderr io.Writer
	Connect        Connect
	// Now is time.Now when nil.
	Now func() time.Time
}

// options are the parsed command line.
type options struct {
	Flags
	args []string
}

const usage = `Usage: kubectl csi-resizer explain [-n NAMESPACE] CLAIM [flags]
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

// Run runs the command with args (without the program name) and returns
// its exit code.
func (c Command) Run(ctx context.Context, args []string) int {
	o, err := c.parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case err != nil:
		fmt.Fprintf(c.Stderr, "%s: %v\nRun '%s --help' for usage.\n", CommandName, err, CommandName)
		return ExitUsage
	case o.Version:
		fmt.Fprintln(c.Stdout, ProgramName, version.Version)
		return ExitOK
	}
	if err := c.explain(ctx, o); err != nil {
		fmt.Fprintf(c.Stderr, "%s: %v\n", CommandName, err)
		return ExitError
	}
	return ExitOK
}

func (c Command) explain(ctx context.Context, o *options) error {
	r, namespace, err := c.Connect(o.Kubeconfig, o.Context)
	if err != nil {
		return err
	}
	if o.Namespace != "" {
		namespace = o.Namespace
	}
	if namespace == "" {
		namespace = "default"
	}
	objs, err := Gather(ctx, r, Request{Namespace: namespace, Claim: o.args[1], Driver: o.Driver, ResizerNamespace: o.ResizerNamespace})
	if err != nil {
		return err
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	x := Explain(objs, now())
	if o.Output == "json" {
		return JSON(c.Stdout, x)
	}
	return Text(c.Stdout, x)
}

// parse reads flags before, between and after the arguments, as kubectl
// does: `explain -n ns data` and `explain data -n ns` are the same.
func (c Command) parse(args []string) (*options, error) {
	o := &options{}
	fs := NewFlagSet(ProgramName, &o.Flags, FlagHelp{
		Namespace:        "Namespace of the claim; default: the namespace of the context.",
		Output:           "Output format: text or json.",
		Driver:           "Explain the claim for the resizer of this CSI driver; default: the driver of the claim's volume.",
		ResizerNamespace: "Namespace of the resizer's Lease (its --leader-election-namespace); default: look in every namespace.",
	})
	var err error
	if o.args, err = ParseFlags(fs, args, c.Stdout, usage); err != nil {
		return nil, err
	}
	if o.Version {
		return o, nil
	}
	return o, o.validate()
}

func (o *options) validate() error {
	switch {
	case len(o.args) == 0:
		return errors.New("no command: use `explain CLAIM` or `list`")
	case o.args[0] != "explain":
		return fmt.Errorf("unknown command %q: the commands are `explain CLAIM` and `list`", o.args[0])
	case len(o.args) != 2:
		return fmt.Errorf("explain takes one claim name, got %d", len(o.args)-1)
	case o.Output != "text" && o.Output != "json":
		return fmt.Errorf("invalid output format %q: use text or json", o.Output)
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
