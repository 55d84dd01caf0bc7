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
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/inuse"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// withPods gives the controller a pod tracker whose cache the test fills.
func withPods(t *testing.T, onlyOffline bool, pods ...*inuse.Pod) (envOpt, cache.Indexer) {
	t.Helper()
	inf := coreinformers.NewPodInformer(nil, "", 0, cache.Indexers{})
	tracker, err := inuse.NewTracker(inf)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if err := inf.GetIndexer().Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return func(c *Config) {
		c.Pods = tracker
		c.OnlyOffline = onlyOffline
	}, inf.GetIndexer()
}

func runningPod(name string, claims ...string) *inuse.Pod {
	return &inuse.Pod{Meta: slim.Meta{Namespace: ns, Name: name}, Phase: v1.PodRunning, Scheduled: true, Claims: claims}
}

func TestInUseWithOfflineDriver(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	pod := runningPod("app-0", "a")
	opt, pods := withPods(t, true, pod)
	e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")), opt)

	_, err := e.sync("a")
	if err == nil || !strings.Contains(err.Error(), "only supports offline expansion") {
		t.Fatalf("want an in-use error, got %v", err)
	}
	equal(t, "writes while in use", e.writes(), []string(nil))
	equal(t, "driver calls while in use", len(e.resizer.targets()), 0)
	equal(t, "events", e.events(), []string{"Warning VolumeResizeFailed unable to expand default/a to 2Gi because CSI driver test.csi.example.com only supports offline expansion and volume is currently in-use by pod(s) [app-0]; " +
		"the expansion starts once the pods that use the claim are deleted (a finished pod counts until it is deleted): delete these pods"})

	if err := pods.Delete(pod); err != nil {
		t.Fatal(err)
	}
	e.mustSync("a")
	equal(t, "driver calls", e.resizer.targets(), []string{"2Gi"})
	equal(t, "claim", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
}

func TestInUseErrorFromOnlineDriver(t *testing.T) {
	pvc := claim("a", "2Gi", "1Gi")
	pod := runningPod("app-0", "a")
	opt, pods := withPods(t, false, pod)
	rz := &fakeResizer{script: []result{{err: status.Error(codes.FailedPrecondition, "volume is published")}}}
	e := newEnv(t, rz, objects(pvc, volume(pvc, "1Gi")), opt)

	// An online driver is called even while a pod runs...
	if _, err := e.sync("a"); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("want the driver's FailedPrecondition, got %v", err)
	}
	// ...but after it said the volume is in use, not again until the pod is gone.
	if _, err := e.sync("a"); err == nil || !strings.Contains(err.Error(), "in-use by pod(s) [app-0]") {
		t.Fatalf("want the claim held back, got %v", err)
	}
	equal(t, "driver calls while in use", len(e.resizer.targets()), 1)

	if err := pods.Delete(pod); err != nil {
		t.Fatal(err)
	}
	e.mustSync("a")
	equal(t, "claim", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
}

func TestSecrets(t *testing.T) {
	templated := map[string]string{
		"csi.storage.k8s.io/controller-expand-secret-name":      "${pvc.name}-expand",
		"csi.storage.k8s.io/controller-expand-secret-namespace": "${pvc.namespace}",
	}
	tests := []struct {
		name        string
		pvOpts      []testobj.VolumeOpt
		class       *storageclass
		secrets     []*v1.Secret
		noSecret    bool
		wantSecrets map[string]string
		wantReads   []string
		wantErr     string
	}{
		{name: "secret from the PV ref", pvOpts: []testobj.VolumeOpt{expandSecret("vault", "expand-creds")},
			secrets:     []*v1.Secret{secret("vault", "expand-creds", map[string]string{"token": "s3cr3t-pv"})},
			wantSecrets: map[string]string{"token": "s3cr3t-pv"}, wantReads: []string{"secrets vault/expand-creds"}},
		{name: "secret from StorageClass templates", pvOpts: []testobj.VolumeOpt{testobj.Classes("gold", "")}, class: &storageclass{"gold", templated},
			secrets:     []*v1.Secret{secret(ns, "a-expand", map[string]string{"token": "s3cr3t-sc"})},
			wantSecrets: map[string]string{"token": "s3cr3t-sc"}, wantReads: []string{"secrets default/a-expand"}},
		{name: "PV ref wins over the class", pvOpts: []testobj.VolumeOpt{testobj.Classes("gold", ""), expandSecret("vault", "expand-creds")}, class: &storageclass{"gold", templated},
			secrets:     []*v1.Secret{secret("vault", "expand-creds", map[string]string{"token": "from-pv"})},
			wantSecrets: map[string]string{"token": "from-pv"}, wantReads: []string{"secrets vault/expand-creds"}},
		{name: "no secret configured", pvOpts: []testobj.VolumeOpt{testobj.Classes("plain", "")}, class: &storageclass{"plain", nil}},
		{name: "class deleted: no secret", pvOpts: []testobj.VolumeOpt{testobj.Classes("gone", "")}},
		{name: "node-only resizer reads no secret", pvOpts: []testobj.VolumeOpt{expandSecret("vault", "missing")}, noSecret: true},
		{name: "missing secret: event, no driver call", pvOpts: []testobj.VolumeOpt{expandSecret("vault", "missing")},
			wantReads: []string{"secrets vault/missing"}, wantErr: `secret "vault/missing" for volume expansion not found`},
		{name: "template resolving to an invalid name: event, no read, no call", pvOpts: []testobj.VolumeOpt{testobj.Classes("bad", "")},
			class:   &storageclass{"bad", map[string]string{"csi.storage.k8s.io/controller-expand-secret-name": "${pvc.annotations['x']}", "csi.storage.k8s.io/controller-expand-secret-namespace": "${pvc.namespace}"}},
			wantErr: "csi.storage.k8s.io/controller-expand-secret-name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pvc := claim("a", "2Gi", "1Gi", testobj.Annotated("x", "../kube-system/admin"))
			objs := objects(pvc, volume(pvc, "1Gi", tc.pvOpts...))
			if tc.class != nil {
				objs = append(objs, testobj.StorageClass(tc.class.name, driverName, tc.class.params))
			}
			for _, s := range tc.secrets {
				objs = append(objs, s)
			}
			e := newEnv(t, &fakeResizer{noSecret: tc.noSecret}, objs)
			_, err := e.sync("a")
			equal(t, "secret reads", e.reads(), tc.wantReads)
			for _, ev := range e.recorderSnapshot() {
				if strings.Contains(ev, "s3cr3t") {
					t.Errorf("secret value in event %q", ev)
				}
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				equal(t, "driver calls", len(e.resizer.targets()), 0)
				equal(t, "writes", e.writes(), []string(nil))
				events := e.recorderSnapshot()
				if len(events) != 1 || !strings.HasPrefix(events[0], "Warning VolumeResizeFailed") || !strings.Contains(events[0], tc.wantErr) {
					t.Errorf("events = %q", events)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(e.resizer.calls) != 1 {
				t.Fatalf("driver calls = %d", len(e.resizer.calls))
			}
			equal(t, "secrets passed", e.resizer.calls[0].Secrets, tc.wantSecrets)
		})
	}
}

type storageclass struct {
	name   string
	params map[string]string
}

func TestClaimUpdatedQueuesOnlyWhatMatters(t *testing.T) {
	base := claim("a", "2Gi", "1Gi")
	base.ResourceVersion = "1"
	changed := func(f func(*v1.PersistentVolumeClaim)) *v1.PersistentVolumeClaim {
		c := base.DeepCopy()
		c.ResourceVersion = "2"
		f(c)
		return c
	}
	tests := []struct {
		name string
		cur  *v1.PersistentVolumeClaim
		want bool
	}{
		{name: "resync", cur: base.DeepCopy(), want: true},
		{name: "request changed", cur: changed(func(c *v1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("3Gi")
		}), want: true},
		{name: "capacity changed by kubelet", cur: changed(func(c *v1.PersistentVolumeClaim) {
			c.Status.Capacity[v1.ResourceStorage] = resource.MustParse("2Gi")
		}), want: true},
		{name: "phase changed", cur: changed(func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimLost }), want: true},
		{name: "resizer annotation set", cur: changed(func(c *v1.PersistentVolumeClaim) {
			c.Annotations = map[string]string{"volume.kubernetes.io/storage-resizer": driverName}
		}), want: true},
		{name: "our own status write", cur: changed(func(c *v1.PersistentVolumeClaim) {
			c.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue}}
		}), want: false},
		{name: "label changed", cur: changed(func(c *v1.PersistentVolumeClaim) { c.Labels = map[string]string{"x": "y"} }), want: false},
		{name: "our own resize status", cur: changed(func(c *v1.PersistentVolumeClaim) {
			c.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: v1.PersistentVolumeClaimControllerResizeInProgress}
		}), want: false},
		{name: "kubelet starts the node step", cur: changed(func(c *v1.PersistentVolumeClaim) {
			c.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: v1.PersistentVolumeClaimNodeResizeInProgress}
		}), want: true},
		{name: "kubelet finds the size infeasible", cur: changed(func(c *v1.PersistentVolumeClaim) {
			c.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: v1.PersistentVolumeClaimNodeResizeInfeasible}
		}), want: true},
		{name: "kubelet reports a node error", cur: changed(func(c *v1.PersistentVolumeClaim) {
			c.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimNodeResizeError, Status: v1.ConditionTrue, Message: "out of range"}}
		}), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil, nil)
			e.ctrl.claimUpdated(slim.NewClaim(base), slim.NewClaim(tc.cur))
			equal(t, "queued", e.ctrl.queue.Len() == 1, tc.want)
		})
	}
}

func TestRunResizesThroughInformers(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi")
	e := newEnv(t, nil, objects(pvc, volume(pvc, "1Gi")))
	ctx, cancel := context.WithCancel(e.ctx)
	stop := make(chan struct{})
	for _, inf := range []cache.SharedIndexInformer{e.ctrl.Claims, e.ctrl.Volumes, e.ctrl.Classes} {
		go inf.Run(stop)
	}
	done := make(chan error, 1)
	go func() { done <- e.ctrl.Run(ctx, 2) }()
	defer func() {
		cancel()
		close(stop)
	}()

	waitFor(t, "controller ready", e.ctrl.Ready)
	e.setRequestThroughAPI("a", "2Gi")
	waitFor(t, "claim finished", func() bool {
		return summary(e.claim("a")) == "capacity=2Gi allocated=2Gi status=- conditions=[]"
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func (e *env) setRequestThroughAPI(name, size string) {
	e.t.Helper()
	pvc := e.claim(name)
	pvc.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse(size)
	if _, err := e.client.CoreV1().PersistentVolumeClaims(ns).Update(e.ctx, pvc, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// idle waits until the controller has no key queued, and returns what it
// decides now for the claim name, from its caches and memory: a driver call
// or write still to come for the claim shows there.
func (e *env) idle(t *testing.T, name string) decide.Plan {
	t.Helper()
	waitFor(t, "an empty queue", func() bool { return e.ctrl.queue.Len() == 0 })
	key := ns + "/" + name
	pvc, pv, err := e.ctrl.objects(key)
	if err != nil || pvc == nil || pv == nil {
		t.Fatalf("objects of %s: %v, %v, %v", name, pvc, pv, err)
	}
	return decide.Claim(e.ctrl.input(key, pvc, pv))
}

// TestHeldBackByPods: the claims-by-state metrics count a claim as
// waiting_in_use exactly when the controller would call the driver now, as
// resize.Decide says on the claim, its PV and its memory, and pods hold the
// call back.
func TestHeldBackByPods(t *testing.T) {
	infeasible := func(request, allocated string) *v1.PersistentVolumeClaim {
		pvc := claim("a", request, "1Gi")
		pvc.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: resource.MustParse(allocated)}
		pvc.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: v1.PersistentVolumeClaimNodeResizeInfeasible}
		return pvc
	}
	nodePending := claim("a", "2Gi", "1Gi")
	nodePending.Status.AllocatedResources = v1.ResourceList{v1.ResourceStorage: resource.MustParse("2Gi")}
	nodePending.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: v1.PersistentVolumeClaimNodeResizePending}
	tests := []struct {
		name        string
		pvc         *v1.PersistentVolumeClaim
		pvSize      string
		pods        []*inuse.Pod
		onlyOffline bool
		want        bool
	}{
		{name: "a request a running pod holds back", pvc: claim("a", "2Gi", "1Gi"), pvSize: "1Gi", pods: []*inuse.Pod{runningPod("app", "a")}, onlyOffline: true, want: true},
		{name: "a finished pod not deleted yet holds it back too", pvc: claim("a", "2Gi", "1Gi"), pvSize: "1Gi",
			pods: []*inuse.Pod{{Meta: slim.Meta{Namespace: ns, Name: "job"}, Phase: v1.PodSucceeded, Scheduled: true, Claims: []string{"a"}}}, onlyOffline: true, want: true},
		{name: "no pod", pvc: claim("a", "2Gi", "1Gi"), pvSize: "1Gi", onlyOffline: true},
		{name: "a driver that expands online", pvc: claim("a", "2Gi", "1Gi"), pvSize: "1Gi", pods: []*inuse.Pod{runningPod("app", "a")}},
		{name: "nothing to expand", pvc: claim("a", "1Gi", "1Gi"), pvSize: "1Gi", pods: []*inuse.Pod{runningPod("app", "a")}, onlyOffline: true},
		{name: "kubelet's step is not held back", pvc: nodePending, pvSize: "2Gi", pods: []*inuse.Pod{runningPod("app", "a")}, onlyOffline: true},
		{name: "a node-infeasible size the user has not changed", pvc: infeasible("2Gi", "2Gi"), pvSize: "2Gi", pods: []*inuse.Pod{runningPod("app", "a")}, onlyOffline: true},
		{name: "a node-infeasible size the user raised", pvc: infeasible("3Gi", "2Gi"), pvSize: "2Gi", pods: []*inuse.Pod{runningPod("app", "a")}, onlyOffline: true, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt, _ := withPods(t, tc.onlyOffline, tc.pods...)
			e := newEnv(t, nil, objects(tc.pvc, volume(tc.pvc, tc.pvSize)), opt)
			e.refresh()
			if got := e.ctrl.HeldBackByPods(slim.NewClaim(tc.pvc)); got != tc.want {
				t.Errorf("HeldBackByPods = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestClaimUpdatedQueuesKubeletsWrites: each status write of kubelet's node
// step queues the claim, and so do none of the resizer's own.
func TestClaimUpdatedQueuesKubeletsWrites(t *testing.T) {
	status := func(rs v1.ClaimResourceStatus, nodeError string) *v1.PersistentVolumeClaim {
		c := claim("a", "2Gi", "1Gi")
		c.Status.AllocatedResourceStatuses = map[v1.ResourceName]v1.ClaimResourceStatus{v1.ResourceStorage: rs}
		if nodeError != "" {
			c.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimNodeResizeError, Status: v1.ConditionTrue, Message: nodeError}}
		}
		return c
	}
	const (
		pending    = v1.PersistentVolumeClaimNodeResizePending
		inProgress = v1.PersistentVolumeClaimNodeResizeInProgress
		infeasible = v1.PersistentVolumeClaimNodeResizeInfeasible
		controller = v1.PersistentVolumeClaimControllerResizeInProgress
	)
	tests := []struct {
		name     string
		old, cur *v1.PersistentVolumeClaim
		want     bool
	}{
		{name: "kubelet takes the node step", old: status(pending, ""), cur: status(inProgress, ""), want: true},
		{name: "kubelet fails, to retry", old: status(inProgress, ""), cur: status(pending, "exit 1"), want: true},
		{name: "kubelet fails again, otherwise", old: status(pending, "exit 1"), cur: status(pending, "exit 2"), want: true},
		{name: "kubelet gives up", old: status(inProgress, "exit 1"), cur: status(infeasible, "out of range"), want: true},
		{name: "the resizer hands a lowered size back", old: status(infeasible, "out of range"), cur: status(pending, "out of range"), want: true},
		{name: "the resizer's controller step", old: status(controller, ""), cur: status(pending, ""), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.old.ResourceVersion, tc.cur.ResourceVersion = "1", "2"
			e := newEnv(t, nil, nil)
			e.ctrl.claimUpdated(slim.NewClaim(tc.old), slim.NewClaim(tc.cur))
			equal(t, "queued", e.ctrl.queue.Len() == 1, tc.want)
		})
	}
}
