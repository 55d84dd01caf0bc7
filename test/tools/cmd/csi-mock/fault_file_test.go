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

package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// scriptedCall makes one call of method on volume through i, and returns
// its code; the mock answers every call it sees.
func scriptedCall(t *testing.T, i *interceptor, method, volume string) codes.Code {
	t.Helper()
	handler := func(_ context.Context, req any) (any, error) {
		switch r := req.(type) {
		case *csi.ControllerExpandVolumeRequest:
			return &csi.ControllerExpandVolumeResponse{CapacityBytes: r.GetCapacityRange().GetRequiredBytes()}, nil
		case *csi.ControllerModifyVolumeRequest:
			return &csi.ControllerModifyVolumeResponse{}, nil
		}
		return nil, status.Error(codes.Unimplemented, "?")
	}
	var req any = &csi.ControllerExpandVolumeRequest{VolumeId: volume, CapacityRange: &csi.CapacityRange{RequiredBytes: 10}}
	if method == methodModify {
		req = &csi.ControllerModifyVolumeRequest{VolumeId: volume}
	}
	_, err := i.intercept(t.Context(), req, &grpc.UnaryServerInfo{}, handler)
	return status.Code(err)
}

func writeScript(t *testing.T, i *interceptor, script string) {
	t.Helper()
	if err := os.WriteFile(i.faultFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEntriesOfAVolumeStayWithIt: an entry that names a volume is taken by
// that volume's calls only, whatever other volumes call first; an entry
// without one by the next call of its method on any volume; each call
// takes the first entry that matches, in file order, and uses it up.
func TestEntriesOfAVolumeStayWithIt(t *testing.T) {
	type step struct {
		method, volume string
		want           codes.Code
	}
	tests := []struct {
		name   string
		script string
		calls  []step
	}{{
		name: "per-volume entries wait for their volume",
		script: `[{"volumeID":"vol-2","code":"OutOfRange"},{"code":"Internal"},` +
			`{"method":"ControllerModifyVolume","volumeID":"vol-1","code":"InvalidArgument"},{"volumeID":"vol-2","code":"NotFound"}]`,
		calls: []step{
			{methodExpand, "vol-1", codes.Internal}, // the entry of vol-2 is passed over
			{methodExpand, "vol-1", codes.OK},
			{methodModify, "vol-2", codes.OK}, // the modify entry is vol-1's
			{methodExpand, "vol-3", codes.OK},
			{methodExpand, "vol-2", codes.OutOfRange},
			{methodModify, "vol-1", codes.InvalidArgument},
			{methodExpand, "vol-2", codes.NotFound},
			{methodExpand, "vol-2", codes.OK},
		},
	}, {
		name:   "an entry for any volume before a volume's own is taken first",
		script: `[{"code":"Internal"},{"volumeID":"vol-2","code":"NotFound"}]`,
		calls:  []step{{methodExpand, "vol-2", codes.Internal}, {methodExpand, "vol-2", codes.NotFound}, {methodExpand, "vol-2", codes.OK}},
	}, {
		name:   "an entry without code only uses up a turn",
		script: `[{"volumeID":"vol-1"},{"volumeID":"vol-1","code":"Aborted"}]`,
		calls:  []step{{methodExpand, "vol-1", codes.OK}, {methodExpand, "vol-1", codes.Aborted}},
	}, {
		name:   "a name that is no code is answered as usual",
		script: `[{"code":"OutofRange"},{"code":"OK"}]`,
		calls:  []step{{methodExpand, "vol-1", codes.OK}, {methodExpand, "vol-1", codes.OK}},
	}, {
		name:   "a file that is not a list scripts nothing",
		script: `{"code":"Internal"}`,
		calls:  []step{{methodExpand, "vol-1", codes.OK}},
	}, {
		name:   "a list with a bad field scripts nothing, not half of it",
		script: `[{"code":"Internal"},{"code":"Internal","delay":5}]`,
		calls:  []step{{methodExpand, "vol-1", codes.OK}, {methodExpand, "vol-1", codes.OK}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i := &interceptor{faultFile: filepath.Join(t.TempDir(), "faults.json")}
			writeScript(t, i, tc.script)
			for n, c := range tc.calls {
				if got := scriptedCall(t, i, c.method, c.volume); got != c.want {
					t.Errorf("call %d (%s on %s) = %v, want %v", n, c.method, c.volume, got, c.want)
				}
			}
		})
	}
}

// TestFaultFileRewritten: a changed file replaces the entries left; the
// same content written again re-arms nothing.
func TestFaultFileRewritten(t *testing.T) {
	i := &interceptor{faultFile: filepath.Join(t.TempDir(), "faults.json")}
	if got := scriptedCall(t, i, methodExpand, "vol-1"); got != codes.OK {
		t.Errorf("without a file: %v, want OK", got)
	}
	script := `[{"volumeID":"vol-1","code":"Internal"},{"volumeID":"vol-1","code":"Internal"}]`
	writeScript(t, i, script)
	if got := scriptedCall(t, i, methodExpand, "vol-1"); got != codes.Internal {
		t.Errorf("first call: %v, want Internal", got)
	}
	writeScript(t, i, script)
	got := []codes.Code{scriptedCall(t, i, methodExpand, "vol-1"), scriptedCall(t, i, methodExpand, "vol-1")}
	if want := []codes.Code{codes.Internal, codes.OK}; !slices.Equal(got, want) {
		t.Errorf("after the same content again: %v, want %v (the entry taken stays taken)", got, want)
	}
	writeScript(t, i, `[{"volumeID":"vol-1","code":"Unavailable"}]`)
	if got := scriptedCall(t, i, methodExpand, "vol-1"); got != codes.Unavailable {
		t.Errorf("after a new script: %v, want Unavailable", got)
	}
	if err := os.Remove(i.faultFile); err != nil {
		t.Fatal(err)
	}
	writeScript(t, i, `[{"volumeID":"vol-1","code":"Unavailable"},{"volumeID":"vol-1","code":"DataLoss"}]`)
	if got := scriptedCall(t, i, methodExpand, "vol-1"); got != codes.Unavailable {
		t.Errorf("after a script that starts alike: %v, want Unavailable", got)
	}
}

// TestScriptBySizeAndCapacity scripts a refusal of one size, however often
// it is asked for, and a short answer: other sizes pass through, and the
// short answer is the size the mock is asked for, so the capacity it
// answers.
func TestScriptBySizeAndCapacity(t *testing.T) {
	dir := t.TempDir()
	i := &interceptor{faultFile: filepath.Join(dir, "faults.json"), callLog: filepath.Join(dir, "calls.jsonl")}
	script := `[{"size":"3Gi","code":"OutOfRange"},{"size":"3Gi","code":"OutOfRange"},{"size":"4Gi","capacity":"2Gi"}]`
	if err := os.WriteFile(i.faultFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	handler := func(_ context.Context, req any) (any, error) {
		return &csi.ControllerExpandVolumeResponse{CapacityBytes: req.(*csi.ControllerExpandVolumeRequest).GetCapacityRange().GetRequiredBytes()}, nil
	}
	const gi = 1 << 30
	for n, tc := range []struct {
		size, capacity int64
		code           codes.Code
	}{
		{size: 2 * gi, capacity: 2 * gi},
		{size: 3 * gi, code: codes.OutOfRange},
		{size: 4 * gi, capacity: 2 * gi},
		{size: 3 * gi, code: codes.OutOfRange},
		{size: 3 * gi, capacity: 3 * gi},
		{size: 4 * gi, capacity: 4 * gi},
	} {
		req := &csi.ControllerExpandVolumeRequest{VolumeId: "v", CapacityRange: &csi.CapacityRange{RequiredBytes: tc.size}}
		resp, err := i.intercept(t.Context(), req, &grpc.UnaryServerInfo{}, handler)
		if status.Code(err) != tc.code {
			t.Errorf("call %d (%d bytes): error = %v, want code %v", n, tc.size, err, tc.code)
			continue
		}
		if err == nil && resp.(*csi.ControllerExpandVolumeResponse).GetCapacityBytes() != tc.capacity {
			t.Errorf("call %d (%d bytes): capacity = %d, want %d", n, tc.size, resp.(*csi.ControllerExpandVolumeResponse).GetCapacityBytes(), tc.capacity)
		}
	}
}

// TestFaultFileWithABadSizeScriptsNothing: a size that is not one makes the
// file unreadable as a script, as any other malformed file.
func TestFaultFileWithABadSizeScriptsNothing(t *testing.T) {
	for _, bad := range []string{`[{"size":"three"}]`, `[{"capacity":"-1Gi"}]`, `[{"size":"0"}]`} {
		if got, err := parseAnswers([]byte(bad)); err == nil {
			t.Errorf("parseAnswers(%s) = %+v, want an error", bad, got)
		}
	}
}

// TestFailedExpandIsLoggedWithoutAnswer: a failed ControllerExpandVolume
// has no answer to round; it is logged with its code.
func TestFailedExpandIsLoggedWithoutAnswer(t *testing.T) {
	i := &interceptor{allocationUnit: 1024, callLog: filepath.Join(t.TempDir(), "calls.jsonl")}
	handler := func(context.Context, any) (any, error) {
		var none *csi.ControllerExpandVolumeResponse
		return none, status.Error(codes.OutOfRange, "smaller than the volume")
	}
	req := &csi.ControllerExpandVolumeRequest{VolumeId: "v", CapacityRange: &csi.CapacityRange{RequiredBytes: 1500}}
	if _, err := i.intercept(t.Context(), req, &grpc.UnaryServerInfo{}, handler); status.Code(err) != codes.OutOfRange {
		t.Errorf("error = %v, want the mock's OutOfRange", err)
	}
}
