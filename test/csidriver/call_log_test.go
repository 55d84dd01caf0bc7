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
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
)

func TestCallLog(t *testing.T) {
	path, log := openCallLog(t)
	d, c := dial(t, Config{OnCall: log.Record})
	ctx := testContext(t)
	req := expandRequest("vol-1", 10)
	req.Secrets = map[string]string{"password": "s3cr3t"}
	if _, err := c.controller.ControllerExpandVolume(ctx, req); err != nil {
		t.Fatalf("ControllerExpandVolume: %v", err)
	}
	d.FailExpand(codes.Internal, 1)
	_, _ = c.controller.ControllerExpandVolume(ctx, expandRequest("vol-2", 20))
	release := d.HoldExpand()
	defer release()
	go func() { _, _ = c.controller.ControllerExpandVolume(ctx, expandRequest("vol-3", 30)) }()
	waitFor(t, "the held call", func() bool { return d.InFlight("vol-3") == 1 })
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}

	calls := readCallLog(t, path)
	if len(calls) != 3 {
		t.Fatalf("got %d calls, want 3: %+v", len(calls), calls)
	}
	for i, want := range []struct {
		volume string
		code   string
		ended  bool
	}{{"vol-1", "OK", true}, {"vol-2", "Internal", true}, {"vol-3", "", false}} {
		got := calls[i]
		if got.VolumeID != want.volume || got.Code != want.code || got.Ended() != want.ended ||
			got.Seq != i+1 || got.Pid != os.Getpid() || got.Driver != os.Getpid() || got.Method != MethodExpand {
			t.Errorf("call %d = %+v, want volume %s code %q ended %v", i, got, want.volume, want.code, want.ended)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cr3t") {
		t.Error("the call log holds a secret")
	}
}

func TestReadCallLogMissingFile(t *testing.T) {
	calls, err := ReadCallLog(filepath.Join(t.TempDir(), "none.jsonl"))
	if err != nil || calls != nil {
		t.Errorf("ReadCallLog of a missing file = %v, %v; want nothing", calls, err)
	}
}

func TestReadCallLogMergesLines(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	begin := LoggedCall{Driver: 1, Seq: 1, VolumeID: "vol-1", Start: t0}
	gone := begin
	gone.CallerGone = t0.Add(2 * time.Second)
	ended := begin
	ended.End, ended.Code = t0.Add(5*time.Second), "OK"
	endedAfterGone := ended
	endedAfterGone.CallerGone = gone.CallerGone
	tests := []struct {
		name  string
		lines []LoggedCall
		want  LoggedCall
	}{
		{name: "running", lines: []LoggedCall{begin}, want: begin},
		{name: "answered", lines: []LoggedCall{begin, ended}, want: ended},
		{name: "caller gone, never answered", lines: []LoggedCall{begin, gone}, want: gone},
		{name: "caller gone, then answered", lines: []LoggedCall{begin, gone, endedAfterGone}, want: endedAfterGone},
		{name: "end written before the caller's leaving", lines: []LoggedCall{begin, ended, gone}, want: endedAfterGone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			for _, l := range tc.lines {
				line, err := json.Marshal(l)
				if err != nil {
					t.Fatal(err)
				}
				data = append(append(data, line...), '\n')
			}
			path := writeCallLog(t, data)
			calls := readCallLog(t, path)
			if len(calls) != 1 || !calls[0].End.Equal(tc.want.End) || !calls[0].CallerGone.Equal(tc.want.CallerGone) || calls[0].Code != tc.want.Code {
				t.Errorf("ReadCallLog = %+v, want %+v", calls, tc.want)
			}
		})
	}
}

// TestReadCallLogOfCSIMock reads a call log as csi-mock writes it: one
// line a call, with no driver nor Seq, with secrets, in the order the calls
// ended. No two lines are merged, and the calls come in order of arrival.
func TestReadCallLogOfCSIMock(t *testing.T) {
	path := writeCallLog(t, []byte(`{"method":"ControllerModifyVolume","volumeID":"vol-2","parameters":{"iops":"3000"},"secrets":{"key":"s"},"start":"2026-01-01T00:00:02Z","end":"2026-01-01T00:00:03Z","code":"OK"}
{"method":"ControllerExpandVolume","volumeID":"vol-1","requiredBytes":2048,"start":"2026-01-01T00:00:01Z","end":"2026-01-01T00:00:04Z","code":"Internal"}
{"method":"ControllerExpandVolume","volumeID":"vol-1","requiredBytes":2048,"start":"2026-01-01T00:00:05Z","end":"2026-01-01T00:00:06Z","code":"OK","capacityBytes":4096,"nodeExpansionRequired":true}
`))
	calls := readCallLog(t, path)
	if len(calls) != 3 {
		t.Fatalf("ReadCallLog = %+v, want 3 calls", calls)
	}
	first, second, third := calls[0], calls[1], calls[2]
	if first.Method != MethodExpand || first.Code != "Internal" || second.Method != MethodModify || second.Secrets["key"] != "s" || second.Parameters["iops"] != "3000" {
		t.Errorf("calls in order of arrival = %+v, %+v, want the failed expansion, then the modification with its secrets", first, second)
	}
	if third.CapacityBytes != 4096 || !third.NodeExpansionRequired || !third.Ended() {
		t.Errorf("last call = %+v, want an answered expansion to 4096 bytes with a node step", third)
	}
}

func TestCallLogModifyCalls(t *testing.T) {
	path, log := openCallLog(t)
	d, c := dial(t, Config{OnCall: log.Record})
	ctx := testContext(t)
	req := modifyRequest("vol-1", map[string]string{"iops": "3000"})
	req.Secrets = map[string]string{"password": "s3cr3t"}
	if _, err := c.controller.ControllerModifyVolume(ctx, req); err != nil {
		t.Fatalf("ControllerModifyVolume: %v", err)
	}
	if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-1", 10)); err != nil {
		t.Fatalf("ControllerExpandVolume: %v", err)
	}
	d.FailModify(codes.Internal, 1)
	_, _ = c.controller.ControllerModifyVolume(ctx, modifyRequest("vol-2", map[string]string{"tier": "gold"}))
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}

	calls := readCallLog(t, path)
	want := []struct {
		method, volume, code, param string
		required                    int64
	}{
		{MethodModify, "vol-1", "OK", "iops=3000", 0},
		{MethodExpand, "vol-1", "OK", "", 10},
		{MethodModify, "vol-2", "Internal", "tier=gold", 0},
	}
	if len(calls) != len(want) {
		t.Fatalf("got %d calls, want %d: %+v", len(calls), len(want), calls)
	}
	for i, w := range want {
		got := calls[i]
		var param string
		for k, v := range got.Parameters {
			param = k + "=" + v
		}
		if got.Method != w.method || got.VolumeID != w.volume || got.Code != w.code || param != w.param ||
			got.RequiredBytes != w.required || got.Seq != i+1 || !got.Ended() {
			t.Errorf("call %d = %+v, want %+v", i, got, w)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cr3t") {
		t.Error("the call log holds a secret")
	}
}

func TestReadCallLogMethods(t *testing.T) {
	tests := []struct {
		name string
		line string
		want string
	}{
		{name: "old line without a method reads as expand", line: `{"driver":1,"seq":1,"pid":2,"volumeID":"v","requiredBytes":10,"start":"2026-01-01T00:00:00Z"}`, want: MethodExpand},
		{name: "expand", line: `{"driver":1,"seq":1,"method":"ControllerExpandVolume","pid":2,"volumeID":"v","requiredBytes":10,"start":"2026-01-01T00:00:00Z"}`, want: MethodExpand},
		{name: "node expand", line: `{"driver":1,"seq":1,"method":"NodeExpandVolume","pid":2,"volumeID":"v","path":"/p","requiredBytes":10,"start":"2026-01-01T00:00:00Z"}`, want: MethodNodeExpand},
		{name: "modify", line: `{"driver":1,"seq":1,"method":"ControllerModifyVolume","pid":2,"volumeID":"v","requiredBytes":0,"parameters":{"a":"b"},"start":"2026-01-01T00:00:00Z"}`, want: MethodModify},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeCallLog(t, []byte(tc.line+"\n"))
			calls := readCallLog(t, path)
			if len(calls) != 1 || calls[0].Method != tc.want || calls[0].VolumeID != "v" {
				t.Errorf("ReadCallLog = %+v, want one %s call", calls, tc.want)
			}
		})
	}
}

func TestCallLogNodeCalls(t *testing.T) {
	path, log := openCallLog(t)
	d, c := dial(t, Config{ControllerExpand: true, NodeExpand: true, OnCall: log.Record})
	d.AddVolume("vol-1", 100)
	p := newNodePaths(t)
	ctx := testContext(t)
	stageAndPublish(t, c, "vol-1", p)
	if _, err := c.controller.ControllerExpandVolume(ctx, expandRequest("vol-1", 200)); err != nil {
		t.Fatalf("ControllerExpandVolume: %v", err)
	}
	d.FailCall(MethodNodeExpand, codes.Internal, 1)
	_, _ = c.node.NodeExpandVolume(ctx, nodeExpandRequest("vol-1", p.target, 200))
	if _, err := c.node.NodeExpandVolume(ctx, nodeExpandRequest("vol-1", p.target, 200)); err != nil {
		t.Fatalf("NodeExpandVolume: %v", err)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}

	calls := readCallLog(t, path)
	want := []struct {
		method, path, code string
		required, capacity int64
	}{
		{MethodNodeStage, p.staging, "OK", 0, 0},
		{MethodNodePublish, p.target, "OK", 0, 0},
		{MethodExpand, "", "OK", 200, 200},
		{MethodNodeExpand, p.target, "Internal", 200, 0},
		{MethodNodeExpand, p.target, "OK", 200, 200},
	}
	if len(calls) != len(want) {
		t.Fatalf("got %d calls, want %d: %+v", len(calls), len(want), calls)
	}
	for i, w := range want {
		got := calls[i]
		if got.Method != w.method || got.Path != w.path || got.Code != w.code || got.RequiredBytes != w.required ||
			got.CapacityBytes != w.capacity || got.VolumeID != "vol-1" || got.Seq != i+1 || !got.Ended() ||
			got.Node() != (w.method != MethodExpand) {
			t.Errorf("call %d = %+v, want %+v", i, got, w)
		}
	}
}

// openCallLog opens a call log in a temporary directory.
func openCallLog(t *testing.T) (string, *CallLog) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	log, err := OpenCallLog(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, log
}

// writeCallLog writes a call log of data in a temporary directory.
func writeCallLog(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readCallLog reads the call log at path, failing t on an error.
func readCallLog(t *testing.T, path string) []LoggedCall {
	t.Helper()
	calls, err := ReadCallLog(path)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}
