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
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func capability(typ csi.ControllerServiceCapability_RPC_Type) *csi.ControllerServiceCapability {
	return &csi.ControllerServiceCapability{Type: &csi.ControllerServiceCapability_Rpc{
		Rpc: &csi.ControllerServiceCapability_RPC{Type: typ},
	}}
}

func TestCapabilities(t *testing.T) {
	expand, modify := csi.ControllerServiceCapability_RPC_EXPAND_VOLUME, csi.ControllerServiceCapability_RPC_MODIFY_VOLUME
	tests := []struct {
		name   string
		modify bool
		mock   []csi.ControllerServiceCapability_RPC_Type // what the mock answers
		want   []csi.ControllerServiceCapability_RPC_Type
	}{
		{name: "mock advertises modify, not asked", mock: []csi.ControllerServiceCapability_RPC_Type{modify, expand}, want: []csi.ControllerServiceCapability_RPC_Type{expand}},
		{name: "mock advertises modify, asked", modify: true, mock: []csi.ControllerServiceCapability_RPC_Type{modify, expand}, want: []csi.ControllerServiceCapability_RPC_Type{expand, modify}},
		{name: "mock does not advertise modify, asked", modify: true, mock: []csi.ControllerServiceCapability_RPC_Type{expand}, want: []csi.ControllerServiceCapability_RPC_Type{expand, modify}},
		{name: "mock does not advertise modify, not asked", mock: []csi.ControllerServiceCapability_RPC_Type{expand}, want: []csi.ControllerServiceCapability_RPC_Type{expand}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i := &interceptor{modify: tc.modify}
			handler := func(context.Context, any) (any, error) {
				resp := &csi.ControllerGetCapabilitiesResponse{}
				for _, typ := range tc.mock {
					resp.Capabilities = append(resp.Capabilities, capability(typ))
				}
				return resp, nil
			}
			resp, err := i.intercept(t.Context(), &csi.ControllerGetCapabilitiesRequest{}, &grpc.UnaryServerInfo{}, handler)
			if err != nil {
				t.Fatal(err)
			}
			var got []csi.ControllerServiceCapability_RPC_Type
			for _, c := range resp.(*csi.ControllerGetCapabilitiesResponse).GetCapabilities() {
				got = append(got, c.GetRpc().GetType())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("capabilities = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCapabilitiesError(t *testing.T) {
	i := &interceptor{modify: true}
	_, err := i.intercept(t.Context(), &csi.ControllerGetCapabilitiesRequest{}, &grpc.UnaryServerInfo{},
		func(context.Context, any) (any, error) { return nil, status.Error(codes.Internal, "hook") })
	if status.Code(err) != codes.Internal {
		t.Errorf("error = %v, want the mock's Internal", err)
	}
}

// loggedCall is a call log line as tests read it.
type loggedCall struct {
	Method        string            `json:"method"`
	VolumeID      string            `json:"volumeID"`
	RequiredBytes int64             `json:"requiredBytes"`
	Parameters    map[string]string `json:"parameters"`
	Secrets       map[string]string `json:"secrets"`
	Code          string            `json:"code"`
	CapacityBytes int64             `json:"capacityBytes"`
}

// TestScriptAndLog scripts answers of both methods in one fault file and
// checks that each call takes the next answer of its own method and is logged.
func TestScriptAndLog(t *testing.T) {
	dir := t.TempDir()
	i := &interceptor{faultFile: filepath.Join(dir, "faults.json"), callLog: filepath.Join(dir, "calls.jsonl")}
	script := `[{"method":"ControllerModifyVolume","code":"InvalidArgument"},{"code":"ResourceExhausted"},{"method":"ControllerExpandVolume","code":"Aborted"}]`
	if err := os.WriteFile(i.faultFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	handler := func(_ context.Context, req any) (any, error) {
		switch r := req.(type) {
		case *csi.ControllerExpandVolumeRequest:
			return &csi.ControllerExpandVolumeResponse{CapacityBytes: r.GetCapacityRange().GetRequiredBytes()}, nil
		case *csi.ControllerModifyVolumeRequest:
			return &csi.ControllerModifyVolumeResponse{}, nil
		}
		return nil, status.Error(codes.Unimplemented, "?")
	}
	secrets := map[string]string{"password": "p"}
	expand := &csi.ControllerExpandVolumeRequest{VolumeId: "vol-1", CapacityRange: &csi.CapacityRange{RequiredBytes: 10}, Secrets: secrets}
	modify := &csi.ControllerModifyVolumeRequest{VolumeId: "vol-1", MutableParameters: map[string]string{"iops": "3000"}, Secrets: secrets}
	requests := []any{expand, modify, modify, expand, expand}
	wantCodes := []codes.Code{codes.ResourceExhausted, codes.InvalidArgument, codes.OK, codes.Aborted, codes.OK}
	for n, req := range requests {
		_, err := i.intercept(t.Context(), req, &grpc.UnaryServerInfo{}, handler)
		if status.Code(err) != wantCodes[n] {
			t.Errorf("call %d: error = %v, want code %v", n, err, wantCodes[n])
		}
	}
	// Other calls pass through, unlogged.
	if _, err := i.intercept(t.Context(), &csi.ProbeRequest{}, &grpc.UnaryServerInfo{}, handler); status.Code(err) != codes.Unimplemented {
		t.Errorf("other call = %v, want the handler's answer", err)
	}

	f, err := os.Open(i.callLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []loggedCall
	for s := bufio.NewScanner(f); s.Scan(); {
		var c loggedCall
		if err := json.Unmarshal(s.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if len(got) != len(requests) {
		t.Fatalf("call log has %d lines, want %d: %+v", len(got), len(requests), got)
	}
	for n, c := range got {
		want := loggedCall{Method: methodExpand, VolumeID: "vol-1", RequiredBytes: 10, Code: wantCodes[n].String()}
		if _, ok := requests[n].(*csi.ControllerModifyVolumeRequest); ok {
			want = loggedCall{Method: methodModify, VolumeID: "vol-1", Parameters: map[string]string{"iops": "3000"}, Code: wantCodes[n].String()}
		} else if wantCodes[n] == codes.OK {
			want.CapacityBytes = 10
		}
		if c.Method != want.Method || c.VolumeID != want.VolumeID || c.RequiredBytes != want.RequiredBytes || c.Code != want.Code ||
			c.CapacityBytes != want.CapacityBytes || !maps.Equal(c.Parameters, want.Parameters) || !maps.Equal(c.Secrets, secrets) {
			t.Errorf("line %d = %+v, want %+v with the secrets", n, c, want)
		}
	}
}

// TestScriptNodeCallsByVolume scripts NodeExpandVolume failures for one
// volume: the other volume's calls pass, and every call is logged with its
// path and code.
func TestScriptNodeCallsByVolume(t *testing.T) {
	dir := t.TempDir()
	i := &interceptor{faultFile: filepath.Join(dir, "faults.json"), callLog: filepath.Join(dir, "calls.jsonl")}
	script := `[{"method":"NodeExpandVolume","volumeID":"vol-2","code":"Internal"},{"method":"NodeExpandVolume","volumeID":"vol-2","code":"Internal"}]`
	if err := os.WriteFile(i.faultFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	handler := func(_ context.Context, req any) (any, error) {
		r := req.(*csi.NodeExpandVolumeRequest)
		return &csi.NodeExpandVolumeResponse{CapacityBytes: r.GetCapacityRange().GetRequiredBytes()}, nil
	}
	call := func(volume string) codes.Code {
		req := &csi.NodeExpandVolumeRequest{VolumeId: volume, VolumePath: "/mnt/" + volume, CapacityRange: &csi.CapacityRange{RequiredBytes: 10}}
		_, err := i.intercept(t.Context(), req, &grpc.UnaryServerInfo{}, handler)
		return status.Code(err)
	}
	got := []codes.Code{call("vol-1"), call("vol-2"), call("vol-1"), call("vol-2"), call("vol-2")}
	want := []codes.Code{codes.OK, codes.Internal, codes.OK, codes.Internal, codes.OK}
	if !slices.Equal(got, want) {
		t.Errorf("codes = %v, want %v", got, want)
	}
	data, err := os.ReadFile(i.callLog)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], `"method":"NodeExpandVolume","volumeID":"vol-2","path":"/mnt/vol-2","requiredBytes":10`) ||
		!strings.Contains(lines[1], `"code":"Internal"`) {
		t.Errorf("call log = %s", data)
	}
}

func TestAllocationUnitRoundsTheAnswerUp(t *testing.T) {
	for _, tc := range []struct {
		name             string
		unit, size, want int64
	}{
		{name: "no unit", unit: 0, size: 1500, want: 1500},
		{name: "rounded up", unit: 1024, size: 1500, want: 2048},
		{name: "a multiple already", unit: 1024, size: 2048, want: 2048},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := &interceptor{allocationUnit: tc.unit}
			handler := func(_ context.Context, req any) (any, error) {
				return &csi.ControllerExpandVolumeResponse{CapacityBytes: req.(*csi.ControllerExpandVolumeRequest).GetCapacityRange().GetRequiredBytes()}, nil
			}
			resp, err := i.intercept(t.Context(), &csi.ControllerExpandVolumeRequest{VolumeId: "v", CapacityRange: &csi.CapacityRange{RequiredBytes: tc.size}}, &grpc.UnaryServerInfo{}, handler)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.(*csi.ControllerExpandVolumeResponse).GetCapacityBytes(); got != tc.want {
				t.Errorf("capacity = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestReceivedLogShowsHeldCall holds a call with a scripted delay: it is in
// the received log, without its secrets, while the call log does not have
// it yet; once its caller gives up it ends, and the call log has it.
func TestReceivedLogShowsHeldCall(t *testing.T) {
	dir := t.TempDir()
	i := &interceptor{faultFile: filepath.Join(dir, "faults.json"), callLog: filepath.Join(dir, "calls.jsonl"), receivedLog: filepath.Join(dir, "received.jsonl")}
	if err := os.WriteFile(i.faultFile, []byte(`[{"method":"ControllerModifyVolume","delay":"1m"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	handler := func(context.Context, any) (any, error) { return &csi.ControllerModifyVolumeResponse{}, nil }
	req := &csi.ControllerModifyVolumeRequest{VolumeId: "vol-1", MutableParameters: map[string]string{"iops": "3000"}, Secrets: map[string]string{"password": "p"}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		_, err := i.intercept(ctx, req, &grpc.UnaryServerInfo{}, handler)
		ended <- err
	}()

	var line []byte
	for deadline := time.Now().Add(10 * time.Second); len(line) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the held call is not in the received log")
		}
		line, _ = os.ReadFile(i.receivedLog)
	}
	var got call
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if got.Method != methodModify || got.VolumeID != "vol-1" || got.Parameters["iops"] != "3000" || got.Delay != "1m" || got.Start.IsZero() {
		t.Errorf("received = %+v, want the modify call on vol-1 with iops 3000, held for 1m", got)
	}
	if strings.Contains(string(line), "password") {
		t.Errorf("received log has the secrets: %s", line)
	}
	if _, err := os.Stat(i.callLog); !os.IsNotExist(err) {
		t.Errorf("call log exists while the call is held: %v", err)
	}

	cancel()
	if err := <-ended; status.Code(err) != codes.Canceled {
		t.Errorf("held call ended with %v, want Canceled", err)
	}
	data, err := os.ReadFile(i.callLog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"code":"Canceled"`) {
		t.Errorf("call log = %s, want the call, Canceled", data)
	}
}
