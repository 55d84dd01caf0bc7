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

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// vendorVersion is what GetPluginInfo reports besides the configured name.
const vendorVersion = "test"

// GetPluginInfo returns the configured driver name, which may be empty.
func (d *Driver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: d.cfg.DriverName, VendorVersion: vendorVersion}, nil
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
	for _, e := range []struct {
		on  bool
		typ csi.PluginCapability_VolumeExpansion_Type
	}{
		{d.cfg.Online, csi.PluginCapability_VolumeExpansion_ONLINE},
		{d.cfg.Offline, csi.PluginCapability_VolumeExpansion_OFFLINE},
	} {
		if e.on {
			caps = append(caps, &csi.PluginCapability{Type: &csi.PluginCapability_VolumeExpansion_{
				VolumeExpansion: &csi.PluginCapability_VolumeExpansion{Type: e.typ},
			}})
		}
	}
	return &csi.GetPluginCapabilitiesResponse{Capabilities: caps}, nil
}

// Probe answers ready=false for the first Config.ProbeNotReadyTimes calls,
// then ready=true. Calls failed with FailCall do not count.
func (d *Driver) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.probes++
	ready := d.probes > d.cfg.ProbeNotReadyTimes
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(ready)}, nil
}
