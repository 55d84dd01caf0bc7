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

package driver

import (
	"context"
	"errors"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	"k8s.io/klog/v2"
)

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
	ctx, cancel := c.callContext(ctx)
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
