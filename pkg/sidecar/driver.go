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

package sidecar

import (
	"context"
	"fmt"
	"time"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"

	"github.com/csi-resizer/csi-resizer/pkg/controller"
	"github.com/csi-resizer/csi-resizer/pkg/driver"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

// connectedDriver is the connected CSI driver and what it said about itself at
// start-up; nothing here is asked again per resize.
type connectedDriver struct {
	client *driver.Client
	name   string
	caps   driver.Capabilities
}

// connectDriver connects, waits until the driver is ready and reads its
// name and capabilities. waiting is told, while it waits, what for; lost is
// called when the connection drops.
func connectDriver(ctx context.Context, o *options.Options, mm metrics.CSIMetricsManager, waiting func(error), lost func()) (*connectedDriver, error) {
	client, err := driver.Connect(ctx, o.CSIAddress, o.Timeout, mm, driver.Hooks{Waiting: waiting, Lost: lost})
	if err != nil {
		return nil, err
	}
	waiting(fmt.Errorf("waiting for the CSI driver at %q to report ready (Probe)", o.CSIAddress))
	d := &connectedDriver{client: client}
	if err := d.describe(ctx); err != nil {
		_ = client.Close()
		return nil, err
	}
	return d, nil
}

func (d *connectedDriver) describe(ctx context.Context) error {
	if err := d.client.WaitReady(ctx); err != nil {
		return err
	}
	var err error
	if d.name, err = d.client.DriverName(ctx); err != nil {
		return err
	}
	d.caps, err = d.client.Capabilities(ctx)
	return err
}

// resizer returns what expands this driver's volumes, with each
// ControllerExpandVolume bounded by timeout; nil when the driver supports
// neither controller nor node expansion.
func (d *connectedDriver) resizer(timeout time.Duration) controller.Resizer {
	switch d.caps.Mode() {
	case driver.ModeController:
		return &driver.VolumeExpander{Driver: d.client, SingleNodeMultiWriter: d.caps.SingleNodeMultiWriter, Timeout: timeout}
	case driver.ModeNodeOnly:
		return driver.NodeOnly{}
	default:
		return nil
	}
}
