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

package plugin

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-resizer/csi-resizer/pkg/events"
)

func text(t *testing.T, objs ...runtime.Object) string {
	t.Helper()
	var b strings.Builder
	if err := Text(&b, explainObjects(t, Request{}, objs...)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestTextInfeasible(t *testing.T) {
	pvc := claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
		resizeError("OutOfRange", t0, infeasibleMessage))
	out := text(t, pvc, volume(pvc, "1Gi"), freshLease(), storageClass(true),
		event(events.ReasonResizeFailed, infeasibleMessage+"; 10Gi is retried every 5m0s unless the request changes", t0))
	for _, want := range []string{
		"Claim:        apps/data (Bound): requests 10Gi, capacity 1Gi, allocated 10Gi, status\n              ControllerResizeInfeasible\n",
		"Volume:       pv-data of 1Gi, CSI driver ebs.csi.example.com\n",
		"StorageClass: fast (provisioner ebs.csi.example.com, allows volume expansion)\n",
		"Resizer:      running: csi-ebs-controller-0_1a2b3c4d leads",
		"\nResize\n  State:        controller_infeasible since 2026-11-23T10:00:00Z (3h ago)\n",
		"  Next step:    the user\n",
		"  Then:         The resizer will retry 10Gi at most every 5m0s unless the request changes\n                (--retry-interval-max;",
		"  You can:      Lower the request to between 1Gi (exclusive, the current capacity) and 10Gi\n",
		"  Decision:     The resizer will only retry 10Gi, which the driver refused, at most every 5m0s:\n" +
			"                nothing changes until the request does.\n",
		"\nModify\n  State:        none\n",
		"\nEvents (oldest first):\n  3h ago Warning VolumeResizeFailed (external-resizer ebs.csi.example.com): expand volume",
		"\nNot visible from here:\n  - When exactly the resizer retries",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > width && strings.Contains(strings.TrimSpace(line), " ") {
			t.Errorf("line longer than %d: %q", width, line)
		}
	}
}

func TestTextOfAClaimNotHandled(t *testing.T) {
	out := text(t, claim("2Gi", "1Gi", pending))
	want := "Claim:        apps/data (Pending): requests 2Gi\n" +
		"StorageClass: fast (does not exist)\n" +
		"Owner:        the claim is not bound to a volume (phase Pending): no resizer acts on it before it\n" +
		"              is; binding is the job of the provisioner and the PV controller\n" +
		"\nEvents: none (events expire after an hour by default)\n"
	if out != want {
		t.Errorf("text =\n%s\nwant\n%s", out, want)
	}
}

func TestTextWithoutStateTime(t *testing.T) {
	pvc := claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumePending))
	out := text(t, pvc, volume(pvc, "1Gi"))
	for _, want := range []string{
		"Resizer:      no resizer is running for driver ebs.csi.example.com",
		"  State:        pending (since when is not recorded)\n",
		"  Next step:    the user\n",
		"  Decision:     The resizer will wait for VolumeAttributesClass \"gold\" to be created, and not call\n",
		"  - A resizer started without --leader-election holds no Lease",
		"  - The resizer's settings: there is no Lease of the resizer, which would publish them, so explain\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// Nothing retries: the resizer waits for the class, and its Lease is
	// not said to be unreadable, as there is none.
	for _, wrong := range []string{"When exactly the resizer retries", "could not read", ".Decide"} {
		if strings.Contains(out, wrong) {
			t.Errorf("text has %q:\n%s", wrong, out)
		}
	}
}
