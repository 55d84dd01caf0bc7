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
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const (
	driverName = "test.csi.example.com"
	ns         = "default"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// claim is testobj's claim "name" in ns, of the volume "pv-<name>" the
// assertions read.
func claim(name, request, capacity string, opts ...testobj.ClaimOpt) *v1.PersistentVolumeClaim {
	return testobj.Claim(ns, name, request, capacity, append([]testobj.ClaimOpt{testobj.VolumeName("pv-" + name)}, opts...)...)
}

// unbound leaves the claim's volume and status but its phase Pending.
func unbound(pvc *v1.PersistentVolumeClaim) { pvc.Status.Phase = v1.ClaimPending }

// volume is testobj's PV of claim, of size, handled by driverName, in no
// class unless an option says so.
func volume(pvc *v1.PersistentVolumeClaim, size string, opts ...testobj.VolumeOpt) *v1.PersistentVolume {
	return testobj.Volume(pvc, driverName, size, append([]testobj.VolumeOpt{testobj.Classes("", "")}, opts...)...)
}

func ofDriver(name string) testobj.VolumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.CSI.Driver = name }
}

func expandSecret(namespace, name string) testobj.VolumeOpt {
	return testobj.ExpandSecret(&v1.SecretReference{Namespace: namespace, Name: name})
}

func secret(namespace, name string, data map[string]string) *v1.Secret {
	s := &v1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// result is one scripted answer of the fake resizer.
type result struct {
	size     string // "" answers the target
	nodeStep bool
	err      error
}

// receivedExpand is one call the fake resizer received.
type receivedExpand struct {
	Volume  string
	Target  string
	Secrets map[string]string
}

// fakeResizer answers Expand from a script; once the script is used up it
// answers success at the target.
type fakeResizer struct {
	mu       sync.Mutex
	script   []result
	calls    []receivedExpand
	nodeStep bool
	noSecret bool
}

func (f *fakeResizer) Expand(_ context.Context, pv *v1.PersistentVolume, target resource.Quantity, secrets map[string]string) (resource.Quantity, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, receivedExpand{Volume: pv.Name, Target: target.String(), Secrets: secrets})
	r := result{size: target.String(), nodeStep: f.nodeStep}
	if len(f.script) > 0 {
		r, f.script = f.script[0], f.script[1:]
	}
	if r.err != nil {
		return resource.Quantity{}, false, r.err
	}
	size := resource.Quantity{}
	if r.size != "" {
		size = resource.MustParse(r.size)
	}
	return size, r.nodeStep, nil
}

func (f *fakeResizer) UsesSecrets() bool { return !f.noSecret }

func (f *fakeResizer) targets() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.Target)
	}
	return out
}

// env is a controller over a fake API server whose caches the test
// refreshes before each sync, so every step is deterministic.
type env struct {
	t        *testing.T
	ctx      context.Context
	client   *fake.Clientset
	ctrl     *Controller
	resizer  *fakeResizer
	recorder *record.FakeRecorder
	clock    *testingclock.FakeClock
}

type envOpt func(*Config)

func newEnv(t *testing.T, rz *fakeResizer, objs []runtime.Object, opts ...envOpt) *env {
	t.Helper()
	client := fake.NewSimpleClientset(objs...)
	return newEnvWithClient(t, client, rz, opts...)
}

// newEnvWithClient builds a controller over an existing fake API server,
// as a restarted process would find it.
func newEnvWithClient(t *testing.T, client *fake.Clientset, rz *fakeResizer, opts ...envOpt) *env {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	if rz == nil {
		rz = &fakeResizer{}
	}
	e := &env{t: t, ctx: ctx, client: client, resizer: rz,
		recorder: record.NewFakeRecorder(100), clock: testingclock.NewFakeClock(t0)}
	cfg := Config{
		Driver:     driverName,
		Resizer:    rz,
		Client:     kubetest.Wrap(client),
		Recorder:   e.recorder,
		Claims:     coreinformers.NewPersistentVolumeClaimInformer(client, "", 0, cache.Indexers{}),
		Volumes:    coreinformers.NewPersistentVolumeInformer(client, 0, cache.Indexers{}),
		Classes:    storageinformers.NewStorageClassInformer(client, 0, cache.Indexers{}),
		RetryStart: time.Second,
		RetryMax:   5 * time.Minute,
		Recovery:   true,
		Clock:      e.clock,
	}
	for _, o := range opts {
		o(&cfg)
	}
	ctrl, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e.ctrl = ctrl
	return e
}

// refresh makes the caches hold what the fake API server holds.
func (e *env) refresh() {
	e.t.Helper()
	pvcs, err := e.client.Tracker().List(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), v1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"), "")
	e.must(err)
	pvs, err := e.client.Tracker().List(v1.SchemeGroupVersion.WithResource("persistentvolumes"), v1.SchemeGroupVersion.WithKind("PersistentVolume"), "")
	e.must(err)
	scs, err := e.client.Tracker().List(storagev1.SchemeGroupVersion.WithResource("storageclasses"), storagev1.SchemeGroupVersion.WithKind("StorageClass"), "")
	e.must(err)
	e.replace(e.ctrl.Claims, pvcs.(*v1.PersistentVolumeClaimList).Items)
	e.replace(e.ctrl.Volumes, pvs.(*v1.PersistentVolumeList).Items)
	e.replace(e.ctrl.Classes, scs.(*storagev1.StorageClassList).Items)
}

// replace puts items in the informer's cache as its transform would.
func (e *env) replace(inf cache.SharedIndexInformer, items any) {
	var objs []any
	switch list := items.(type) {
	case []v1.PersistentVolumeClaim:
		for i := range list {
			objs = append(objs, slim.NewClaim(&list[i]))
		}
	case []v1.PersistentVolume:
		project := slim.NewVolume
		if e.ctrl.Node != nil {
			project = slim.NewVolumeWithAffinity
		}
		for i := range list {
			objs = append(objs, project(&list[i]))
		}
	case []storagev1.StorageClass:
		for i := range list {
			objs = append(objs, &list[i])
		}
	}
	e.must(inf.GetIndexer().Replace(objs, ""))
}

func (e *env) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// sync refreshes the caches and syncs one claim.
func (e *env) sync(name string) (time.Duration, error) {
	e.t.Helper()
	e.refresh()
	return e.ctrl.sync(e.ctx, ns+"/"+name)
}

// mustSync syncs and fails the test on an error.
func (e *env) mustSync(name string) time.Duration {
	e.t.Helper()
	after, err := e.sync(name)
	if err != nil {
		e.t.Fatalf("sync %s: %v", name, err)
	}
	return after
}

// writes lists the write requests made so far, as "verb resource[/sub] name".
func (e *env) writes() []string {
	var out []string
	for _, a := range e.client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		res := a.GetResource().Resource
		if a.GetSubresource() != "" {
			res += "/" + a.GetSubresource()
		}
		name := ""
		if n, ok := a.(interface{ GetName() string }); ok {
			name = n.GetName()
		}
		out = append(out, fmt.Sprintf("%s %s %s", a.GetVerb(), res, name))
	}
	return out
}

// reads lists the get requests made so far, as "resource namespace/name".
func (e *env) reads() []string {
	var out []string
	for _, a := range e.client.Actions() {
		if g, ok := a.(clienttesting.GetAction); ok && a.GetVerb() == "get" {
			out = append(out, fmt.Sprintf("%s %s/%s", a.GetResource().Resource, g.GetNamespace(), g.GetName()))
		}
	}
	return out
}

// recorderSnapshot returns the events recorded so far and keeps them for
// events().
func (e *env) recorderSnapshot() []string {
	evs := e.events()
	for _, ev := range evs {
		e.recorder.Events <- ev
	}
	return evs
}

// events drains the events recorded so far.
func (e *env) events() []string {
	var out []string
	for {
		select {
		case ev := <-e.recorder.Events:
			out = append(out, withoutCode(ev))
		default:
			return out
		}
	}
}

// codeSuffix is how the fake recorder writes a failure event's code
// annotation (events.AnnotationCode) after its message.
var codeSuffix = regexp.MustCompile(` map\[` + regexp.QuoteMeta(events.AnnotationCode) + `:[A-Za-z0-9()]*\]$`)

// withoutCode is the event without its code annotation, which
// TestFailureEventsCarryTheCode checks.
func withoutCode(ev string) string { return codeSuffix.ReplaceAllString(ev, "") }

func (e *env) claim(name string) *v1.PersistentVolumeClaim {
	e.t.Helper()
	pvc, err := e.client.CoreV1().PersistentVolumeClaims(ns).Get(e.ctx, name, metav1.GetOptions{})
	e.must(err)
	return pvc
}

func (e *env) volume(name string) *v1.PersistentVolume {
	e.t.Helper()
	pv, err := e.client.CoreV1().PersistentVolumes().Get(e.ctx, name, metav1.GetOptions{})
	e.must(err)
	return pv
}

// failRequest makes the nth request (from 1) of verb on resource fail
// with err.
func (e *env) failRequest(verb, resource string, nth int, err error) {
	seen := 0
	e.client.PrependReactor(verb, resource, func(clienttesting.Action) (bool, runtime.Object, error) {
		seen++
		return seen == nth, nil, err
	})
}

// setRequest changes the claim's request in the API server, as a user does.
func (e *env) setRequest(name, size string) {
	e.t.Helper()
	pvc := e.claim(name)
	pvc.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse(size)
	e.must(e.client.Tracker().Update(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), pvc, ns))
}

func (e *env) clearActions() { e.client.ClearActions() }

// summary summarises a claim's resize state in one comparable line.
func summary(pvc *v1.PersistentVolumeClaim) string {
	var conds []string
	for _, c := range pvc.Status.Conditions {
		conds = append(conds, string(c.Type))
	}
	sort.Strings(conds)
	capacity := pvc.Status.Capacity[v1.ResourceStorage]
	alloc := "-"
	if a, ok := pvc.Status.AllocatedResources[v1.ResourceStorage]; ok {
		alloc = a.String()
	}
	rs := string(pvc.Status.AllocatedResourceStatuses[v1.ResourceStorage])
	if rs == "" {
		rs = "-"
	}
	return fmt.Sprintf("capacity=%s allocated=%s status=%s conditions=[%s]", capacity.String(), alloc, rs, strings.Join(conds, ","))
}

func pvSize(pv *v1.PersistentVolume) string {
	q := pv.Spec.Capacity[v1.ResourceStorage]
	return q.String()
}
