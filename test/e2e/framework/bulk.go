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
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Parallel runs do(i) for i in [0, n) on the given number of goroutines and
// returns the first error; the others stop taking work after it. progress,
// when set, is called after each success with the number done so far.
func Parallel(ctx context.Context, n, goroutines int, do func(ctx context.Context, i int) error, progress func(done int)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range max(1, goroutines) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(ctx, i); err != nil {
					cancel(err)
					return
				}
				if d := done.Add(1); progress != nil {
					progress(int(d))
				}
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}

// CreateVolumes creates n volumes of size bytes in the mock, named
// <prefix>-<i>, over one connection, and returns their ids in order: for
// benchmarks that need hundreds of volumes.
func (d *Driver) CreateVolumes(ctx context.Context, prefix string, n int, size int64, goroutines int) ([]string, error) {
	conn, err := grpc.NewClient("unix://"+d.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	client := csi.NewControllerClient(conn)
	ids := make([]string, n)
	err = Parallel(ctx, n, goroutines, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("%s-%d", prefix, i)
		resp, err := client.CreateVolume(ctx, &csi.CreateVolumeRequest{
			Name:          name,
			CapacityRange: &csi.CapacityRange{RequiredBytes: size},
			VolumeCapabilities: []*csi.VolumeCapability{{
				AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
				AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
			}},
		})
		if err != nil {
			return fmt.Errorf("create volume %s in %s: %w", name, d.Name, err)
		}
		ids[i] = resp.GetVolume().GetVolumeId()
		return nil
	}, nil)
	return ids, err
}
