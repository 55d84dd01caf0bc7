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
	"errors"
	"flag"
	"fmt"
	"io"
)

// Flags are the flags every command of the plugin takes, as kubectl names
// them.
type Flags struct {
	Kubeconfig, Context, Namespace, Output string
	Driver, ResizerNamespace               string
	Version                                bool
}

// FlagHelp is what a command says of the flags whose meaning is its own.
type FlagHelp struct {
	Namespace, Output, Driver, ResizerNamespace string
}

// NewFlagSet returns a flag set of the command name with f's flags,
// described by help; it prints nothing itself (see ParseFlags).
func NewFlagSet(name string, f *Flags, help FlagHelp) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "Path to the kubeconfig file; default: $KUBECONFIG, else ~/.kube/config.")
	fs.StringVar(&f.Context, "context", "", "The kubeconfig context to use; default: the current one.")
	fs.StringVar(&f.Namespace, "namespace", "", help.Namespace)
	fs.StringVar(&f.Namespace, "n", "", "Short for --namespace.")
	fs.StringVar(&f.Output, "output", "text", help.Output)
	fs.StringVar(&f.Output, "o", "text", "Short for --output.")
	fs.StringVar(&f.Driver, "driver", "", help.Driver)
	fs.StringVar(&f.ResizerNamespace, "resizer-namespace", "", help.ResizerNamespace)
	fs.BoolVar(&f.Version, "version", false, "Print the version and exit.")
	return fs
}

// ParseFlags parses args with fs, flags before, between and after the
// arguments, as kubectl does (`-n ns list` is `list -n ns`), and returns
// the arguments. On --help it writes usage and the flags to stdout and
// returns flag.ErrHelp.
func ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer, usage string) ([]string, error) {
	var rest, out []string = args, nil
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
				fmt.Fprint(stdout, usage)
				fs.PrintDefaults()
			}
			return nil, err
		}
		if rest = fs.Args(); len(rest) == 0 {
			return out, nil
		}
		out, rest = append(out, rest[0]), rest[1:]
	}
}
