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
	"maps"
	"path"
	"slices"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/protosanitizer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"k8s.io/klog/v2"
)

// The methods of the recorded calls, as Call.Method and a call log name them.
const (
	MethodExpand        = "ControllerExpandVolume"
	MethodModify        = "ControllerModifyVolume"
	MethodNodeStage     = "NodeStageVolume"
	MethodNodeUnstage   = "NodeUnstageVolume"
	MethodNodePublish   = "NodePublishVolume"
	MethodNodeUnpublish = "NodeUnpublishVolume"
	MethodNodeExpand    = "NodeExpandVolume"
)

var nodeMethods = []string{MethodNodeStage, MethodNodeUnstage, MethodNodePublish, MethodNodeUnpublish, MethodNodeExpand}

// Call is one call of a recorded method (MethodExpand ... MethodNodeExpand)
// as the driver received it, including calls failed by a fault, a hook or a
// scripted answer.
type Call struct {
	// Seq numbers the calls of one driver from 1, in order of arrival, all
	// methods together.
	Seq int
	// Pid is the process that made the call (0 when unknown), from the
	// socket's peer credentials.
	Pid      int
	Method   string
	VolumeID string
	// Path is the request's staging_target_path (stage, unstage),
	// target_path (publish, unpublish) or volume_path (node expand).
	Path string
	// Secrets are the request's secrets, exactly as received.
	Secrets map[string]string
	// RequiredBytes and LimitBytes are an expand call's capacity_range
	// (LimitBytes of ControllerExpandVolume only).
	RequiredBytes, LimitBytes int64
	// Capability is a controller expand call's volume_capability (nil when not sent).
	Capability *csi.VolumeCapability
	// MutableParameters are a modify call's mutable_parameters.
	MutableParameters map[string]string
	// CapacityBytes and NodeExpansionRequired are what a successful expand
	// call answered (NodeExpansionRequired of ControllerExpandVolume only).
	CapacityBytes         int64
	NodeExpansionRequired bool
	// Start is when the call arrived; End is when it returned, zero while it runs.
	Start, End time.Time
	// Deadline is a controller call's deadline, zero when its caller set none.
	Deadline time.Time
	// CallerGone is when the caller of a controller call stopped waiting (its
	// deadline passed, it cancelled, or its connection closed) while the call
	// still ran; zero when the caller got the answer.
	CallerGone time.Time
	// Code is the gRPC code the call returned (OK while it runs).
	Code codes.Code
}

// Ended reports whether the driver answered the call.
func (c Call) Ended() bool { return !c.End.IsZero() }

func (c Call) controller() bool { return c.Method == MethodExpand || c.Method == MethodModify }

func (c Call) clone() Call {
	c.Secrets, c.MutableParameters = maps.Clone(c.Secrets), maps.Clone(c.MutableParameters)
	if c.Capability != nil {
		c.Capability = proto.Clone(c.Capability).(*csi.VolumeCapability)
	}
	return c
}

// newCall returns the record of a call with req, and false when req is not
// the request of a recorded method.
func newCall(req any) (Call, bool) {
	var c Call
	switch r := req.(type) {
	case *csi.ControllerExpandVolumeRequest:
		c = Call{Method: MethodExpand, RequiredBytes: r.GetCapacityRange().GetRequiredBytes(),
			LimitBytes: r.GetCapacityRange().GetLimitBytes(), Capability: r.GetVolumeCapability()}
	case *csi.ControllerModifyVolumeRequest:
		c = Call{Method: MethodModify, MutableParameters: r.GetMutableParameters()}
	case *csi.NodeStageVolumeRequest:
		c = Call{Method: MethodNodeStage, Path: r.GetStagingTargetPath()}
	case *csi.NodeUnstageVolumeRequest:
		c = Call{Method: MethodNodeUnstage, Path: r.GetStagingTargetPath()}
	case *csi.NodePublishVolumeRequest:
		c = Call{Method: MethodNodePublish, Path: r.GetTargetPath()}
	case *csi.NodeUnpublishVolumeRequest:
		c = Call{Method: MethodNodeUnpublish, Path: r.GetTargetPath()}
	case *csi.NodeExpandVolumeRequest:
		c = Call{Method: MethodNodeExpand, Path: r.GetVolumePath(), RequiredBytes: r.GetCapacityRange().GetRequiredBytes()}
	default:
		return c, false
	}
	if r, ok := req.(interface{ GetSecrets() map[string]string }); ok {
		c.Secrets = r.GetSecrets()
	}
	c.VolumeID = volumeIDOf(req)
	return c.clone(), true
}

// volumeIDOf returns the volume_id of a request, or "" when it has none.
func volumeIDOf(req any) string {
	if r, ok := req.(interface{ GetVolumeId() string }); ok {
		return r.GetVolumeId()
	}
	return ""
}

// intercept records the calls of the recorded methods, answers every call
// as armed (hook, faults, scripted answer) or else with its handler, and logs
// every call with secrets stripped, for debugging end-to-end runs.
func (d *Driver) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	logger := klog.FromContext(ctx)
	logger.V(5).Info("Test driver call", "method", info.FullMethod, "request", protosanitizer.StripSecrets(req))
	i, controller := d.begin(ctx, req)
	stop := func() {}
	if controller {
		stop = watchCaller(ctx, func() { d.callerGone(i) })
	}
	resp, err := d.serve(ctx, path.Base(info.FullMethod), req, handler)
	stop()
	d.end(i, resp, err)
	if err != nil {
		logger.V(5).Info("Test driver error", "method", info.FullMethod, "err", err)
		return resp, err
	}
	logger.V(5).Info("Test driver response", "method", info.FullMethod, "response", protosanitizer.StripSecrets(resp))
	return resp, nil
}

// serve answers a call: the hook when it handles it, else the faults armed
// when the hook declined it, else the handler.
func (d *Driver) serve(ctx context.Context, method string, req any, handler grpc.UnaryHandler) (any, error) {
	var hook Hook
	d.locked(func() {
		if f := d.faults[method]; f != nil {
			hook = f.hook
		}
	})
	if hook != nil {
		if resp, handled, err := hook(ctx, req); handled {
			return resp, err
		}
	}
	var t taken
	d.locked(func() { t = d.takeLocked(method, volumeIDOf(req)) })
	if err := t.suffer(ctx); err != nil {
		return nil, err
	}
	resp, err := handler(ctx, req)
	if r, ok := resp.(*csi.ControllerExpandVolumeResponse); ok && err == nil && t.capacity != nil {
		r.CapacityBytes = *t.capacity
	}
	return resp, err
}

// begin records the arrival of a call with req and returns its index and
// whether it is a controller call; -1 when req is of no recorded method.
func (d *Driver) begin(ctx context.Context, req any) (int, bool) {
	c, ok := newCall(req)
	if !ok {
		return -1, false
	}
	c.Pid = callerPid(ctx)
	if deadline, ok := ctx.Deadline(); ok && c.controller() {
		c.Deadline = deadline
	}
	d.mu.Lock()
	// Start is taken under the lock, so that a call that ended before
	// another arrived ended before that one's Start.
	c.Start, c.Seq = time.Now(), len(d.calls)+1
	d.calls = append(d.calls, c)
	d.mu.Unlock()
	d.observe(c)
	return c.Seq - 1, c.controller()
}

// callerGone records that the caller of the call at index i stopped waiting.
func (d *Driver) callerGone(i int) {
	d.mu.Lock()
	c := &d.calls[i]
	if c.Ended() || !c.CallerGone.IsZero() {
		d.mu.Unlock()
		return
	}
	c.CallerGone = time.Now()
	gone := *c
	d.mu.Unlock()
	// Observed now, not only with the end: the call may never end (a
	// driver killed while it hangs).
	d.observe(gone)
}

// end records the outcome of the call at index i (none when i < 0).
func (d *Driver) end(i int, resp any, err error) {
	if i < 0 {
		return
	}
	d.mu.Lock()
	c := &d.calls[i]
	c.End, c.Code = time.Now(), status.Code(err)
	switch r := resp.(type) {
	case *csi.ControllerExpandVolumeResponse:
		c.CapacityBytes, c.NodeExpansionRequired = r.GetCapacityBytes(), r.GetNodeExpansionRequired()
	case *csi.NodeExpandVolumeResponse:
		c.CapacityBytes = r.GetCapacityBytes()
	}
	ended := *c
	d.mu.Unlock()
	d.observe(ended)
}

// observe hands a copy of c to Config.OnCall.
func (d *Driver) observe(c Call) {
	if d.cfg.OnCall != nil {
		d.cfg.OnCall(c.clone())
	}
}

// watchCaller calls gone when ctx ends before stop is called. stop calls gone
// itself whenever ctx has ended, since the watch may not have fired yet (and
// stopping it may even cancel it after ctx ended): gone must tolerate two calls.
func watchCaller(ctx context.Context, gone func()) (stop func()) {
	stopWatch := context.AfterFunc(ctx, gone)
	return func() {
		stopWatch()
		if ctx.Err() != nil {
			gone()
		}
	}
}

// Calls returns a copy of every ControllerExpandVolume call so far, in order
// of arrival, including calls still running.
func (d *Driver) Calls() []Call { return d.callsOf(MethodExpand) }

// ModifyCalls returns a copy of every ControllerModifyVolume call so far, as Calls.
func (d *Driver) ModifyCalls() []Call { return d.callsOf(MethodModify) }

// NodeCalls returns a copy of every node call so far, as Calls.
func (d *Driver) NodeCalls() []Call { return d.callsOf(nodeMethods...) }

func (d *Driver) callsOf(methods ...string) []Call {
	d.mu.Lock()
	defer d.mu.Unlock()
	var calls []Call
	for _, c := range d.calls {
		if slices.Contains(methods, c.Method) {
			calls = append(calls, c.clone())
		}
	}
	return calls
}

// InFlight returns how many ControllerExpandVolume and ControllerModifyVolume
// calls for volumeID are running now.
func (d *Driver) InFlight(volumeID string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.calls {
		if c.VolumeID == volumeID && c.controller() && !c.Ended() {
			n++
		}
	}
	return n
}
