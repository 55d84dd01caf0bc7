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
	"syscall"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"k8s.io/klog/v2"
)

// Config is what the driver advertises and how it answers by default.
type Config struct {
	// DriverName is returned by GetPluginInfo. It may be empty, to test clients
	// that must reject an empty name.
	DriverName string
	// ControllerExpand and NodeExpand advertise the controller and the node
	// capability EXPAND_VOLUME; Online and Offline the plugin capability
	// VolumeExpansion ONLINE and OFFLINE.
	ControllerExpand, NodeExpand, Online, Offline bool
	// SingleNodeMultiWriter advertises the controller capability SINGLE_NODE_MULTI_WRITER.
	SingleNodeMultiWriter bool
	// ControllerModify advertises the controller capability MODIFY_VOLUME.
	// ControllerModifyVolume is served either way.
	ControllerModify bool
	// NodeExpansionRequired is returned by every successful ControllerExpandVolume.
	NodeExpansionRequired bool
	// AllocationUnit, when positive, makes ControllerExpandVolume allocate
	// whole units, as drivers that allocate in extents do: the required bytes
	// are rounded up to a multiple of it, and answered as capacity_bytes.
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
	// StateFile, when set, keeps the volume sizes, mutable parameters and what
	// the node side did (file-system sizes, staging and target paths, as mounts
	// outlive a driver's restart) across restarts, as a storage backend would:
	// Serve loads it, and every change is written to it before the call that
	// made it answers.
	StateFile string
	// FaultFile, when set, scripts the driver's answers: a JSON list of
	// Answer, read again whenever its content changes.
	FaultFile string
	// OnCall, when set, is called with a copy of each recorded call (see
	// Call) when it arrives (End zero), when the caller of a controller call
	// stops waiting before the end (CallerGone set), and when it ends, for
	// instance to write a call log that outlives the driver. Calls for one
	// call may come from different goroutines.
	OnCall func(Call)
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

	mu         sync.Mutex
	probes     int                // Probe calls answered so far
	faults     map[string]*faults // short method name -> faults armed on it
	script     script
	calls      []Call
	volumes    map[string]int64             // volume ID -> size in bytes
	parameters map[string]map[string]string // volume ID -> applied mutable parameters
	node       map[string]NodeVolume        // volume ID -> what the node side did with it
}

// Serve starts a driver with cfg on a unix socket at socketPath. A stale socket
// left at that path is removed; any other file there is an error. Call Stop to
// shut the driver down.
func Serve(socketPath string, cfg Config) (*Driver, error) {
	st, err := readState(cfg.StateFile)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(socketPath); err == nil && fi.Mode().Type() != fs.ModeSocket {
		return nil, fmt.Errorf("socket path %q exists and is not a socket", socketPath)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("check socket path %q: %w", socketPath, err)
	} else if err := os.Remove(socketPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove stale socket %q: %w", socketPath, err)
	}
	lis, err := net.Listen("unix", socketPath)
	if err != nil {
		return nil, fmt.Errorf("listen on unix socket %q: %w", socketPath, err)
	}
	d := &Driver{cfg: cfg, endpoint: socketPath, done: make(chan struct{}), faults: map[string]*faults{},
		volumes: st.Volumes, parameters: st.Parameters, node: st.Node}
	// The peer credentials tell which process made each call (Call.Pid).
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

// GetPluginInfo returns the configured driver name, which may be empty.
func (d *Driver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: d.cfg.DriverName, VendorVersion: "test"}, nil
}

// GetPluginCapabilities returns CONTROLLER_SERVICE (unless Config.NoControllerService)
// and the configured VolumeExpansion types.
func (d *Driver) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	var caps []*csi.PluginCapability
	if !d.cfg.NoControllerService {
		caps = append(caps, &csi.PluginCapability{Type: &csi.PluginCapability_Service_{
			Service: &csi.PluginCapability_Service{Type: csi.PluginCapability_Service_CONTROLLER_SERVICE},
		}})
	}
	for _, typ := range enabled([]csi.PluginCapability_VolumeExpansion_Type{csi.PluginCapability_VolumeExpansion_ONLINE,
		csi.PluginCapability_VolumeExpansion_OFFLINE}, d.cfg.Online, d.cfg.Offline) {
		caps = append(caps, &csi.PluginCapability{Type: &csi.PluginCapability_VolumeExpansion_{
			VolumeExpansion: &csi.PluginCapability_VolumeExpansion{Type: typ},
		}})
	}
	return &csi.GetPluginCapabilitiesResponse{Capabilities: caps}, nil
}

// enabled returns the capability types whose flag in on is set, in order.
func enabled[T any](types []T, on ...bool) []T {
	var out []T
	for i, typ := range types {
		if on[i] {
			out = append(out, typ)
		}
	}
	return out
}

// Probe answers ready=false for the first Config.ProbeNotReadyTimes calls,
// then ready=true. Calls failed with FailCall do not count.
func (d *Driver) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.probes++
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(d.probes > d.cfg.ProbeNotReadyTimes)}, nil
}

// peerInfo is the process at the other end of a unix socket connection, as
// the kernel reports it (SO_PEERCRED) when it connected; Pid is 0 when the
// kernel could not tell. It is the credentials.AuthInfo of every call.
type peerInfo struct {
	credentials.CommonAuthInfo
	Pid int
}

func (peerInfo) AuthType() string { return "peercred" }

// callerPid returns the pid of the process that made the call of ctx, or 0.
func callerPid(ctx context.Context) int {
	if p, ok := peer.FromContext(ctx); ok {
		if info, ok := p.AuthInfo.(peerInfo); ok {
			return info.Pid
		}
	}
	return 0
}

// peerCredentials are server transport credentials that secure nothing: they
// only read the peer's pid off the accepted unix socket, so that the driver can
// tell which process made each call (a resizer that was killed and restarted
// comes back with a new pid). Clients connect with insecure credentials.
type peerCredentials struct{}

func (peerCredentials) ClientHandshake(context.Context, string, net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("peer credentials are for the server side only")
}

// ServerHandshake never fails a connection: a peer whose credentials cannot
// be read is served with Pid 0.
func (peerCredentials) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	info := peerInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}
	if sc, ok := conn.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			_ = raw.Control(func(fd uintptr) {
				if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
					info.Pid = int(cred.Pid)
				}
			})
		}
	}
	return conn, info, nil
}

func (peerCredentials) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "peercred"}
}

func (peerCredentials) Clone() credentials.TransportCredentials { return peerCredentials{} }

func (peerCredentials) OverrideServerName(string) error { return nil }
