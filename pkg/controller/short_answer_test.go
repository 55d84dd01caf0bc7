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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

// TestShortAnswerRecordedAndSlowed: a driver that answers success with
// less than the target gave what it has. The PV and the claim get that
// size, kubelet grows the file system to it, a warning names both sizes,
// and the target is asked for again only on the slow lane; a second short
// answer of the same size hands nothing to kubelet again (kubelet would
// have nothing to do, and the claim would wait for it for ever).
func TestShortAnswerRecordedAndSlowed(t *testing.T) {
	pvc := claim("a", "3Gi", "1Gi")
	short := result{size: "2Gi", nodeStep: true}
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{short, short}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	equal(t, "writes", e.writes(), []string{intentWrite, pvWrite, claimWrite})
	equal(t, "claim", summary(e.claim("a")), "capacity=1Gi allocated=2Gi status=NodeResizePending conditions=[ControllerResizeError,FileSystemResizePending]")
	equal(t, "PV size", pvSize(e.volume("pv-a")), "2Gi")
	equal(t, "ControllerResizeError reason", conditionReason(e.claim("a"), v1.PersistentVolumeClaimControllerResizeError), "BelowTarget")
	events := e.events()
	if len(events) != 2 || !strings.Contains(events[1], "the driver answered success with 2Gi, below the 3Gi asked for; 2Gi is recorded") {
		t.Errorf("events = %q, want the intent and a warning naming both sizes", events)
	}
	expectIdle(t, e, "while kubelet works")

	// kubelet's finish removes every resize condition, the resizer's too:
	// the claim records the short answer again, with no driver call.
	e.finishOnNode("a")
	e.clearActions()
	e.mustSync("a")
	equal(t, "writes after kubelet finished", e.writes(), []string{claimWrite})
	equal(t, "claim after kubelet finished", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[ControllerResizeError]")
	if m := conditionMessage(e.claim("a"), v1.PersistentVolumeClaimControllerResizeError); !strings.Contains(m, "the driver answered success with 2Gi, below the 3Gi asked for") {
		t.Errorf("ControllerResizeError says %q, want both sizes", m)
	}
	e.clearActions()
	if after := e.mustSync("a"); after <= 0 || after > 5*time.Minute {
		t.Errorf("sync after the record asks to look again in %v, want the slow lane (at most 5m)", after)
	}
	equal(t, "writes on the slow lane", e.writes(), []string(nil))
	equal(t, "driver calls on the slow lane", e.resizer.targets(), []string{"3Gi"})

	e.clock.Step(5 * time.Minute)
	e.clearActions()
	e.mustSync("a")
	equal(t, "driver calls after the slow lane", e.resizer.targets(), []string{"3Gi", "3Gi"})
	equal(t, "claim after a second short answer", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[ControllerResizeError]")
	equal(t, "PV size", pvSize(e.volume("pv-a")), "2Gi")

	e.setRequest("a", "2Gi") // the user takes what the driver gives
	e.clearActions()
	e.mustSync("a")
	equal(t, "driver calls once the request is what the volume has", e.resizer.targets(), []string{"3Gi", "3Gi"})
}

// TestShortAnswerRecordedAsTheSlowLaneEnds: kubelet finishes the node step
// just before the slow lane of a short answer runs out, and it runs out
// while the sync records the short answer again. The expansion that is
// then due is queued for the next sync: the resizer's own write wakes no
// sync, so without that the target would wait for a resync.
func TestShortAnswerRecordedAsTheSlowLaneEnds(t *testing.T) {
	pvc := claim("a", "3Gi", "1Gi")
	short := result{size: "2Gi", nodeStep: true}
	e := newEnv(t, &fakeResizer{nodeStep: true, script: []result{short, short}}, objects(pvc, volume(pvc, "1Gi")))
	e.mustSync("a")
	e.clock.Step(e.ctrl.RetryMax - time.Second)
	e.finishOnNode("a")
	stepped := false
	e.client.PrependReactor("patch", "persistentvolumeclaims", func(clienttesting.Action) (bool, runtime.Object, error) {
		if !stepped {
			stepped = true
			e.clock.Step(2 * time.Second)
		}
		return false, nil, nil
	})
	e.clearActions()
	after := e.mustSync("a")
	equal(t, "writes after kubelet finished", e.writes(), []string{claimWrite})
	equal(t, "driver calls in that sync", e.resizer.targets(), []string{"3Gi"})
	if after != e.ctrl.RetryStart {
		t.Errorf("sync after the record asks to look again in %v, want at once (%v, the retry interval's start)", after, e.ctrl.RetryStart)
	}
	e.clearActions()
	e.mustSync("a")
	equal(t, "driver calls in the next sync", e.resizer.targets(), []string{"3Gi", "3Gi"})
}
