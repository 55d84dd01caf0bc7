//go:build e2e

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

package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// TestResizeAndModifyWithTestDriver runs claims that grow and change class
// in one update against test/csidriver as a process, whose backend keeps
// each volume's size and applied parameters: every volume ends at its size
// and its class's parameters, and no two calls on one volume overlap.
func TestResizeAndModifyWithTestDriver(t *testing.T) {
	bin, err := framework.TestDriverBinary()
	if err != nil {
		t.Skip(err) // make test-e2e builds it; a bare go test may not have it
	}
	n := counter.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir, err := os.MkdirTemp("", "e2e-")
	must(t, err)
	ns, class, name := fmt.Sprintf("e2e-%d", n), fmt.Sprintf("e2e-%d", n), fmt.Sprintf("e2e-%d.csi.example.com", n)
	must(t, framework.CreateNamespace(ctx, cluster.Admin, ns))
	must(t, framework.CreateClass(ctx, cluster.Admin, class, name, nil))
	gold := ns + "-gold"
	goldParams := map[string]string{"iops": "3000", "tier": "gold"}
	must(t, framework.CreateAttributesClass(ctx, cluster.Admin, gold, name, goldParams))

	const claims = 6
	volumes := map[string]int64{}
	for i := range claims {
		volumes[fmt.Sprintf("vol-%d", i)] = bytes("1Gi")
	}
	// Latency makes overlapping calls visible in the call log.
	d, err := framework.StartTestDriver(ctx, bin, dir, framework.TestDriverOptions{Name: name, Modify: true, Latency: 300 * time.Millisecond}, volumes)
	must(t, err)
	resizer, err := framework.StartResizer(tools, dir, "resizer", kubeconfig, d.Socket, "--retry-interval-start=100ms", "--retry-interval-max=3s", "--v=4")
	must(t, err)
	t.Cleanup(func() {
		_ = resizer.Stop(30 * time.Second)
		d.Stop()
		if !t.Failed() {
			_ = os.RemoveAll(dir)
		}
	})
	for i := range claims {
		v := framework.Volume{Namespace: ns, Claim: fmt.Sprintf("c%d", i), Class: class, Driver: name, Handle: fmt.Sprintf("vol-%d", i), Size: "1Gi"}
		_, err := framework.CreateBound(ctx, cluster.Admin, v)
		must(t, err)
		must(t, framework.GrowAndSetAttributesClass(ctx, cluster.Admin, ns, v.Claim, "2Gi", gold))
	}
	for i := range claims {
		_, err := framework.WaitForClaim(ctx, cluster.Admin, ns, fmt.Sprintf("c%d", i), time.Minute, func(pvc *v1.PersistentVolumeClaim) bool {
			return finished("2Gi")(pvc) && modified(gold)(pvc)
		})
		must(t, err)
	}

	sizes, err := d.Volumes()
	must(t, err)
	params, err := csidriver.ReadVolumeParameters(d.StateFile)
	must(t, err)
	for id := range volumes {
		if sizes[id] != bytes("2Gi") || !maps.Equal(params[id], goldParams) {
			t.Errorf("volume %s: %d bytes with %v, want 2Gi with %v", id, sizes[id], params[id], goldParams)
		}
	}
	calls, err := d.Calls()
	must(t, err)
	byVolume := map[string][]csidriver.LoggedCall{}
	for _, c := range calls {
		byVolume[c.VolumeID] = append(byVolume[c.VolumeID], c)
	}
	for id, cs := range byVolume {
		if len(cs) != 2 || cs[0].Method != csidriver.MethodExpand || cs[1].Method != csidriver.MethodModify {
			t.Errorf("volume %s: calls %+v, want one expansion, then one modification", id, cs)
			continue
		}
		if cs[1].Start.Before(cs[0].End) {
			t.Errorf("volume %s: the modification started at %s, before the expansion ended at %s", id, cs[1].Start, cs[0].End)
		}
	}
}
