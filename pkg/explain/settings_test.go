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
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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

// controllerPod is a driver's controller pod with the usual sidecars, all of
// them given --csi-address; the provisioner's retry flags differ from the
// resizer's.
func controllerPod(resizer v1.Container) []v1.Container {
	return []v1.Container{
		{Name: "ebs-plugin", Image: "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.40.0", Args: []string{"--endpoint=unix:///csi/csi.sock"}},
		{Name: "csi-provisioner", Image: "registry.k8s.io/sig-storage/csi-provisioner:v5.2.0",
			Args: []string{"--csi-address=/csi/csi.sock", "--retry-interval-start=7s", "--retry-interval-max=7m", "--feature-gates=Topology=true"}},
		{Name: "csi-attacher", Image: "registry.k8s.io/sig-storage/csi-attacher:v4.8.0", Args: []string{"--csi-address=/csi/csi.sock", "--retry-interval-max=9m"}},
		{Name: "csi-snapshotter", Image: "registry.k8s.io/sig-storage/csi-snapshotter:v8.2.0", Args: []string{"--csi-address=/csi/csi.sock"}},
		resizer,
		{Name: "liveness-probe", Image: "registry.k8s.io/sig-storage/livenessprobe:v2.15.0", Args: []string{"--csi-address=/csi/csi.sock"}},
	}
}

// TestSettingsOfTheResizerContainer: in a controller pod whose every
// sidecar takes --csi-address, the settings are the resizer's, in whatever
// order the containers come, whether the resizer is told by a flag only it
// takes, by its name or by its image; when nothing tells it, the defaults.
func TestSettingsOfTheResizerContainer(t *testing.T) {
	ours := Settings{RetryIntervalStart: Duration(2 * time.Second), RetryIntervalMax: Duration(3 * time.Minute), Recovery: true, From: "pod kube-system/csi-ebs-controller-0"}
	flags := []string{"--csi-address=/csi/csi.sock", "--retry-interval-start=2s", "--retry-interval-max=3m"}
	tests := []struct {
		name    string
		resizer v1.Container
		want    Settings
	}{
		{name: "by its name", resizer: v1.Container{Name: "csi-resizer", Image: "example.com/sidecar:v1", Args: flags}, want: ours},
		{name: "by its image", resizer: v1.Container{Name: "sidecar-5", Image: "registry.k8s.io/sig-storage/csi-resizer:v1.13.0", Args: flags}, want: ours},
		{name: "by a flag only it takes", resizer: v1.Container{Name: "sidecar-5", Image: "example.com/sidecar:v1", Args: append(flags, "--handle-volume-inuse-error=false")}, want: ours},
		{name: "nothing tells it: the defaults", resizer: v1.Container{Name: "sidecar-5", Image: "example.com/sidecar:v1", Args: flags}, want: defaultSettings()},
	}
	for _, tc := range tests {
		containers := controllerPod(tc.resizer)
		for shift := range containers {
			rotated := append(append([]v1.Container{}, containers[shift:]...), containers[:shift]...)
			t.Run(fmt.Sprintf("%s, rotated by %d", tc.name, shift), func(t *testing.T) {
				pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "csi-ebs-controller-0", Namespace: "kube-system"}, Spec: v1.PodSpec{Containers: rotated}}
				if got := settingsOf(pod); got != tc.want {
					t.Errorf("settings = %+v, want %+v", got, tc.want)
				}
			})
		}
	}
}
