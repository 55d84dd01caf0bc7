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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"
)

// The scripted and logged methods, as the fault file and the call log name them.
const (
	methodExpand     = "ControllerExpandVolume"
	methodModify     = "ControllerModifyVolume"
	methodNodeExpand = "NodeExpandVolume"
	methodStage      = "NodeStageVolume"
	methodUnstage    = "NodeUnstageVolume"
	methodPublish    = "NodePublishVolume"
	methodUnpublish  = "NodeUnpublishVolume"
)

// answer is one scripted answer: a delay, then an error code (or the mock's
// own answer when Code is empty, with Capacity when set), for the next call
// of Method (empty means ControllerExpandVolume) on VolumeID (empty: on any
// volume) that asks for Size (empty: for any size).
type answer struct {
	Method   string `json:"method,omitempty"`
	VolumeID string `json:"volumeID,omitempty"`
	Size     string `json:"size,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message,omitempty"`
	Delay    string `json:"delay,omitempty"`
	Capacity string `json:"capacity,omitempty"`
	// sizeBytes and capacityBytes are Size and Capacity read, 0 when empty.
	sizeBytes, capacityBytes int64
}

// call is one call of a logged method: a line of the call log when it ends,
// and of the received log when it arrives, before its scripted delay, without
// its secrets (the call log has them, for the tests that check them).
type call struct {
	Method        string            `json:"method"`
	VolumeID      string            `json:"volumeID"`
	Path          string            `json:"path,omitempty"`
	RequiredBytes int64             `json:"requiredBytes"`
	Parameters    map[string]string `json:"parameters,omitempty"`
	Secrets       map[string]string `json:"secrets,omitempty"`
	Start         time.Time         `json:"start"`
	// Delay is, in the received log, the scripted delay the call is held for.
	Delay         string    `json:"delay,omitempty"`
	End           time.Time `json:"end,omitzero"`
	Code          string    `json:"code,omitempty"`
	CapacityBytes int64     `json:"capacityBytes,omitempty"`
	NodeStep      bool      `json:"nodeExpansionRequired,omitempty"`
}

// interceptor scripts the calls that change a volume (ControllerExpandVolume,
// ControllerModifyVolume, and on the node NodeExpandVolume and the stage and
// publish calls) from a file that tests rewrite, logs each of them when it
// arrives (receivedLog) and when it ends (callLog), and advertises the
// controller capability MODIFY_VOLUME only with modify.
type interceptor struct {
	faultFile, callLog, receivedLog string
	modify                          bool
	// allocationUnit, when positive, rounds the capacity a successful
	// ControllerExpandVolume answers up to a multiple of it, as drivers that
	// allocate in extents do.
	allocationUnit int64

	mu      sync.Mutex
	loaded  []byte
	pending []answer
}

func (i *interceptor) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	var c call
	switch r := req.(type) {
	case *csi.ControllerGetCapabilitiesRequest:
		return i.capabilities(ctx, req, handler)
	case *csi.ControllerExpandVolumeRequest:
		c = call{Method: methodExpand, RequiredBytes: r.GetCapacityRange().GetRequiredBytes(), Secrets: r.GetSecrets()}
	case *csi.ControllerModifyVolumeRequest:
		c = call{Method: methodModify, Parameters: r.GetMutableParameters(), Secrets: r.GetSecrets()}
	case *csi.NodeExpandVolumeRequest:
		c = call{Method: methodNodeExpand, Path: r.GetVolumePath(), RequiredBytes: r.GetCapacityRange().GetRequiredBytes()}
	case *csi.NodeStageVolumeRequest:
		c = call{Method: methodStage, Path: r.GetStagingTargetPath()}
	case *csi.NodeUnstageVolumeRequest:
		c = call{Method: methodUnstage, Path: r.GetStagingTargetPath()}
	case *csi.NodePublishVolumeRequest:
		c = call{Method: methodPublish, Path: r.GetTargetPath()}
	case *csi.NodeUnpublishVolumeRequest:
		c = call{Method: methodUnpublish, Path: r.GetTargetPath()}
	default:
		return handler(ctx, req)
	}
	c.VolumeID, c.Start = req.(interface{ GetVolumeId() string }).GetVolumeId(), time.Now()
	a := i.next(c.Method, c.VolumeID, c.RequiredBytes)
	received := c
	received.Secrets, received.Delay = nil, a.Delay
	i.appendLine(i.receivedLog, received)
	resp, err := i.answer(ctx, a, c, req, handler)
	c.End, c.Code = time.Now(), status.Code(err).String()
	switch r := resp.(type) {
	case *csi.ControllerExpandVolumeResponse:
		if err == nil && i.allocationUnit > 0 && r.GetCapacityBytes()%i.allocationUnit != 0 {
			r.CapacityBytes = (r.GetCapacityBytes()/i.allocationUnit + 1) * i.allocationUnit
		}
		c.CapacityBytes, c.NodeStep = r.GetCapacityBytes(), r.GetNodeExpansionRequired()
	case *csi.NodeExpandVolumeResponse:
		c.CapacityBytes = r.GetCapacityBytes()
	}
	i.appendLine(i.callLog, c)
	return resp, err
}

// capabilities makes the mock advertise MODIFY_VOLUME exactly when asked
// to: Kubernetes' mock advertises it always, with a stub
// ControllerModifyVolume, so without modify it is taken out and the mock
// stands for a driver that cannot modify volumes.
func (i *interceptor) capabilities(ctx context.Context, req any, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	r, ok := resp.(*csi.ControllerGetCapabilitiesResponse)
	if err != nil || !ok {
		return resp, err
	}
	r.Capabilities = slices.DeleteFunc(r.Capabilities, func(c *csi.ControllerServiceCapability) bool {
		return c.GetRpc().GetType() == csi.ControllerServiceCapability_RPC_MODIFY_VOLUME
	})
	if i.modify {
		r.Capabilities = append(r.Capabilities, &csi.ControllerServiceCapability{Type: &csi.ControllerServiceCapability_Rpc{
			Rpc: &csi.ControllerServiceCapability_RPC{Type: csi.ControllerServiceCapability_RPC_MODIFY_VOLUME},
		}})
	}
	return r, nil
}

// answer waits the delay of a, then fails the call with its code or lets the
// mock answer it: an expand request with a capacity is sent to the mock as
// one asking for that size, so that the mock's volume has the size it
// answers, more or less than the caller asked for.
func (i *interceptor) answer(ctx context.Context, a answer, c call, req any, handler grpc.UnaryHandler) (any, error) {
	if d, err := time.ParseDuration(a.Delay); err == nil && d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	for code := codes.Canceled; code <= codes.Unauthenticated; code++ {
		if code.String() == a.Code {
			return nil, status.Error(code, a.Message)
		}
	}
	if a.Code != "" && a.Code != codes.OK.String() {
		klog.ErrorS(nil, "Fault file entry names no gRPC code: the call is answered as usual", "code", a.Code, "method", c.Method, "volumeID", c.VolumeID)
	}
	if r, ok := req.(*csi.ControllerExpandVolumeRequest); ok && a.capacityBytes > 0 {
		r = proto.Clone(r).(*csi.ControllerExpandVolumeRequest)
		r.CapacityRange = &csi.CapacityRange{RequiredBytes: a.capacityBytes}
		req = r
	}
	return handler(ctx, req)
}

// next pops the next scripted answer for a call of method on volume asking
// for size bytes, leaving the answers for other methods, volumes and sizes in
// place; the script is reloaded whenever the file's content changes.
func (i *interceptor) next(method, volume string, size int64) answer {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.faultFile != "" {
		if data, err := os.ReadFile(i.faultFile); err == nil && !bytes.Equal(data, i.loaded) {
			i.loaded = data
			pending, err := parseAnswers(data)
			if err != nil {
				klog.ErrorS(err, "Fault file is not a list of answers: nothing is scripted", "path", i.faultFile)
			}
			i.pending = pending
		}
	}
	for n, a := range i.pending {
		sameMethod := a.Method == method || (a.Method == "" && method == methodExpand)
		if sameMethod && (a.VolumeID == "" || a.VolumeID == volume) && (a.sizeBytes == 0 || a.sizeBytes == size) {
			i.pending = slices.Delete(i.pending, n, n+1)
			return a
		}
	}
	return answer{}
}

// parseAnswers reads a fault file's content: a list of answers whose sizes
// are positive quantities ("3Gi") or bytes.
func parseAnswers(data []byte) ([]answer, error) {
	var answers []answer
	if err := json.Unmarshal(data, &answers); err != nil {
		return nil, err
	}
	for n := range answers {
		a := &answers[n]
		for _, s := range []struct {
			name, size string
			bytes      *int64
		}{{"size", a.Size, &a.sizeBytes}, {"capacity", a.Capacity, &a.capacityBytes}} {
			if s.size == "" {
				continue
			}
			q, err := resource.ParseQuantity(s.size)
			if err == nil && q.Sign() <= 0 {
				err = fmt.Errorf("%s is not a positive size", s.size)
			}
			if err != nil {
				return nil, fmt.Errorf("entry %d: %s: %w", n, s.name, err)
			}
			*s.bytes = q.Value()
		}
	}
	return answers, nil
}

// appendLine appends v as one JSON line to file; "" logs nothing.
func (i *interceptor) appendLine(file string, v any) {
	if file == "" {
		return
	}
	line, _ := json.Marshal(v)
	i.mu.Lock()
	defer i.mu.Unlock()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}
