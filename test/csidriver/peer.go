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
	"errors"
	"net"
	"syscall"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
)

// PeerInfo is who is at the other end of a unix socket connection, as the
// kernel reports it (SO_PEERCRED): the process that connected. It is the
// credentials.AuthInfo of every call the driver serves.
type PeerInfo struct {
	credentials.CommonAuthInfo
	// Pid, Uid and Gid are the peer's at the time it connected; 0 when the
	// kernel could not tell (not a unix socket).
	Pid, Uid, Gid int
}

// AuthType implements credentials.AuthInfo.
func (PeerInfo) AuthType() string { return "peercred" }

// CallerPid returns the pid of the process that made the call of ctx, or 0
// when unknown.
func CallerPid(ctx context.Context) int {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return 0
	}
	if info, ok := p.AuthInfo.(PeerInfo); ok {
		return info.Pid
	}
	return 0
}

// peerCredentials are server transport credentials that secure nothing: they
// only read the peer's process credentials off the accepted unix socket, so
// that the driver can tell which process made each call (a resizer that was
// killed and restarted comes back with a new pid). Clients connect with
// insecure credentials as usual: nothing is exchanged on the wire.
type peerCredentials struct{}

var errClientSide = errors.New("peer credentials are for the server side only")

func (peerCredentials) ClientHandshake(context.Context, string, net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errClientSide
}

// ServerHandshake never fails a connection: a peer whose credentials cannot
// be read is served with Pid 0.
func (peerCredentials) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	info := PeerInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return conn, info, nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return conn, info, nil
	}
	_ = raw.Control(func(fd uintptr) {
		cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err == nil {
			info.Pid, info.Uid, info.Gid = int(cred.Pid), int(cred.Uid), int(cred.Gid)
		}
	})
	return conn, info, nil
}

func (peerCredentials) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "peercred"}
}

func (peerCredentials) Clone() credentials.TransportCredentials { return peerCredentials{} }

// OverrideServerName is part of the interface; there is no server name.
func (peerCredentials) OverrideServerName(string) error { return nil }
