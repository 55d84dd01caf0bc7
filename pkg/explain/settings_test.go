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

package explain

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	resizeroptions "github.com/csi-resizer/csi-resizer/pkg/options"
)

// resizerDefaults are the resizer's options without flags. Parsing them
// sets up klog, so TestMain does it before any test starts a goroutine
// that logs.
var resizerDefaults *resizeroptions.Options

func TestMain(m *testing.M) {
	var err error
	if resizerDefaults, err = resizeroptions.Parse(nil, io.Discard); err != nil {
		fmt.Fprintln(os.Stderr, "parse the resizer's default options:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestDefaultsAreTheResizers pins the defaults explain assumes to the
// resizer's own.
func TestDefaultsAreTheResizers(t *testing.T) {
	o, d := resizerDefaults, defaultSettings()
	if d.retryStart() != o.RetryIntervalStart || d.retryMax() != o.RetryIntervalMax {
		t.Errorf("explain assumes --retry-interval-start=%s --retry-interval-max=%s, the resizer's defaults are %s and %s",
			d.retryStart(), d.retryMax(), o.RetryIntervalStart, o.RetryIntervalMax)
	}
	if on := o.Features.Enabled("RecoverVolumeExpansionFailure"); d.Recovery != on {
		t.Errorf("explain assumes RecoverVolumeExpansionFailure %v, the resizer's default is %v", d.Recovery, on)
	}
}

func TestSettingsFromTheLeaderPod(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		want Settings
	}{{
		name: "no pod", want: defaultSettings(),
	}, {
		name: "defaults",
		pod:  leaderPod(),
		want: Settings{RetryIntervalStart: Duration(time.Second), RetryIntervalMax: Duration(5 * time.Minute), Recovery: true, From: "pod kube-system/csi-ebs-controller-0"},
	}, {
		name: "flags in both forms",
		pod:  leaderPod("-retry-interval-start", "2s", "--retry-interval-max=10m", "--feature-gates=AnnotateFsResize=true,RecoverVolumeExpansionFailure=false"),
		want: Settings{RetryIntervalStart: Duration(2 * time.Second), RetryIntervalMax: Duration(10 * time.Minute), Recovery: false, From: "pod kube-system/csi-ebs-controller-0"},
	}, {
		name: "a pod without a CSI sidecar",
		pod:  &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Args: []string{"--retry-interval-max=1h"}}}}},
		want: defaultSettings(),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := settingsOf(tc.pod); got != tc.want {
				t.Errorf("settings = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestExplainReadsTheLeaderPodSettings(t *testing.T) {
	pvc := claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible))
	x := explainObjects(t, Request{}, pvc, volume(pvc, "1Gi"), freshLease(), leaderPod("--retry-interval-max=10m"))
	if got := x.Resizer.Settings; got.From != "pod kube-system/csi-ebs-controller-0" || got.RetryIntervalMax != Duration(10*time.Minute) {
		t.Errorf("settings = %+v, want those of the leader's pod", got)
	}
	if op := operation(t, x, "resize"); !strings.Contains(op.Next, "at most every 10m0s") {
		t.Errorf("next = %q, want the leader's --retry-interval-max", op.Next)
	}
	for _, u := range x.Unknowns {
		if strings.Contains(u, "assumes the defaults") {
			t.Errorf("unknowns say the defaults are assumed: %q", u)
		}
	}
}
