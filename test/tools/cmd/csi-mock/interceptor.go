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
	"os"
	"slices"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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

// call is one call of a logged method as the call log records it.
type call struct {
	Method        string            `json:"method"`
	VolumeID      string            `json:"volumeID"`
	Path          string            `json:"path,omitempty"`
	RequiredBytes int64             `json:"requiredBytes"`
	Parameters    map[string]string `json:"parameters,omitempty"`
	Secrets       map[string]string `json:"secrets,omitempty"`
	Start         time.Time         `json:"start"`
	End           time.Time         `json:"end"`
	Code          string            `json:"code"`
	CapacityBytes int64             `json:"capacityBytes,omitempty"`
	NodeStep      bool              `json:"nodeExpansionRequired,omitempty"`
}

// received is one line of the received log: a call of a logged method as
// it arrived, before its scripted answer. Its secrets are left out: the
// call log has them, for the tests that check them.
type received struct {
	Method     string            `json:"method"`
	VolumeID   string            `json:"volumeID"`
	Path       string            `json:"path,omitempty"`
	Parameters map[string]string `json:"parameters,omitempty"`
	Start      time.Time         `json:"start"`
	// Delay is the scripted delay the call is held for, "" for none.
	Delay string `json:"delay,omitempty"`
}

// interceptor scripts the calls that change a volume (ControllerExpandVolume,
// ControllerModifyVolume, and on the node NodeExpandVolume and the stage and
// publish calls) from a file that tests rewrite, logs each of them when it
// arrives (receivedLog) and when it ends (callLog), and advertises the
// controller capability MODIFY_VOLUME only with modify.
type interceptor struct {
	faultFile, callLog string
	// receivedLog, when set, gets one line per call as soon as the call has
	// taken its scripted answer, before the answer's delay: a call there
	// and not yet in callLog is held by the driver.
	receivedLog string
	modify      bool
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
		c = call{Method: methodExpand, VolumeID: r.GetVolumeId(), RequiredBytes: r.GetCapacityRange().GetRequiredBytes(), Secrets: r.GetSecrets()}
	case *csi.ControllerModifyVolumeRequest:
		c = call{Method: methodModify, VolumeID: r.GetVolumeId(), Parameters: r.GetMutableParameters(), Secrets: r.GetSecrets()}
	case *csi.NodeExpandVolumeRequest:
		c = call{Method: methodNodeExpand, VolumeID: r.GetVolumeId(), Path: r.GetVolumePath(), RequiredBytes: r.GetCapacityRange().GetRequiredBytes()}
	case *csi.NodeStageVolumeRequest:
		c = call{Method: methodStage, VolumeID: r.GetVolumeId(), Path: r.GetStagingTargetPath()}
	case *csi.NodeUnstageVolumeRequest:
		c = call{Method: methodUnstage, VolumeID: r.GetVolumeId(), Path: r.GetStagingTargetPath()}
	case *csi.NodePublishVolumeRequest:
		c = call{Method: methodPublish, VolumeID: r.GetVolumeId(), Path: r.GetTargetPath()}
	case *csi.NodeUnpublishVolumeRequest:
		c = call{Method: methodUnpublish, VolumeID: r.GetVolumeId(), Path: r.GetTargetPath()}
	default:
		return handler(ctx, req)
	}
	c.Start = time.Now()
	a := i.next(c.Method, c.VolumeID, c.RequiredBytes)
	resp, err := i.answer(ctx, a, c, withCapacity(req, a.capacityBytes), handler)
	c.End, c.Code = time.Now(), status.Code(err).String()
	switch r := resp.(type) {
	case *csi.ControllerExpandVolumeResponse:
		if err == nil {
			r.CapacityBytes = roundUp(r.GetCapacityBytes(), i.allocationUnit)
		}
		c.CapacityBytes, c.NodeStep = r.GetCapacityBytes(), r.GetNodeExpansionRequired()
	case *csi.NodeExpandVolumeResponse:
		c.CapacityBytes = r.GetCapacityBytes()
	}
	i.log(c)
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

func (i *interceptor) answer(ctx context.Context, a answer, c call, req any, handler grpc.UnaryHandler) (any, error) {
	i.appendLine(i.receivedLog, received{Method: c.Method, VolumeID: c.VolumeID, Path: c.Path, Parameters: c.Parameters, Start: c.Start, Delay: a.Delay})
	if d, err := time.ParseDuration(a.Delay); err == nil && d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	if code, ok := codeNamed(a.Code); ok {
		return nil, status.Error(code, a.Message)
	}
	if a.Code != "" && a.Code != codes.OK.String() {
		klog.ErrorS(nil, "Fault file entry names no gRPC code: the call is answered as usual", "code", a.Code, "method", c.Method, "volumeID", c.VolumeID)
	}
	return handler(ctx, req)
}

// codeNamed maps a code's Go name ("OutOfRange") to the code.
func codeNamed(name string) (codes.Code, bool) {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == name && c != codes.OK {
			return c, true
		}
	}
	return codes.OK, false
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

func (i *interceptor) log(c call) { i.appendLine(i.callLog, c) }

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
