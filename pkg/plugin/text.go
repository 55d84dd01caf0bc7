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
	"fmt"
	"io"
	"strings"
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
	t.line("", "Claim:", fmt.Sprintf("%s/%s (%s)%s", c.Namespace, c.Name, orDash(c.Phase), sizes(c)))
	switch v := x.Volume; {
	case v != nil:
		t.line("", "Volume:", volumeLine(v))
	case c.VolumeName != "":
		t.line("", "Volume:", c.VolumeName+" (does not exist)")
	}
	if sc := x.StorageClass; sc != nil {
		t.line("", "StorageClass:", storageClassLine(sc))
	}
	if c.Class != "" || c.CurrentClass != "" || c.ModifyStatus != "" {
		t.line("", "Class:", classLine(c))
	}
	t.line("", "Owner:", x.Owner.Why)
	if r := x.Resizer; r != nil {
		t.line("", "Resizer:", r.Summary)
		t.line("", "Settings:", settingsLine(r.Settings))
	}
}

func sizes(c Claim) string {
	var parts []string
	for _, p := range [][2]string{{"requests", c.Request}, {"capacity", c.Capacity}, {"allocated", c.Allocated}, {"status", c.ResizeStatus}} {
		if p[1] != "" {
			parts = append(parts, p[0]+" "+p[1])
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

func volumeLine(v *Volume) string {
	s := v.Name
	if v.Size != "" {
		s += " of " + v.Size
	}
	if v.CSIDriver != "" {
		return s + ", CSI driver " + v.CSIDriver
	}
	return s + ", in-tree " + v.InTree
}

func storageClassLine(sc *StorageClass) string {
	switch {
	case !sc.Exists:
		return sc.Name + " (does not exist)"
	case sc.AllowVolumeExpansion:
		return fmt.Sprintf("%s (provisioner %s, allows volume expansion)", sc.Name, sc.Provisioner)
	}
	return fmt.Sprintf("%s (provisioner %s, does not allow volume expansion)", sc.Name, sc.Provisioner)
}

func classLine(c Claim) string {
	s := fmt.Sprintf("asks for %s, current %s", orDash(c.Class), orDash(c.CurrentClass))
	if c.ModifyStatus != "" {
		s += fmt.Sprintf(", modification to %s %s", c.ModifyTarget, c.ModifyStatus)
	}
	return s
}

func settingsLine(s Settings) string {
	return fmt.Sprintf("--retry-interval-start=%s --retry-interval-max=%s, RecoverVolumeExpansionFailure %s (from %s)",
		time.Duration(s.RetryIntervalStart), time.Duration(s.RetryIntervalMax), onOff(s.Recovery), s.From)
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
	t.line("  ", "State:", t.state(op))
	t.line("  ", "What:", op.Summary)
	t.line("  ", "Next step:", stepBy(op.NextStepBy))
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

func (t *textWriter) state(op Operation) string {
	switch {
	case op.State == StateNone:
		return StateNone
	case op.Since == nil:
		return op.State + " (since when is not recorded)"
	}
	return fmt.Sprintf("%s since %s (%s)", op.State, op.Since.Format(time.RFC3339), ago(*op.Since, t.now))
}

func stepBy(by string) string {
	switch by {
	case ByResizer:
		return "the resizer"
	case ByDriver:
		return "the driver"
	case ByUser:
		return "the user"
	case ByNobody:
		return "nobody: no resizer is running"
	case ByNone:
		return "none: nothing to do"
	}
	return by
}

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
		t.wrap("  ", "      ", fmt.Sprintf("%s  %s  %s (%s%s): %s", ago(e.Last, t.now), e.Type, e.Reason, orDash(e.Source), count, e.Message))
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
