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

package framework

import (
	"context"
	"errors"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// CreateVolume creates a volume of size bytes in csi-mock and returns its
// id, to put into a PV's volumeHandle.
func (d *Driver) CreateVolume(ctx context.Context, name string, size int64) (string, error) {
	ids, err := d.createVolumes(ctx, 1, 1, size, func(int) string { return name })
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// CreateVolumes creates n volumes of size bytes in csi-mock, named
// <prefix>-<i>, over one connection, and returns their ids in order: for
// benchmarks that need hundreds of volumes.
func (d *Driver) CreateVolumes(ctx context.Context, prefix string, n int, size int64, goroutines int) ([]string, error) {
	return d.createVolumes(ctx, n, goroutines, size, func(i int) string { return fmt.Sprintf("%s-%d", prefix, i) })
}

func (d *Driver) createVolumes(ctx context.Context, n, goroutines int, size int64, name func(int) string) ([]string, error) {
	if d.scripted {
		return nil, errors.New("the scripted driver creates no volumes: give them in DriverOptions.Volumes")
	}
	conn, err := grpc.NewClient("unix://"+d.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	client := csi.NewControllerClient(conn)
	ids := make([]string, n)
	err = Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		resp, err := client.CreateVolume(ctx, &csi.CreateVolumeRequest{
			Name:          name(i),
			CapacityRange: &csi.CapacityRange{RequiredBytes: size},
			VolumeCapabilities: []*csi.VolumeCapability{{
				AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
				AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
			}},
		})
		if err != nil {
			return fmt.Errorf("create volume %s in %s: %w", name(i), d.Name, err)
		}
		ids[i] = resp.GetVolume().GetVolumeId()
		return nil
	}, nil)
	return ids, err
}

// NodeVolumes returns what the scripted driver's node side knows of each
// volume (file-system size, staging and target paths).
func (d *Driver) NodeVolumes() (map[string]csidriver.NodeVolume, error) {
	return csidriver.ReadNodeVolumes(d.StateFile)
}

// Volumes returns the scripted driver's volume sizes.
func (d *Driver) Volumes() (map[string]int64, error) {
	return csidriver.ReadState(d.StateFile)
}
