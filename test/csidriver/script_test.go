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

package csidriver

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// scriptCall is one call of a scripting test and the answer it must get.
type scriptCall struct {
	method, volume string
	code           codes.Code
	message        string // a part of the message, when the code is not OK
}

// scriptEnv is a driver expanding on both sides, with vol-1 and vol-2
// published on the node.
type scriptEnv struct {
	d     *Driver
	c     clients
	paths map[string]nodePaths
}

func newScriptEnv(t *testing.T, cfg Config) *scriptEnv {
	t.Helper()
	cfg.ControllerExpand, cfg.NodeExpand = true, true
	e := &scriptEnv{paths: map[string]nodePaths{}}
	e.d, e.c = dial(t, cfg)
	for _, id := range []string{"vol-1", "vol-2"} {
		e.d.AddVolume(id, 100)
		e.paths[id] = newNodePaths(t)
		stageAndPublish(t, e.c, id, e.paths[id])
	}
	return e
}

// check makes each call in turn and checks its answer.
func (e *scriptEnv) check(t *testing.T, calls ...scriptCall) {
	t.Helper()
	for i, call := range calls {
		var err error
		switch call.method {
		case MethodNodeExpand:
			_, err = e.c.node.NodeExpandVolume(testContext(t), nodeExpandRequest(call.volume, e.paths[call.volume].target, 100))
		case MethodExpand:
			_, err = e.c.controller.ControllerExpandVolume(testContext(t), expandRequest(call.volume, 100))
		case MethodModify:
			_, err = e.c.controller.ControllerModifyVolume(testContext(t), modifyRequest(call.volume, map[string]string{"iops": "1"}))
		default:
			t.Fatalf("no call for method %s", call.method)
		}
		if got := status.Convert(err); got.Code() != call.code || call.code != codes.OK && got.Message() != call.message {
			t.Errorf("call %d (%s on %s) = %v, want %v %q", i, call.method, call.volume, err, call.code, call.message)
		}
	}
}

func TestScript(t *testing.T) {
	tests := []struct {
		name    string
		answers []Answer
		calls   []scriptCall
	}{
		{
			name:    "in order, then served",
			answers: []Answer{{Method: MethodNodeExpand, Code: "Internal", Message: "first"}, {Method: MethodNodeExpand, Code: "Unavailable", Message: "second"}},
			calls: []scriptCall{
				{MethodNodeExpand, "vol-1", codes.Internal, "first"},
				{MethodNodeExpand, "vol-1", codes.Unavailable, "second"},
				{MethodNodeExpand, "vol-1", codes.OK, ""},
			},
		},
		{
			name:    "for one volume",
			answers: []Answer{{Method: MethodNodeExpand, Code: "ResourceExhausted", Message: "full", VolumeID: "vol-2"}},
			calls: []scriptCall{
				{MethodNodeExpand, "vol-1", codes.OK, ""},
				{MethodNodeExpand, "vol-2", codes.ResourceExhausted, "full"},
				{MethodNodeExpand, "vol-2", codes.OK, ""},
			},
		},
		{
			name:    "for one method, by its full name",
			answers: []Answer{{Method: "/csi.v1.Controller/ControllerExpandVolume", Code: "INTERNAL"}},
			calls: []scriptCall{
				{MethodNodeExpand, "vol-1", codes.OK, ""},
				{MethodExpand, "vol-1", codes.Internal, "scripted Internal"},
				{MethodExpand, "vol-1", codes.OK, ""},
			},
		},
		{
			name:    "no method is ControllerExpandVolume, no code is OK",
			answers: []Answer{{}, {Code: "Internal"}},
			calls: []scriptCall{
				{MethodNodeExpand, "vol-1", codes.OK, ""},
				{MethodExpand, "vol-1", codes.OK, ""},
				{MethodExpand, "vol-1", codes.Internal, "scripted Internal"},
			},
		},
		{
			name:    "OK lets one call through",
			answers: []Answer{{Method: MethodModify, Code: "OK"}, {Method: MethodModify, Code: "Aborted", Message: "busy"}},
			calls: []scriptCall{
				{MethodModify, "vol-1", codes.OK, ""},
				{MethodModify, "vol-1", codes.Aborted, "busy"},
				{MethodModify, "vol-1", codes.OK, ""},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newScriptEnv(t, Config{})
			if err := e.d.Script(tc.answers...); err != nil {
				t.Fatalf("Script: %v", err)
			}
			e.check(t, tc.calls...)
		})
	}
}

func TestScriptedControllerCallsAreRecorded(t *testing.T) {
	e := newScriptEnv(t, Config{})
	if err := e.d.Script(Answer{Method: MethodExpand, Code: "Internal"}, Answer{Method: MethodModify, Code: "Internal"}); err != nil {
		t.Fatal(err)
	}
	e.check(t, scriptCall{MethodExpand, "vol-1", codes.Internal, "scripted Internal"}, scriptCall{MethodModify, "vol-1", codes.Internal, "scripted Internal"})
	if calls := e.d.Calls(); len(calls) != 1 || calls[0].Code != codes.Internal {
		t.Errorf("expand calls = %+v, want the scripted failure", calls)
	}
	if calls := e.d.ModifyCalls(); len(calls) != 1 || calls[0].Code != codes.Internal {
		t.Errorf("modify calls = %+v, want the scripted failure", calls)
	}
}

func TestScriptRejectsBadAnswers(t *testing.T) {
	tests := []struct {
		name   string
		answer Answer
	}{
		{name: "unknown code", answer: Answer{Method: MethodNodeExpand, Code: "Broken"}},
		{name: "bad delay", answer: Answer{Method: MethodNodeExpand, Delay: "soon"}},
		{name: "csi-mock's size", answer: Answer{Size: "3Gi"}},
		{name: "csi-mock's capacity", answer: Answer{Capacity: "3Gi"}},
		{name: "negative delay", answer: Answer{Method: MethodNodeExpand, Delay: "-1s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newScriptEnv(t, Config{})
			if err := e.d.Script(Answer{Method: MethodNodeExpand, Code: "Internal", Message: "kept"}); err != nil {
				t.Fatal(err)
			}
			if err := e.d.Script(tc.answer); err == nil {
				t.Fatalf("Script(%+v) succeeded", tc.answer)
			}
			e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.Internal, "kept"})
		})
	}
}

func TestScriptedDelay(t *testing.T) {
	tests := []struct {
		name   string
		method string
	}{
		{name: "node call", method: MethodNodeExpand},
		{name: "controller call", method: MethodExpand},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newScriptEnv(t, Config{})
			if err := e.d.Script(Answer{Method: tc.method, Delay: "1h"}, Answer{Method: tc.method, Code: "Internal", Delay: "1ms"}); err != nil {
				t.Fatal(err)
			}
			// The caller gives up long before the hour; the next call waits a
			// moment, then fails.
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			var err error
			if tc.method == MethodNodeExpand {
				_, err = e.c.node.NodeExpandVolume(ctx, nodeExpandRequest("vol-1", e.paths["vol-1"].target, 100))
			} else {
				_, err = e.c.controller.ControllerExpandVolume(ctx, expandRequest("vol-1", 100))
			}
			if status.Code(err) != codes.DeadlineExceeded {
				t.Fatalf("delayed call = %v, want DeadlineExceeded", err)
			}
			e.check(t, scriptCall{tc.method, "vol-1", codes.Internal, "scripted Internal"}, scriptCall{tc.method, "vol-1", codes.OK, ""})
		})
	}
}

func TestResetFaultsDropsTheScript(t *testing.T) {
	e := newScriptEnv(t, Config{})
	if err := e.d.Script(Answer{Method: MethodNodeExpand, Code: "Internal"}); err != nil {
		t.Fatal(err)
	}
	e.d.ResetFaults()
	e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.OK, ""})
}

func TestFaultFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "faults.json")
	e := newScriptEnv(t, Config{FaultFile: path})
	write := func(answers ...Answer) {
		t.Helper()
		if err := WriteFaultFile(path, answers); err != nil {
			t.Fatal(err)
		}
	}
	// No file yet: nothing scripted.
	e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.OK, ""})

	write(Answer{Method: MethodNodeExpand, Code: "Internal", Message: "one"})
	e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.Internal, "one"})
	// The same content again is not a new script: the answer stays taken.
	write(Answer{Method: MethodNodeExpand, Code: "Internal", Message: "one"})
	e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.OK, ""})
	// Another generation of the same answers is.
	write(Answer{Method: MethodNodeExpand, Code: "Internal", Message: "one", Generation: 2})
	e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.Internal, "one"})

	// A new content replaces what is left.
	write(Answer{Method: MethodNodeExpand, Code: "Internal", Message: "two"}, Answer{Method: MethodNodeExpand, Code: "Internal", Message: "three"})
	e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.Internal, "two"})
	write(Answer{Method: MethodNodeExpand, Code: "Unavailable", Message: "four"})
	e.check(t,
		scriptCall{MethodNodeExpand, "vol-1", codes.Unavailable, "four"},
		scriptCall{MethodNodeExpand, "vol-1", codes.OK, ""})

	// A csi-mock script: no method means ControllerExpandVolume; unknown
	// fields are ignored.
	if err := os.WriteFile(path, []byte(`[{"volumeID": "vol-2", "code": "Internal", "future": 1}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.check(t,
		scriptCall{MethodExpand, "vol-1", codes.OK, ""},
		scriptCall{MethodExpand, "vol-2", codes.Internal, "scripted Internal"})

	// Removed, emptied or malformed: nothing scripted.
	for _, content := range []string{"", "[", `[{"method":"NodeExpandVolume","code":"Broken"}]`} {
		write(Answer{Method: MethodNodeExpand, Code: "Internal", Message: "dropped"})
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.OK, ""})
	}
	write(Answer{Method: MethodNodeExpand, Code: "Internal", Message: "dropped"})
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	e.check(t, scriptCall{MethodNodeExpand, "vol-1", codes.OK, ""})

	if nodeCalls := e.d.NodeCalls(); nodeCalls[len(nodeCalls)-1].Code != codes.OK {
		t.Errorf("last node call = %+v", nodeCalls[len(nodeCalls)-1])
	}
}

func TestParseCode(t *testing.T) {
	tests := []struct {
		name    string
		want    codes.Code
		wantErr bool
	}{
		{name: "Internal", want: codes.Internal},
		{name: "NotFound", want: codes.NotFound},
		{name: "OK", want: codes.OK},
		{name: "NOT_FOUND", want: codes.NotFound},
		{name: "Unauthenticated", want: codes.Unauthenticated},
		{name: "", wantErr: true},
		{name: "13", wantErr: true},
		{name: "Broken", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseCode(tc.name)
			if (err != nil) != tc.wantErr || !tc.wantErr && got != tc.want {
				t.Errorf("parseCode(%q) = %v, %v; want %v", tc.name, got, err, tc.want)
			}
		})
	}
}
