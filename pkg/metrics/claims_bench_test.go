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

package metrics

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	k8smetrics "k8s.io/component-base/metrics"
)

// BenchmarkScrape measures one scrape of the claims metrics (a Gather of a
// registry that holds only them) over caches of n claims of our driver,
// each with its PV: "typical" has one claim in ten in a state (spread over
// all of them), "all stuck" every claim.
func BenchmarkScrape(b *testing.B) {
	for _, n := range []int{10000, 50000} {
		for _, mix := range []struct {
			name       string
			stuckEvery int
		}{{"typical", 10}, {"all stuck", 1}} {
			b.Run(fmt.Sprintf("claims=%d/%s", n, mix.name), func(b *testing.B) {
				c := benchCaches(b, n, mix.stuckEvery)
				registry := k8smetrics.NewKubeRegistry()
				RegisterClaims(registry, c.config(leading(true)))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if _, err := registry.Gather(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchCaches caches n claims, one in stuckEvery in a state, the states
// taken in turn.
func benchCaches(b *testing.B, n, stuckEvery int) *caches {
	states := []func(*v1.PersistentVolumeClaim){
		resizing(v1.PersistentVolumeClaimControllerResizeInProgress, v1.PersistentVolumeClaimResizing, time.Minute),
		resizing(v1.PersistentVolumeClaimControllerResizeInProgress, v1.PersistentVolumeClaimControllerResizeError, time.Minute),
		resizing(v1.PersistentVolumeClaimControllerResizeInfeasible, v1.PersistentVolumeClaimControllerResizeError, time.Minute),
		nil, // waiting in use when named busy
		resizing(v1.PersistentVolumeClaimNodeResizePending, v1.PersistentVolumeClaimFileSystemResizePending, time.Minute),
		resizing(v1.PersistentVolumeClaimNodeResizeInProgress, v1.PersistentVolumeClaimFileSystemResizePending, time.Minute),
		resizing(v1.PersistentVolumeClaimNodeResizeInfeasible, v1.PersistentVolumeClaimNodeResizeError, time.Minute),
		both(noGrowth, modifying(v1.PersistentVolumeClaimModifyVolumePending, "", 0)),
		both(noGrowth, modifying(v1.PersistentVolumeClaimModifyVolumeInProgress, v1.PersistentVolumeClaimVolumeModifyingVolume, time.Minute)),
		both(noGrowth, modifying(v1.PersistentVolumeClaimModifyVolumeInfeasible, v1.PersistentVolumeClaimVolumeModifyVolumeError, time.Minute)),
	}
	c := newCaches()
	for i := range n {
		name, change := fmt.Sprintf("data-%05d", i), noGrowth
		if i%stuckEvery == 0 {
			state := (i / stuckEvery) % len(states)
			change = states[state]
			if change == nil {
				name += "-busy"
			}
		}
		c.add(b, name, testDriver, change)
	}
	return c
}
