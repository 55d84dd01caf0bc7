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

// Package csidriver is a small, configurable CSI driver for tests. It serves the
// Identity, Controller and Node services on a real unix socket, records every
// ControllerExpandVolume and ControllerModifyVolume call and every call that
// stages, publishes or expands a volume on the node, and lets a test inject
// faults (gRPC errors, latency, odd capacities) at run time. Its Node service
// is enough for a real kubelet: it creates and removes the directories kubelet
// expects, and keeps a file-system size per volume, but mounts nothing.
//
// It is not production code. Only testing.go imports the testing package, so the
// driver can also be built into a standalone binary for end-to-end tests.
package csidriver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/protosanitizer"
	"google.golang.org/grpc"
	"k8s.io/klog/v2"
)

// Config is what the driver advertises and how it answers by default.
type Config struct {
	// DriverName is returned by GetPluginInfo. It may be empty, to test clients
	// that must reject an empty name.
	DriverName string
	// ControllerExpand advertises the controller capability EXPAND_VOLUME.
	ControllerExpand bool
	// NodeExpand advertises the node capability EXPAND_VOLUME.
	NodeExpand bool
	// Online advertises the plugin capability VolumeExpansion ONLINE.
	Online bool
	// Offline advertises the plugin capability VolumeExpansion OFFLINE.
	Offline bool
	// SingleNodeMultiWriter advertises the controller capability SINGLE_NODE_MULTI_WRITER.
	SingleNodeMultiWriter bool
	// ControllerModify advertises the controller capability MODIFY_VOLUME.
	// ControllerModifyVolume is served either way.
	ControllerModify bool
	// NodeExpansionRequired is returned by every successful ControllerExpandVolume.
	NodeExpansionRequired bool
	// AllocationUnit, when positive, makes ControllerExpandVolume allocate
	// whole units: the required bytes are rounded up to a multiple of it, and
	// the answer's capacity_bytes is that larger size, as drivers that
	// allocate in extents do.
	AllocationUnit int64
	// ProbeNotReadyTimes is how many Probe calls answer ready=false before the
	// driver reports ready.
	ProbeNotReadyTimes int
	// StrictVolumes makes ControllerExpandVolume and ControllerModifyVolume
	// answer NotFound for a volume the driver does not know (see AddVolume);
	// otherwise the volume is created at its first use.
	StrictVolumes bool
	// NoControllerService drops the plugin capability CONTROLLER_SERVICE and does
	// not register the Controller service at all.
	NoControllerService bool
	// NoNodeService does not register the Node service, as on a controller-only
	// socket: NodeGetCapabilities then fails with Unimplemented.
	NoNodeService bool
	// NodeID is what NodeGetInfo answers; empty means DefaultNodeID.
	NodeID string
	// StateFile, when set, keeps the volume sizes and mutable parameters
	// across restarts of the driver, as a storage backend would: Serve loads
	// it, and every change is written to it before the call that made it
	// answers. It keeps what the node side did too (file-system sizes,
	// staging and target paths), as mounts outlive a driver's restart.
	StateFile string
	// FaultFile, when set, scripts the driver's answers: a JSON list of
	// Answer, read again whenever its content changes (see Script).
	FaultFile string
	// OnExpandCall, when set, is called with a copy of each
	// ControllerExpandVolume call when it arrives (End zero), when its caller
	// stops waiting before the end (CallerGone set), and when it ends, for
	// instance to write a call log that outlives the driver. Calls for one
	// ControllerExpandVolume may come from different goroutines.
	OnExpandCall func(ExpandCall)
	// OnModifyCall is OnExpandCall for ControllerModifyVolume calls.
	OnModifyCall func(ModifyCall)
	// OnNodeCall, when set, is called with each NodeStageVolume,
	// NodeUnstageVolume, NodePublishVolume, NodeUnpublishVolume and
	// NodeExpandVolume call when it arrives (End zero) and when it ends.
	OnNodeCall func(NodeCall)
}

// Driver is a running test driver. All its methods are safe for concurrent use.
type Driver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedControllerServer
	csi.UnimplementedNodeServer

	cfg      Config
	endpoint string
	server   *grpc.Server
	stopOnce sync.Once
	done     chan struct{} // closed when Serve's goroutine returns

	mu            sync.Mutex
	probes        int // Probe calls answered so far
	faults        faults
	volumes       map[string]int64             // volume ID -> size in bytes
	parameters    map[string]map[string]string // volume ID -> applied mutable parameters
	seq           int                          // calls recorded so far
	expand        expandOp
	modify        modifyOp
	nodeCalls     []NodeCall
	node          map[string]NodeVolume // volume ID -> what the node side did with it
	script        script
	inFlight      map[string]int // volume ID -> expand and modify calls running now
	maxConcurrent map[string]int // volume ID -> highest value inFlight reached
}

// Serve starts a driver with cfg on a unix socket at socketPath. A stale socket
// left at that path is removed; any other file there is an error. Call Stop to
// shut the driver down.
func Serve(socketPath string, cfg Config) (*Driver, error) {
	st, err := readState(cfg.StateFile)
	if err != nil {
		return nil, err
	}
	if err := removeStaleSocket(socketPath); err != nil {
		return nil, err
	}
	lis, err := net.Listen("unix", socketPath)
	if err != nil {
		return nil, fmt.Errorf("listen on unix socket %q: %w", socketPath, err)
	}
	d := &Driver{
		cfg:           cfg,
		endpoint:      socketPath,
		done:          make(chan struct{}),
		volumes:       st.Volumes,
		parameters:    st.Parameters,
		node:          st.Node,
		inFlight:      map[string]int{},
		maxConcurrent: map[string]int{},
		expand:        expandOp{method: csi.Controller_ControllerExpandVolume_FullMethodName, observer: cfg.OnExpandCall},
		modify:        modifyOp{method: csi.Controller_ControllerModifyVolume_FullMethodName, observer: cfg.OnModifyCall},
	}
	// The peer credentials tell which process made each call (ExpandCall.Pid).
	d.server = grpc.NewServer(grpc.Creds(peerCredentials{}), grpc.UnaryInterceptor(d.intercept))
	csi.RegisterIdentityServer(d.server, d)
	if !cfg.NoControllerService {
		csi.RegisterControllerServer(d.server, d)
	}
	if !cfg.NoNodeService {
		csi.RegisterNodeServer(d.server, d)
	}
	go func() {
		defer close(d.done)
		// Serve returns only when the server stops; nothing useful to report then.
		_ = d.server.Serve(lis)
	}()
	return d, nil
}

// Endpoint returns the path of the driver's unix socket.
func (d *Driver) Endpoint() string {
	return d.endpoint
}

// Stop stops the driver at once: open connections are closed and running calls
// are cancelled, as when a driver container dies. Stop may be called more than once.
func (d *Driver) Stop() {
	d.stopOnce.Do(func() {
		d.server.Stop()
		<-d.done
		// Closing the listener normally unlinks the socket; make sure of it.
		if err := os.Remove(d.endpoint); err != nil && !errors.Is(err, fs.ErrNotExist) {
			klog.Background().Error(err, "Failed to remove test driver socket", "path", d.endpoint)
		}
	})
}

func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check socket path %q: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("socket path %q exists and is not a socket", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove stale socket %q: %w", path, err)
	}
	return nil
}

// intercept records the node calls, fails calls as armed with FailCall or
// scripted, and logs every call with secrets stripped, for debugging
// end-to-end runs.
func (d *Driver) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	logger := klog.FromContext(ctx)
	logger.V(5).Info("Test driver call", "method", info.FullMethod, "request", protosanitizer.StripSecrets(req))
	end := d.beginNodeCall(ctx, req)
	var resp any
	err := d.takeCallFault(info.FullMethod, req).suffer(ctx)
	if err == nil {
		resp, err = handler(ctx, req)
	}
	end(resp, err)
	if err != nil {
		logger.V(5).Info("Test driver error", "method", info.FullMethod, "err", err)
		return resp, err
	}
	logger.V(5).Info("Test driver response", "method", info.FullMethod, "response", protosanitizer.StripSecrets(resp))
	return resp, nil
}
