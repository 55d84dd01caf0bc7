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
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// width is where Text wraps its lines.
const width = 100

// labelWidth aligns the values of labelled lines.
const labelWidth = 14

// Text writes x in plain sentences for an operator.
func Text(w io.Writer, x Explanation) error {
	t := &textWriter{now: x.At}
	t.header(x)
	for _, op := range x.Operations {
		t.operation(op)
	}
	t.events(x.Events)
	t.list("Not visible from here:", x.Unknowns)
	t.list("Warnings:", x.Warnings)
	_, err := io.WriteString(w, t.b.String())
	return err
}

type textWriter struct {
	b   strings.Builder
	now time.Time
}

func (t *textWriter) header(x Explanation) {
	c := x.Claim
	var sizes []string
	for _, p := range [][2]string{{"requests", c.Request}, {"capacity", c.Capacity}, {"allocated", c.Allocated}, {"status", c.ResizeStatus}} {
		if p[1] != "" {
			sizes = append(sizes, p[0]+" "+p[1])
		}
	}
	claim := fmt.Sprintf("%s/%s (%s)", c.Namespace, c.Name, cmp.Or(c.Phase, "-"))
	if len(sizes) > 0 {
		claim += ": " + strings.Join(sizes, ", ")
	}
	t.line("", "Claim:", claim)
	switch v := x.Volume; {
	case v != nil:
		line, kind := v.Name, ", in-tree "+v.InTree
		if v.Size != "" {
			line += " of " + v.Size
		}
		if v.CSIDriver != "" {
			kind = ", CSI driver " + v.CSIDriver
		}
		t.line("", "Volume:", line+kind)
	case c.VolumeName != "":
		t.line("", "Volume:", c.VolumeName+" (does not exist)")
	}
	if sc := x.StorageClass; sc != nil {
		line, allows := sc.Name+" (does not exist)", "allows"
		if !sc.AllowVolumeExpansion {
			allows = "does not allow"
		}
		if sc.Exists {
			line = fmt.Sprintf("%s (provisioner %s, %s volume expansion)", sc.Name, sc.Provisioner, allows)
		}
		t.line("", "StorageClass:", line)
	}
	if c.Class != "" || c.CurrentClass != "" || c.ModifyStatus != "" {
		line := fmt.Sprintf("asks for %s, current %s", cmp.Or(c.Class, "-"), cmp.Or(c.CurrentClass, "-"))
		if c.ModifyStatus != "" {
			line += fmt.Sprintf(", modification to %s %s", c.ModifyTarget, c.ModifyStatus)
		}
		t.line("", "Class:", line)
	}
	t.line("", "Owner:", x.Owner.Why)
	if r := x.Resizer; r != nil {
		t.line("", "Resizer:", r.Summary)
		t.line("", "Settings:", fmt.Sprintf("--retry-interval-start=%s --retry-interval-max=%s, RecoverVolumeExpansionFailure %s (from %s)",
			time.Duration(r.Settings.RetryIntervalStart), time.Duration(r.Settings.RetryIntervalMax), onOff(r.Settings.Recovery), r.Settings.From))
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func (t *textWriter) operation(op Operation) {
	title := map[string]string{"resize": "Resize", "modify": "Modify"}[op.Operation]
	t.b.WriteString("\n" + title + "\n")
	state := op.State + " (since when is not recorded)"
	switch {
	case op.State == StateNone:
		state = StateNone
	case op.Since != nil:
		state = fmt.Sprintf("%s since %s (%s)", op.State, op.Since.Format(time.RFC3339), ago(*op.Since, t.now))
	}
	t.line("  ", "State:", state)
	t.line("  ", "What:", op.Summary)
	t.line("  ", "Next step:", cmp.Or(stepWords[op.NextStepBy], op.NextStepBy))
	quiet := op.State == StateNone && op.NextStepBy == ByNone
	if !quiet {
		t.line("  ", "Then:", op.Next)
	}
	for i, can := range op.UserCan {
		label := ""
		if i == 0 {
			label = "You can:"
		}
		t.line("  ", label, can)
	}
	if !quiet {
		t.line("  ", "Decision:", op.Decision.Summary)
	}
}

// stepWords say who owns the next step.
var stepWords = map[string]string{ByResizer: "the resizer", ByDriver: "the driver", ByUser: "the user",
	ByNobody: "nobody: no resizer is running", ByNone: "none: nothing to do"}

func (t *textWriter) events(events []Event) {
	if len(events) == 0 {
		t.b.WriteString("\nEvents: none (events expire after an hour by default)\n")
		return
	}
	t.b.WriteString("\nEvents (oldest first):\n")
	for _, e := range events {
		count := ""
		if e.Count > 1 {
			count = fmt.Sprintf(", %d times", e.Count)
		}
		t.wrap("  ", "      ", fmt.Sprintf("%s  %s  %s (%s%s): %s", ago(e.Last, t.now), e.Type, e.Reason, cmp.Or(e.Source, "-"), count, e.Message))
	}
}

func (t *textWriter) list(title string, items []string) {
	if len(items) == 0 {
		return
	}
	t.b.WriteString("\n" + title + "\n")
	for _, item := range items {
		t.wrap("  - ", "    ", item)
	}
}

// line writes a labelled value, wrapped under its start.
func (t *textWriter) line(indent, label, value string) {
	first := indent + label + strings.Repeat(" ", max(1, labelWidth-len(label)))
	t.wrap(first, indent+strings.Repeat(" ", labelWidth), value)
}

// wrap writes text after first, wrapping at width with rest before each
// following line.
func (t *textWriter) wrap(first, rest, text string) {
	t.b.WriteString(first)
	n := len(first)
	for i, word := range strings.Fields(text) {
		if i > 0 && n+1+len(word) > width {
			t.b.WriteString("\n" + rest)
			n = len(rest)
		} else if i > 0 {
			t.b.WriteString(" ")
			n++
		}
		t.b.WriteString(word)
		n += len(word)
	}
	t.b.WriteString("\n")
}

// reasonWidth is where the table cuts a reason; -o wide and JSON keep it
// whole.
const reasonWidth = 80

// unknownSince is the SINCE of an item that records no time, as kubectl
// shows an unknown age.
const unknownSince = "<unknown>"

// Table writes r as kubectl writes a table; wide adds columns and keeps
// REASON whole.
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
			since = "0s" // clocks differ
			if !it.Since.After(r.At) {
				since = short(r.At.Sub(*it.Since))
			}
		}
		cells := []string{it.Namespace, it.Name, it.Operation, it.State, since, it.NextStepBy}
		reason := cut(it.Reason, reasonWidth)
		if wide {
			cells = append(cells, it.Driver, it.Volume, cmp.Or(it.Node, "-"), cmp.Or(it.Target, "-"), cmp.Or(it.SinceFrom, "-"))
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

// JSON writes v, an Explanation or a Result, as indented JSON, for
// scripts (-o json).
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
