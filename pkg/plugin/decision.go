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
	"strings"
	"unicode"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

// decisionSummary says the decision in plain words, as the one who owns
// the next step sees it: what (a sentence that continues "the resizer
// will"), else the decision's action in words.
func decisionSummary(op Operation, what string) string {
	if what == "" {
		what = actionWords(op.Operation, op.Decision)
	}
	switch {
	case op.NextStepBy == ByNobody:
		return "No resizer runs; once one does, it will " + what + "."
	case op.NextStepBy == ByDriver && (op.Decision.Action == decide.Expand.String() || op.Decision.Action == decide.ModifyCall.String()):
		return "The resizer waits for the driver's answer; if the call ends without one, it will " + what + "."
	}
	return "The resizer will " + what + "."
}

// actionWords words a decision's action so that it continues "the resizer
// will".
func actionWords(operation string, d Decision) string {
	why := ""
	if d.Reason != "" {
		why = " (" + d.Reason + ")"
	}
	if operation == string(decide.OpResize) {
		switch d.Action {
		case decide.Expand.String():
			return fmt.Sprintf("expand the volume to %s%s", d.Target, why)
		case decide.ResizeWait.String():
			return fmt.Sprintf("try %s again in %s", d.Target, d.RetryAfter)
		case decide.RecordVolumeSize.String():
			return fmt.Sprintf("record %s, the volume's size, as the claim's capacity, without calling the driver", d.Target)
		case decide.NodeRetry.String():
			return fmt.Sprintf("hand the claim back to kubelet at %s, without calling the driver", d.Target)
		case decide.RecordShort.String():
			return fmt.Sprintf("record again that the driver gives less than %s, without calling the driver", d.Target)
		}
		return "leave the claim alone" + why
	}
	switch d.Action {
	case decide.ModifyCall.String():
		return fmt.Sprintf("call the driver to apply class %q", d.Target)
	case decide.Pend.String():
		return fmt.Sprintf("wait for VolumeAttributesClass %q to be created, and not call the driver before", d.Target)
	case decide.Refuse.String():
		return fmt.Sprintf("not send class %q to the driver%s", d.Target, why)
	case decide.Cancel.String():
		return fmt.Sprintf("drop the recorded modification to class %q, without calling the driver", d.Target)
	case decide.ModifyWait.String():
		return fmt.Sprintf("try class %q again in %s", d.Target, d.RetryAfter)
	case decide.Blocked.String():
		return fmt.Sprintf("leave the modification to class %q unfinished%s", d.Target, why)
	}
	return "leave the claim alone" + why
}

// lowerFirst continues a sentence with s.
func lowerFirst(s string) string {
	if s == "" || !unicode.IsUpper(rune(s[0])) {
		return s
	}
	return string(unicode.ToLower(rune(s[0]))) + s[1:]
}

// upperFirst starts a sentence with s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
