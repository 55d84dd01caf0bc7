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

// Decision is one job's part of a "Decided" entry of the resizer's log,
// which the resizer writes at --v=4 each time it has made a claim's plan
// (decide.Claim), before it acts on it: one entry gives a Decision for each
// job the resizer does.
type Decision struct {
	// Claim is the claim's namespace/name.
	Claim string
	// Next, Owner and Why are the plan's: the job whose step runs now,
	// who owns the next step, and why (decide.Job, Owner and Why).
	Next, Owner, Why string
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
		out = append(out, parseDecisions(string(bytes.TrimRight(line, "\n")))...)
	}
}

// parseDecisions reads a klog text line such as
//
//	I1124 08:19:23.711767   27769 plan.go:57] "Decided" pvc="ns/data" next="none" owner="nobody" why="settled" resize="none" resizeTarget="0" resizeReason="..." modify="none" modifyTarget="" modifyReason="..."
//
// into a Decision for each job it names; none for any other line.
func parseDecisions(line string) []Decision {
	const msg = `] "Decided" `
	i := strings.Index(line, msg)
	if i < 0 {
		return nil
	}
	kv, ok := keysAndValues(line[i+len(msg):])
	if !ok {
		return nil
	}
	var out []Decision
	for _, op := range []string{"resize", "modify"} {
		if action, ok := kv[op]; ok {
			out = append(out, Decision{Claim: kv["pvc"], Next: kv["next"], Owner: kv["owner"], Why: kv["why"],
				Operation: op, Action: action, Target: kv[op+"Target"], Reason: kv[op+"Reason"]})
		}
	}
	return out
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
