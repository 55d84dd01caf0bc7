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
	"fmt"
	"slices"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// Answer scripts one call of Method (empty: ControllerExpandVolume): wait
// Delay, then fail with Code (a gRPC code name such as "Internal"), or
// answer normally. It is an entry of the fault file both drivers read.
type Answer = csidriver.Answer

// Call is one call the driver logged (see csidriver.LoggedCall).
type Call = csidriver.LoggedCall

// Script replaces the driver's scripted answers with answers, even the same
// answers again: each call takes the first answer of its method (and
// volume, and for csi-mock size) not taken yet, in order. The running
// driver reads them at its next call; a restarted scripted driver reads the
// whole script again, answers taken before included. Script() with no
// answers clears the script.
func (d *Driver) Script(answers ...Answer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.scripts++
	answers = slices.Clone(answers)
	for i := range answers {
		if d.scripted && (answers[i].Size != "" || answers[i].Capacity != "") {
			return fmt.Errorf("answer %d: the scripted driver answers no Size nor Capacity", i)
		}
		answers[i].Generation = d.scripts
	}
	return csidriver.WriteFaultFile(d.FaultFile, answers)
}

// Calls returns the calls of methods the driver answered (all methods with
// none), of every run so far, failed ones included, in order of arrival.
func (d *Driver) Calls(methods ...string) ([]Call, error) {
	return readCalls(d.CallLog, methods)
}

// ControllerCalls returns the ControllerExpandVolume and
// ControllerModifyVolume calls so far.
func (d *Driver) ControllerCalls() ([]Call, error) {
	return d.Calls(csidriver.MethodExpand, csidriver.MethodModify)
}

// NodeCalls returns the NodeStageVolume, NodeUnstageVolume,
// NodePublishVolume, NodeUnpublishVolume and NodeExpandVolume calls so far;
// Call.Path is the call's staging, target or volume path.
func (d *Driver) NodeCalls() ([]Call, error) {
	calls, err := d.Calls()
	return slices.DeleteFunc(calls, func(c Call) bool { return !c.Node() }), err
}

// Received returns the calls of method (any with "") that have reached
// csi-mock so far, logged as they arrive, before their scripted delay: a
// call received and not yet in Calls is still being answered, or held by a
// scripted delay (Call.Delay). A received call has no End, Code, capacity
// nor secrets.
func (d *Driver) Received(method string) ([]Call, error) {
	if method == "" {
		return readCalls(d.ReceivedLog, nil)
	}
	return readCalls(d.ReceivedLog, []string{method})
}

func readCalls(log string, methods []string) ([]Call, error) {
	calls, err := csidriver.ReadCallLog(log)
	if len(methods) > 0 {
		calls = slices.DeleteFunc(calls, func(c Call) bool { return !slices.Contains(methods, c.Method) })
	}
	return calls, err
}
