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
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// NodeCall is one NodeStageVolume, NodeUnstageVolume, NodePublishVolume,
// NodeUnpublishVolume or NodeExpandVolume call as the driver received it,
// including calls failed by FailCall or a scripted answer.
type NodeCall struct {
	// Seq numbers the call among all the calls of the driver, see ExpandCall.
	Seq int
	// Pid is the process that made the call (0 when unknown), from the
	// socket's peer credentials.
	Pid int
	// Method is one of MethodNodeStage, MethodNodeUnstage, MethodNodePublish,
	// MethodNodeUnpublish and MethodNodeExpand.
	Method string
	// VolumeID is the request's volume_id.
	VolumeID string
	// Path is the request's staging_target_path (stage, unstage),
	// target_path (publish, unpublish) or volume_path (expand).
	Path string
	// RequiredBytes is an expand call's capacity_range.required_bytes.
	RequiredBytes int64
	// CapacityBytes is what a successful expand call answered.
	CapacityBytes int64
	// Start is when the call arrived; End is when it returned, zero while it runs.
	Start, End time.Time
	// Code is the gRPC code the call returned (OK while it runs).
	Code codes.Code
}

// Ended reports whether the driver answered the call.
func (c NodeCall) Ended() bool { return !c.End.IsZero() }

// newNodeCall returns the record of a node call with req, and false when
// req is not a request of a recorded node call.
func newNodeCall(req any) (NodeCall, bool) {
	switch r := req.(type) {
	case *csi.NodeStageVolumeRequest:
		return NodeCall{Method: MethodNodeStage, VolumeID: r.GetVolumeId(), Path: r.GetStagingTargetPath()}, true
	case *csi.NodeUnstageVolumeRequest:
		return NodeCall{Method: MethodNodeUnstage, VolumeID: r.GetVolumeId(), Path: r.GetStagingTargetPath()}, true
	case *csi.NodePublishVolumeRequest:
		return NodeCall{Method: MethodNodePublish, VolumeID: r.GetVolumeId(), Path: r.GetTargetPath()}, true
	case *csi.NodeUnpublishVolumeRequest:
		return NodeCall{Method: MethodNodeUnpublish, VolumeID: r.GetVolumeId(), Path: r.GetTargetPath()}, true
	case *csi.NodeExpandVolumeRequest:
		return NodeCall{Method: MethodNodeExpand, VolumeID: r.GetVolumeId(), Path: r.GetVolumePath(),
			RequiredBytes: r.GetCapacityRange().GetRequiredBytes()}, true
	}
	return NodeCall{}, false
}

// beginNodeCall records the arrival of a node call with req and returns
// the function that records its end; for any other call, that function does
// nothing.
func (d *Driver) beginNodeCall(ctx context.Context, req any) (end func(resp any, err error)) {
	call, ok := newNodeCall(req)
	if !ok {
		return func(any, error) {}
	}
	call.Pid, call.Start = CallerPid(ctx), time.Now()
	d.mu.Lock()
	d.seq++
	call.Seq = d.seq
	d.nodeCalls = append(d.nodeCalls, call)
	i := len(d.nodeCalls) - 1
	d.mu.Unlock()
	d.observeNode(call)
	return func(resp any, err error) {
		d.mu.Lock()
		call := &d.nodeCalls[i]
		call.End, call.Code = time.Now(), status.Code(err)
		if r, ok := resp.(*csi.NodeExpandVolumeResponse); ok && err == nil {
			call.CapacityBytes = r.GetCapacityBytes()
		}
		ended := *call
		d.mu.Unlock()
		d.observeNode(ended)
	}
}

// observeNode hands call to Config.OnNodeCall.
func (d *Driver) observeNode(call NodeCall) {
	if d.cfg.OnNodeCall != nil {
		d.cfg.OnNodeCall(call)
	}
}

// NodeCalls returns a copy of every node call so far, in order of arrival,
// including calls still running.
func (d *Driver) NodeCalls() []NodeCall {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]NodeCall(nil), d.nodeCalls...)
}
