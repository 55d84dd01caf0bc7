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

// Package driver is the resizer's client of the CSI driver's controller
// socket, and the adapters the controller calls to expand a volume (through
// the driver, or for node-only drivers by handing the size to kubelet) and
// to modify it.
package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/connection"
	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"k8s.io/klog/v2"
)

// Client talks to one CSI driver over gRPC.
type Client struct {
	address    string
	timeout    time.Duration
	conn       *grpc.ClientConn
	identity   csi.IdentityClient
	controller csi.ControllerClient
	node       csi.NodeClient

	stopWatch context.CancelFunc
	watchDone chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Hooks are told what happens to the connection. Either may be nil.
type Hooks struct {
	// Waiting is called with a *SocketError saying why, each time the
	// driver's unix socket cannot be opened, until it can.
	Waiting func(error)
	// Lost is called once when an established connection is lost.
	Lost func()
}

// Connect dials the driver at address with csi-lib-utils' connection.Connect,
// which logs every gRPC payload at V(5) with secrets stripped and records
// csi_sidecar_operations_seconds in mm (nil records none). For a unix socket
// (an absolute path or a unix:// URL) it first waits, until ctx ends, for
// the socket to accept, saying why it does not (hooks.Waiting and the log);
// then a lost connection is logged, hooks.Lost called once, and never
// redialled: later calls fail with Unavailable and the sidecar is to exit.
// Other addresses go to gRPC as they are, without the wait or loss
// detection. timeout bounds every call (--timeout) unless a request sets its
// own; the dial is bounded by ctx and connection.Connect's own 30s.
func Connect(ctx context.Context, address string, timeout time.Duration, mm metrics.CSIMetricsManager, hooks Hooks) (*Client, error) {
	logger := klog.FromContext(ctx)
	if timeout <= 0 {
		return nil, fmt.Errorf("connect to CSI driver at %q: call timeout must be positive, got %v", address, timeout)
	}
	unixSocket := isUnixSocket(address)
	var opts []connection.Option
	if unixSocket {
		waiting := hooks.Waiting
		if waiting == nil {
			waiting = func(error) {}
		}
		if err := awaitSocket(ctx, address, strings.TrimPrefix(address, "unix://"), waiting); err != nil {
			return nil, err
		}
		opts = append(opts, connection.OnConnectionLoss(lossHandler(logger, address, hooks.Lost)))
	} else {
		logger.Info("A lost connection to the CSI driver is only detected for an absolute path or a unix:// address", "address", address)
	}

	logger.V(2).Info("Connecting to CSI driver", "address", address)
	conn, err := connection.Connect(ctx, address, mm, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to CSI driver at %q: %w", address, err)
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	c := &Client{
		address:    address,
		timeout:    timeout,
		conn:       conn,
		identity:   csi.NewIdentityClient(conn),
		controller: csi.NewControllerClient(conn),
		node:       csi.NewNodeClient(conn),
		stopWatch:  stopWatch,
		watchDone:  make(chan struct{}),
	}
	if unixSocket {
		go c.watch(watchCtx)
	} else {
		close(c.watchDone)
	}
	return c, nil
}

// lossHandler logs the loss of the connection and calls lost, once, and
// tells connection.Connect not to reconnect.
func lossHandler(logger klog.Logger, address string, lost func()) func(context.Context) bool {
	var once sync.Once
	return func(context.Context) bool {
		once.Do(func() {
			logger.Error(nil, "Lost connection to CSI driver, not reconnecting", "address", address)
			if lost != nil {
				lost()
			}
		})
		return false
	}
}

// Close stops watching the connection, without calling Hooks.Lost, and
// closes it. Close may be called more than once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.stopWatch()
		<-c.watchDone
		if err := c.conn.Close(); err != nil {
			c.closeErr = fmt.Errorf("close connection to CSI driver at %q: %w", c.address, err)
		}
	})
	return c.closeErr
}

// watch makes a lost connection noticed at once, not at the next call hours
// later: gRPC leaves a broken channel idle until a call, and asking it to
// connect runs connection.Connect's dialer, which reports the loss.
func (c *Client) watch(ctx context.Context) {
	defer close(c.watchDone)
	state := c.conn.GetState()
	for {
		if state == connectivity.Idle {
			c.conn.Connect()
		}
		if !c.conn.WaitForStateChange(ctx, state) {
			return // Close was called.
		}
		state = c.conn.GetState()
	}
}

// callContext bounds one call to the driver by timeout when it is
// positive, else by the client's timeout.
func (c *Client) callContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		timeout = c.timeout
	}
	return context.WithTimeout(ctx, timeout)
}

// isUnixSocket tells whether connection.Connect dials address as a unix socket.
func isUnixSocket(address string) bool {
	return strings.HasPrefix(address, "/") || strings.HasPrefix(address, "unix://")
}

// WaitReady calls Probe until the driver reports ready, each call bounded by
// the per-call timeout. DeadlineExceeded and ready=false are retried every
// second until ctx ends; any other error is returned. When ctx ends the error
// wraps ctx.Err().
func (c *Client) WaitReady(ctx context.Context) error {
	if err := rpc.ProbeForever(ctx, c.conn, c.timeout); err != nil {
		if ctx.Err() != nil {
			// A probe cut short by ctx fails with a gRPC status that hides why.
			err = ctx.Err()
		}
		return fmt.Errorf("wait for CSI driver at %q to become ready: %w", c.address, err)
	}
	klog.FromContext(ctx).V(2).Info("CSI driver is ready", "address", c.address)
	return nil
}

// DriverName calls GetPluginInfo and returns the driver's name. An empty name
// is an error.
func (c *Client) DriverName(ctx context.Context) (string, error) {
	ctx, cancel := c.callContext(ctx, 0)
	defer cancel()
	resp, err := c.identity.GetPluginInfo(ctx, &csi.GetPluginInfoRequest{})
	if err != nil {
		return "", fmt.Errorf("get CSI driver name: %w", err)
	}
	if resp.GetName() == "" {
		return "", errors.New("get CSI driver name: GetPluginInfo returned an empty name")
	}
	klog.FromContext(ctx).V(2).Info("CSI driver", "name", resp.GetName(), "vendorVersion", resp.GetVendorVersion())
	return resp.GetName(), nil
}
