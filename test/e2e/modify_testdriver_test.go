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
	"fmt"
	"maps"
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
	const claims = 6
	var names []string
	for i := range claims {
		names = append(names, fmt.Sprintf("c%d", i))
	}
	volumes := scriptedVolumes(names...)
	// Latency makes overlapping calls visible in the call log.
	e := newEnv(t, framework.DriverOptions{Scripted: true, Volumes: volumes, Modify: true, Latency: 300 * time.Millisecond})
	goldParams := map[string]string{"iops": "3000", "tier": "gold"}
	gold := e.attributesClass("gold", goldParams)
	for _, claim := range names {
		e.volume(claim, "1Gi")
		must(t, framework.GrowAndSetAttributesClass(e.ctx, cluster.Admin, e.ns, claim, "2Gi", gold))
	}
	for _, claim := range names {
		e.waitClaim(claim, "the resize and modification of "+claim, func(pvc *v1.PersistentVolumeClaim) bool {
			return finished("2Gi")(pvc) && modified(gold)(pvc)
		})
	}

	d := e.driver
	sizes, err := d.Volumes()
	must(t, err)
	params, err := csidriver.ReadVolumeParameters(d.StateFile)
	must(t, err)
	for id := range volumes {
		if sizes[id] != bytes("2Gi") || !maps.Equal(params[id], goldParams) {
			t.Errorf("volume %s: %d bytes with %v, want 2Gi with %v", id, sizes[id], params[id], goldParams)
		}
	}
	calls := e.calls(csidriver.MethodExpand, csidriver.MethodModify)
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
