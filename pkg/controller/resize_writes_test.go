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

package controller

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestResizeRetriesOnlyTheWrites: when a write fails after the driver
// expanded the volume, the next attempt to the same size writes only. The
// driver is not called again, and the expansion Secret, which the writes do
// not need, is not read again: deleting it does not block the claim.
func TestResizeRetriesOnlyTheWrites(t *testing.T) {
	tests := []struct {
		name string
		res  string
		nth  int
	}{
		{name: "the PV write fails", res: "persistentvolumes", nth: 1},
		{name: "the claim's final write fails", res: "persistentvolumeclaims", nth: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi")
			creds := secret("vault", "creds", map[string]string{"token": "s3cret"})
			e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi", expandSecret("vault", "creds")), creds))
			e.failRequest("patch", tc.res, tc.nth, errors.New("etcd is down"))
			if _, err := e.sync("a"); err == nil {
				t.Fatal("want the failed write to requeue the claim")
			}
			e.must(e.client.CoreV1().Secrets("vault").Delete(e.ctx, "creds", metav1.DeleteOptions{}))
			e.mustSync("a")
			equal(t, "driver calls", e.resizer.targets(), []string{"2Gi"})
			equal(t, "claim", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
			equal(t, "PV size", e.volume("pv-a").Spec.Capacity.Storage().String(), "2Gi")
			equal(t, "memory of the expansion after success", e.ctrl.memory.resize.applied.get(idOf(ns+"/a", e.claim("a"))) == nil, true)
		})
	}
}
