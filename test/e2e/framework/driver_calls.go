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
	"slices"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
)

// Answer scripts one call of Method (empty: ControllerExpandVolume): wait
// Delay, then fail with Code (a gRPC code name such as "Internal"), or
// answer normally. It is an entry of the fault file both drivers read.
type Answer = csidriver.Answer

// Call is one call the driver logged (see csidriver.LoggedCall).
type Call = csidriver.LoggedCall

// Script replaces the driver's scripted answers with answers, even the same
// answers again: each call takes the first answer of its method (and
// volume, and for csi-mock size) not taken yet, in order. The running
// driver reads them at its next call; a restarted scripted driver reads the
// whole script again, answers taken before included. Script() with no
// answers clears the script.
func (d *Driver) Script(answers ...Answer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.scripts++
	answers = slices.Clone(answers)
	for i := range answers {
		if d.scripted && (answers[i].Size != "" || answers[i].Capacity != "") {
			return fmt.Errorf("answer %d: the scripted driver answers no Size nor Capacity", i)
		}
		answers[i].Generation = d.scripts
	}
	return csidriver.WriteFaultFile(d.FaultFile, answers)
}

// Calls returns the calls of methods the driver answered (all methods with
// none), of every run so far, failed ones included, in order of arrival.
func (d *Driver) Calls(methods ...string) ([]Call, error) {
	return readCalls(d.CallLog, methods)
}

// ControllerCalls returns the ControllerExpandVolume and
// ControllerModifyVolume calls so far.
func (d *Driver) ControllerCalls() ([]Call, error) {
	return d.Calls(csidriver.MethodExpand, csidriver.MethodModify)
}

// NodeCalls returns the NodeStageVolume, NodeUnstageVolume,
// NodePublishVolume, NodeUnpublishVolume and NodeExpandVolume calls so far;
// Call.Path is the call's staging, target or volume path.
func (d *Driver) NodeCalls() ([]Call, error) {
	calls, err := d.Calls()
	return slices.DeleteFunc(calls, func(c Call) bool { return !c.Node() }), err
}

// Received returns the calls of methods (all methods with none) that have
// reached csi-mock so far, logged as they arrive, before their scripted
// delay: a call received and not yet in Calls is still being answered, or
// held by a scripted delay (Call.Delay). A received call has no End, Code,
// capacity nor secrets.
func (d *Driver) Received(methods ...string) ([]Call, error) {
	return readCalls(d.ReceivedLog, methods)
}

func readCalls(log string, methods []string) ([]Call, error) {
	calls, err := csidriver.ReadCallLog(log)
	if len(methods) > 0 {
		calls = slices.DeleteFunc(calls, func(c Call) bool { return !slices.Contains(methods, c.Method) })
	}
	return calls, err
}

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
