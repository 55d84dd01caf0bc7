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
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/pkg/inuse"
)

// TestUsersAreTheResizers pins usersOf to the resizer's pod tracker: the
// same pods hold back an expansion for both.
func TestUsersAreTheResizers(t *testing.T) {
	pod := func(name, namespace string, phase v1.PodPhase, node string, volumes ...v1.Volume) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec: v1.PodSpec{NodeName: node, Volumes: volumes}, Status: v1.PodStatus{Phase: phase}}
	}
	claimVolume := v1.Volume{Name: "v", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}
	ephemeral := v1.Volume{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}
	pods := []runtime.Object{
		pod("running", ns, v1.PodRunning, "node-1", claimVolume),
		pod("scheduled", ns, v1.PodPending, "node-1", claimVolume),
		pod("unscheduled", ns, v1.PodPending, "", claimVolume),
		pod("succeeded", ns, v1.PodSucceeded, "node-1", claimVolume),
		pod("failed", ns, v1.PodFailed, "node-1", claimVolume),
		pod("unknown", ns, v1.PodUnknown, "node-1", claimVolume),
		pod("elsewhere", "other", v1.PodRunning, "node-1", claimVolume),
		pod("web", ns, v1.PodRunning, "node-1", ephemeral),
		pod("idle", ns, v1.PodRunning, "node-1"),
	}
	client := fake.NewClientset(pods...)
	informer := coreinformers.NewPodInformer(client, metav1.NamespaceAll, 0, cache.Indexers{})
	tracker, err := inuse.NewTracker(informer)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go informer.Run(ctx.Done())
	if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return tracker.HasSynced(), nil
	}); err != nil {
		t.Fatal(err)
	}
	list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, claim := range []string{"data", "web-scratch", "none"} {
		if got, want := usersOf(list.Items, ns, claim), tracker.UsedBy(ns, claim); !slices.Equal(got, want) {
			t.Errorf("users of %s = %v, the resizer's tracker says %v", claim, got, want)
		}
	}
}
