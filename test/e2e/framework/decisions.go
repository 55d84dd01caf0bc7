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

package framework

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Decision is one "Decided" entry of the resizer's log, which the resizer
// writes at --v=4 each time it has looked at a claim and decided what to do
// with one operation, before it does it.
type Decision struct {
	// Claim is the claim's namespace/name.
	Claim string
	// Operation is "resize" or "modify".
	Operation string
	// Action is what the resizer decided: "none", "modify", "cancel",
	// "wait", "pend", "refuse"... (the decision packages' names).
	Action string
	Target string
	Reason string
}

func (d Decision) String() string {
	return fmt.Sprintf("%s %s: %s %q (%s)", d.Claim, d.Operation, d.Action, d.Target, d.Reason)
}

// LogSize is how many bytes log holds now: the offset from which
// Decisions reads what is written after this moment.
func LogSize(log string) (int64, error) {
	fi, err := os.Stat(log)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Decisions reads the "Decided" entries of the resizer's text log written
// from byte offset on (see LogSize), in the order they were written; a line
// still being written is left out.
func Decisions(log string, offset int64) ([]Decision, error) {
	f, err := os.Open(log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	var out []Decision
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // a partial last line, or none
		}
		if err != nil {
			return nil, err
		}
		if d, ok := parseDecision(string(bytes.TrimRight(line, "\n"))); ok {
			out = append(out, d)
		}
	}
}

// parseDecision reads a klog text line such as
//
//	I1124 08:19:23.711767   27769 sync.go:122] "Decided" pvc="ns/data" operation="modify" action="none" target="" reason="..."
func parseDecision(line string) (Decision, bool) {
	const msg = `] "Decided" `
	i := strings.Index(line, msg)
	if i < 0 {
		return Decision{}, false
	}
	kv, ok := keysAndValues(line[i+len(msg):])
	if !ok {
		return Decision{}, false
	}
	return Decision{Claim: kv["pvc"], Operation: kv["operation"], Action: kv["action"], Target: kv["target"], Reason: kv["reason"]}, true
}

// keysAndValues reads klog's key="quoted value" key=bare pairs.
func keysAndValues(s string) (map[string]string, bool) {
	kv := map[string]string{}
	for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
		key, rest, ok := strings.Cut(s, "=")
		if !ok || strings.ContainsAny(key, ` "`) {
			return nil, false
		}
		var value string
		if strings.HasPrefix(rest, `"`) {
			quoted, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, false
			}
			if value, err = strconv.Unquote(quoted); err != nil {
				return nil, false
			}
			rest = rest[len(quoted):]
		} else {
			value, rest, _ = strings.Cut(rest, " ")
		}
		kv[key], s = value, rest
	}
	return kv, true
}
