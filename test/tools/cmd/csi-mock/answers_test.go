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
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
