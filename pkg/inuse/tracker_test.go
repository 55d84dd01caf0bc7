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

package inuse

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// deadline bounds every wait for the informer; nothing sleeps a fixed time.
const deadline = 15 * time.Second

// fixture is a Tracker over a running pod informer on a fake clientset,
// with the claims it released, in order.
type fixture struct {
	client   *fake.Clientset
	informer cache.SharedIndexInformer
	tracker  *Tracker
	released chan string
}

// start runs a tracked informer over client until the test ends. setup, when
// not nil, runs on the fixture before the informer starts.
func start(t *testing.T, client *fake.Clientset, setup func(*fixture)) *fixture {
	t.Helper()
	f := &fixture{
		client:   client,
		informer: coreinformers.NewPodInformer(client, "", 0, cache.Indexers{}),
		released: make(chan string, 100),
	}
	var err error
	if f.tracker, err = NewTracker(f.informer); err != nil {
		t.Fatalf("NewTracker: %v", err)
	}
	if err := f.tracker.OnRelease(func(namespace, claim string) { f.released <- namespace + "/" + claim }); err != nil {
		t.Fatalf("OnRelease: %v", err)
	}
	if setup != nil {
		setup(f)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.informer.RunWithContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	syncCtx, cancelSync := context.WithTimeout(ctx, deadline)
	defer cancelSync()
	if !cache.WaitFor(syncCtx, "", f.informer.HasSyncedChecker()) {
		t.Fatal("pod informer did not sync")
	}
	return f
}

// eventually waits until cond holds, failing the test at the deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, deadline, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func (f *fixture) waitUsedBy(t *testing.T, claim string, want ...string) {
	t.Helper()
	var got []string
	eventually(t, "UsedBy(ns, "+claim+")", func() bool {
		got = f.tracker.UsedBy("ns", claim)
		return slices.Equal(got, want)
	})
}

// waitReleased receives releases up to and including a sentinel claim,
// released by a pod it creates and deletes, and checks they are exactly
// want: the sentinel proves no further release was on its way.
func (f *fixture) waitReleased(t *testing.T, want ...string) {
	t.Helper()
	ctx := context.Background()
	sentinel := pod("sentinel", withClaim("s", "sentinel"))
	if _, err := f.client.CoreV1().Pods("ns").Create(ctx, sentinel, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create sentinel: %v", err)
	}
	if err := f.client.CoreV1().Pods("ns").Delete(ctx, "sentinel", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete sentinel: %v", err)
	}
	timeout := time.NewTimer(deadline)
	defer timeout.Stop()
	var got []string
	for {
		select {
		case claim := <-f.released:
			if claim == "ns/sentinel" {
				if !slices.Equal(got, want) {
					t.Errorf("released %v, want %v", got, want)
				}
				return
			}
			got = append(got, claim)
		case <-timeout.C:
			t.Fatalf("released %v and no sentinel before the deadline, want %v", got, want)
		}
	}
}

func (f *fixture) create(t *testing.T, p *v1.Pod) {
	t.Helper()
	if _, err := f.client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", p.Name, err)
	}
}

// update writes p, which carries a new resourceVersion as the API server
// would give it: the fake clientset keeps whatever it is given.
func (f *fixture) update(t *testing.T, p *v1.Pod) {
	t.Helper()
	if _, err := f.client.CoreV1().Pods(p.Namespace).Update(context.Background(), p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update pod %s: %v", p.Name, err)
	}
}

func (f *fixture) delete(t *testing.T, name string) {
	t.Helper()
	if err := f.client.CoreV1().Pods("ns").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod %s: %v", name, err)
	}
}

// TestUsedBy checks which pods hold a claim, as a Tracker answers from its
// informer and as UsersOf answers from a list.
func TestUsedBy(t *testing.T) {
	tests := []struct {
		name  string
		pods  []*v1.Pod
		claim string
		want  []string
	}{
		{name: "no pods", claim: "data"},
		{name: "running pod", pods: []*v1.Pod{pod("web-0", running(), withClaim("v", "data"))}, claim: "data", want: []string{"web-0"}},
		{name: "pending, scheduled", pods: []*v1.Pod{pod("web-0", onNode("node-1"), withClaim("v", "data"))}, claim: "data", want: []string{"web-0"}},
		{name: "pending, not scheduled", pods: []*v1.Pod{pod("web-0", withClaim("v", "data"))}, claim: "data"},
		{name: "succeeded, not deleted: counts (kubelet may not have unmounted)", pods: []*v1.Pod{pod("job-0", onNode("node-1"), inPhase(v1.PodSucceeded), withClaim("v", "data"))}, claim: "data", want: []string{"job-0"}},
		{name: "failed, not deleted: counts", pods: []*v1.Pod{pod("job-0", onNode("node-1"), inPhase(v1.PodFailed), withClaim("v", "data"))}, claim: "data", want: []string{"job-0"}},
		{name: "failed, never scheduled: never mounted", pods: []*v1.Pod{pod("job-0", inPhase(v1.PodFailed), withClaim("v", "data"))}, claim: "data"},
		{name: "unknown phase on a node counts", pods: []*v1.Pod{pod("web-0", onNode("node-1"), inPhase(v1.PodUnknown), withClaim("v", "data"))}, claim: "data", want: []string{"web-0"}},
		{name: "generic ephemeral volume", pods: []*v1.Pod{pod("job-1", running(), withEphemeral("scratch"))}, claim: "job-1-scratch", want: []string{"job-1"}},
		{name: "other claim", pods: []*v1.Pod{pod("web-0", running(), withClaim("v", "logs"))}, claim: "data"},
		{name: "same claim name in another namespace", pods: []*v1.Pod{pod("web-0", inNamespace("other"), running(), withClaim("v", "data"))}, claim: "data"},
		{
			name: "shared claim: every user that counts, sorted",
			pods: []*v1.Pod{
				pod("web-5", running(), withClaim("v", "data")),
				pod("web-2", running(), withClaim("v", "data")),
				pod("web-0", running(), withClaim("v", "data")),
				pod("web-1", onNode("node-1"), inPhase(v1.PodSucceeded), withClaim("v", "data")),
				pod("web-6", running(), withClaim("v", "data")),
				pod("web-3", onNode("node-3"), withClaim("v", "data"), withClaim("w", "logs")),
				pod("web-4", running(), withClaim("v", "data")),
			},
			claim: "data",
			want:  []string{"web-0", "web-1", "web-2", "web-3", "web-4", "web-5", "web-6"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := make([]runtime.Object, len(tc.pods))
			for i, p := range tc.pods {
				objs[i] = p
			}
			f := start(t, fake.NewClientset(objs...), nil)
			if got := f.tracker.UsedBy("ns", tc.claim); !slices.Equal(got, tc.want) {
				t.Errorf("UsedBy(ns, %s) = %v, want %v", tc.claim, got, tc.want)
			}
			list := make([]v1.Pod, len(tc.pods))
			for i, p := range tc.pods {
				list[i] = *p
			}
			if got := UsersOf(list, "ns", tc.claim); !slices.Equal(got, tc.want) {
				t.Errorf("UsersOf(pods, ns, %s) = %v, want %v", tc.claim, got, tc.want)
			}
		})
	}
}

// TestStoredObject checks that the informer keeps the projection and
// nothing else of the pod.
func TestStoredObject(t *testing.T) {
	f := start(t, fake.NewClientset(pod("web-0", running(), atVersion("7"), withClaim("v", "data"), withEphemeral("scratch"))), nil)
	obj, exists, err := f.informer.GetStore().GetByKey("ns/web-0")
	if err != nil || !exists {
		t.Fatalf("ns/web-0 not in the store: %v", err)
	}
	want := slimPod("web-0", v1.PodRunning, true, "data", "web-0-scratch")
	want.ResourceVersion = "7"
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("stored %#v, want %#v", obj, want)
	}
}

// TestLifecycle follows pods through the phases that matter, written
// through the fake API server and seen through the informer.
func TestLifecycle(t *testing.T) {
	f := start(t, fake.NewClientset(), nil)

	// Created, not yet scheduled: in the store, not a user.
	f.create(t, pod("web-0", withClaim("v", "data")))
	eventually(t, "web-0 in the store", func() bool {
		_, exists, _ := f.informer.GetStore().GetByKey("ns/web-0")
		return exists
	})
	f.waitUsedBy(t, "data")

	// Scheduled, then running: a user; nothing released.
	f.update(t, pod("web-0", onNode("node-1"), atVersion("2"), withClaim("v", "data")))
	f.waitUsedBy(t, "data", "web-0")
	f.update(t, pod("web-0", running(), atVersion("3"), withClaim("v", "data")))
	f.waitReleased(t)
	f.waitUsedBy(t, "data", "web-0")

	// Finished: still a user, as kubelet reports the phase before it
	// unmounts; nothing released.
	f.update(t, pod("web-0", running(), inPhase(v1.PodSucceeded), atVersion("4"), withClaim("v", "data")))
	f.waitUsedBy(t, "data", "web-0")
	f.waitReleased(t)

	// Deleting the finished pod (kubelet does, once it has unmounted)
	// releases its claims.
	f.delete(t, "web-0")
	f.waitReleased(t, "ns/data")
	f.waitUsedBy(t, "data")

	// Deleted while running: every claim released, ephemeral one included.
	f.create(t, pod("job-1", running(), withClaim("v", "data"), withEphemeral("scratch")))
	f.waitUsedBy(t, "data", "job-1")
	f.waitUsedBy(t, "job-1-scratch", "job-1")
	f.delete(t, "job-1")
	f.waitReleased(t, "ns/data", "ns/job-1-scratch")
	f.waitUsedBy(t, "data")
	f.waitUsedBy(t, "job-1-scratch")

	// Failed straight from pending on a node: a user until deleted.
	f.create(t, pod("job-2", onNode("node-1"), withClaim("v", "logs")))
	f.waitUsedBy(t, "logs", "job-2")
	f.update(t, pod("job-2", onNode("node-1"), inPhase(v1.PodFailed), atVersion("2"), withClaim("v", "logs")))
	f.waitUsedBy(t, "logs", "job-2")
	f.delete(t, "job-2")
	f.waitReleased(t, "ns/logs")
	f.waitUsedBy(t, "logs")
}

// TestTombstone makes the informer lose a deletion: the watch expires, and
// the re-list no longer has the pod, so client-go hands the handler a
// DeletedFinalStateUnknown.
func TestTombstone(t *testing.T) {
	client := fake.NewClientset(pod("web-0", running(), withClaim("v", "data")))
	watchers := make(chan *watch.FakeWatcher, 10)
	client.PrependWatchReactor("pods", func(clienttesting.Action) (bool, watch.Interface, error) {
		w := watch.NewFake()
		watchers <- w
		return true, w, nil
	})
	deleted := make(chan any, 10)
	f := start(t, client, func(f *fixture) {
		if _, err := f.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			DeleteFunc: func(obj any) { deleted <- obj },
		}); err != nil {
			t.Fatalf("AddEventHandler: %v", err)
		}
	})
	f.waitUsedBy(t, "data", "web-0")

	// Deleted behind the informer's back: no watch event.
	if err := client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "web-0"); err != nil {
		t.Fatalf("delete from tracker: %v", err)
	}
	var w *watch.FakeWatcher
	select {
	case w = <-watchers:
	case <-time.After(deadline):
		t.Fatal("the informer never watched")
	}
	gone := apierrors.NewResourceExpired("too old resource version")
	w.Error(&gone.ErrStatus)

	select {
	case claim := <-f.released:
		if claim != "ns/data" {
			t.Errorf("released %s, want ns/data", claim)
		}
	case <-time.After(deadline):
		t.Fatal("the re-list released nothing")
	}
	if obj := <-deleted; !isTombstone(obj) {
		t.Errorf("handlers got %T, want a cache.DeletedFinalStateUnknown: the test did not test tombstones", obj)
	}
	f.waitUsedBy(t, "data")
}

func TestReleaseHandler(t *testing.T) {
	slimRunning := slimPod("web-0", v1.PodRunning, true, "data", "logs")
	tests := []struct {
		name string
		call func(h cache.ResourceEventHandlerFuncs)
		want []string
	}{
		{
			name: "tombstone of a slim pod",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/web-0", Obj: slimRunning})
			},
			want: []string{"ns/data", "ns/logs"},
		},
		{
			name: "tombstone of a whole pod",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/web-0", Obj: pod("web-0", running(), withClaim("v", "data"))})
			},
			want: []string{"ns/data"},
		},
		{
			name: "tombstone of something else",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: &v1.Node{}})
			},
		},
		{name: "deleted nil pod", call: func(h cache.ResourceEventHandlerFuncs) { h.OnDelete((*Pod)(nil)) }},
		{name: "deleted pod without claims", call: func(h cache.ResourceEventHandlerFuncs) { h.OnDelete(slimPod("idle", v1.PodRunning, true)) }},
		{
			name: "running to succeeded: not released before the pod is gone",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnUpdate(slimRunning, slimPod("web-0", v1.PodSucceeded, true, "data", "logs"))
			},
		},
		{
			name: "pending to running",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnUpdate(slimPod("web-0", v1.PodPending, true, "data"), slimPod("web-0", v1.PodRunning, true, "data"))
			},
		},
		{
			name: "unscheduled to failed: never counted",
			call: func(h cache.ResourceEventHandlerFuncs) {
				h.OnUpdate(slimPod("web-0", v1.PodPending, false, "data"), slimPod("web-0", v1.PodFailed, false, "data"))
			},
		},
		{name: "update of something else", call: func(h cache.ResourceEventHandlerFuncs) { h.OnUpdate(&v1.Node{}, slimRunning) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			tc.call(releaseHandler(func(namespace, claim string) { got = append(got, namespace+"/"+claim) }))
			if !slices.Equal(got, tc.want) {
				t.Errorf("released %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewTrackerErrors(t *testing.T) {
	t.Run("informer already started", func(t *testing.T) {
		f := start(t, fake.NewClientset(), nil)
		if _, err := NewTracker(f.informer); err == nil {
			t.Error("NewTracker on a started informer: no error")
		}
	})
	t.Run("index name taken", func(t *testing.T) {
		informer := coreinformers.NewPodInformer(fake.NewClientset(), "", 0, cache.Indexers{claimIndex: cache.MetaNamespaceIndexFunc})
		if _, err := NewTracker(informer); err == nil {
			t.Error("NewTracker with a conflicting index: no error")
		}
	})
}

func TestOnReleaseAfterStop(t *testing.T) {
	informer := coreinformers.NewPodInformer(fake.NewClientset(), "", 0, cache.Indexers{})
	tracker, err := NewTracker(informer)
	if err != nil {
		t.Fatalf("NewTracker: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	informer.RunWithContext(ctx) // returns at once: the context is done
	if err := tracker.OnRelease(func(string, string) {}); err == nil {
		t.Error("OnRelease on a stopped informer: no error")
	}
}

func isTombstone(obj any) bool {
	_, ok := obj.(cache.DeletedFinalStateUnknown)
	return ok
}
