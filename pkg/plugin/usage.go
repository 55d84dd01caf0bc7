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
	"flag"
	"io"
)

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

// flagSet defines on o the flags of the command, list's when list is set:
// kubectl's, the plugin's, and list's -A. It prints nothing itself (see
// parse).
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

// isList reports whether args (without the program name) run list: its
// first argument that is not a flag is "list". Flags may come before it,
// as kubectl takes them.
func isList(args []string) bool {
	fs := flagSet(&options{}, true)
	return fs.Parse(args) == nil && fs.Arg(0) == ListName
}
