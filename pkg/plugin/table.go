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
	"encoding/json"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// reasonWidth is where the table cuts a reason; -o wide and JSON keep it
// whole.
const reasonWidth = 80

// unknownSince is the SINCE of an item that records no time, as kubectl
// shows an unknown age.
const unknownSince = "<unknown>"

// Table writes r as kubectl writes a table: a header, then one line per
// item, in columns. wide adds the driver, the volume, the node whose
// resizer handles the claim (--node-deployment), the target and the
// condition SINCE is read from, and keeps REASON whole.
func Table(w io.Writer, r Result, wide bool) error {
	tw := tabwriter.NewWriter(w, 10, 4, 3, ' ', 0)
	header := []string{"NAMESPACE", "NAME", "OPERATION", "STATE", "SINCE", "OWNER"}
	if wide {
		header = append(header, "DRIVER", "VOLUME", "NODE", "TARGET", "SINCE-FROM")
	}
	row(tw, append(header, "REASON"))
	for _, it := range r.Items {
		since := unknownSince
		if it.Since != nil {
			since = age(*it.Since, r.At)
		}
		cells := []string{it.Namespace, it.Name, it.Operation, it.State, since, it.NextStepBy}
		reason := cut(it.Reason, reasonWidth)
		if wide {
			cells = append(cells, it.Driver, it.Volume, orDash(it.Node), orDash(it.Target), orDash(it.SinceFrom))
			reason = it.Reason
		}
		row(tw, append(cells, reason))
	}
	return tw.Flush()
}

func row(w io.Writer, cells []string) {
	_, _ = io.WriteString(w, strings.Join(cells, "\t")+"\n")
}

// cut shortens s to n runes, ending it with "..." when it cuts.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRight(string(r[:n-3]), " ") + "..."
}

// age says how long before now t was, as explain says it without "ago":
// "45s", "4m10s", "3h", "2d5h".
func age(t, now time.Time) string {
	if t.After(now) {
		return "0s" // clocks differ
	}
	return short(now.Sub(t))
}

// JSON writes v, an Explanation or a Result, as indented JSON, for
// scripts (-o json).
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
