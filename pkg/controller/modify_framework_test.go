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
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

const (
	gold        = "gold"
	silver      = "silver"
	bronze      = "bronze"
	otherDriver = "other.csi.example.com"
	// tierKey is a parameter of every test class naming the class, so that
	// a driver call tells which class it applies.
	tierKey = "tier"
)

// attributeClass is testobj's VolumeAttributesClass name of driver, whose
// parameters name it under tierKey.
func attributeClass(name, driver string) *storagev1.VolumeAttributesClass {
	return testobj.AttributesClass(name, driver, map[string]string{tierKey: name, "iops": strconv.Itoa(1000 * len(name))})
}

// classed sets the PV's spec.volumeAttributesClassName.
func classed(name string) testobj.VolumeOpt {
	return func(pv *v1.PersistentVolume) { pv.Spec.VolumeAttributesClassName = &name }
}

// receivedModify is one call the fake modifier received.
type receivedModify struct {
	Volume     string
	Parameters map[string]string
	Secrets    map[string]string
}

// fakeModifier answers Modify from a script of errors; once the script is
// used up it answers success. With a timeline, every call is recorded on
// it for the checks of overlapping calls.
type fakeModifier struct {
	mu       sync.Mutex
	script   []error
	calls    []receivedModify
	timeline *timeline
	pause    time.Duration
}

func (f *fakeModifier) Modify(_ context.Context, pv *v1.PersistentVolume, parameters, secrets map[string]string) error {
	if f.timeline != nil {
		f.timeline.begin(pv.Name, "modify "+parameters[tierKey])
		defer f.timeline.end(pv.Name)
	}
	time.Sleep(f.pause)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, receivedModify{Volume: pv.Name, Parameters: maps.Clone(parameters), Secrets: maps.Clone(secrets)})
	if len(f.script) > 0 {
		err := f.script[0]
		f.script = f.script[1:]
		return err
	}
	return nil
}

// targets lists the classes of the calls so far, in order.
func (f *fakeModifier) targets() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.Parameters[tierKey])
	}
	return out
}

// volumes lists the volumes of the calls so far, in order.
func (f *fakeModifier) volumes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.Volume)
	}
	return out
}

func (f *fakeModifier) call(i int) receivedModify {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[i]
}

// timeline records the driver calls of both operations in one order, and
// every call that began while another one on the same volume was running.
type timeline struct {
	mu       sync.Mutex
	inFlight map[string]int
	entries  []string
	overlaps []string
}

func newTimeline() *timeline { return &timeline{inFlight: map[string]int{}} }

func (tl *timeline) begin(volume, what string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.inFlight[volume] > 0 {
		tl.overlaps = append(tl.overlaps, volume+": "+what)
	}
	tl.inFlight[volume]++
	tl.entries = append(tl.entries, volume+" "+what)
}

func (tl *timeline) end(volume string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.inFlight[volume]--
}

// of lists the entries of volume, without its name.
func (tl *timeline) of(volume string) []string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var out []string
	for _, e := range tl.entries {
		if what, ok := strings.CutPrefix(e, volume+" "); ok {
			out = append(out, what)
		}
	}
	return out
}

func (tl *timeline) overlapping() []string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]string(nil), tl.overlaps...)
}

// timedResizer puts the expansions of a fakeResizer on a timeline.
type timedResizer struct {
	*fakeResizer
	timeline *timeline
	pause    time.Duration
}

func (r *timedResizer) Expand(ctx context.Context, pv *v1.PersistentVolume, target resource.Quantity, secrets map[string]string) (resource.Quantity, bool, error) {
	r.timeline.begin(pv.Name, "expand "+target.String())
	defer r.timeline.end(pv.Name)
	time.Sleep(r.pause)
	return r.fakeResizer.Expand(ctx, pv, target, secrets)
}

// modifyEnv is an env whose controller modifies volumes through a
// fakeModifier, over a fake API server that keeps resource versions.
type modifyEnv struct {
	*env
	modifier *fakeModifier
	versions *atomic.Int64
}

// withModifier turns modification on with m and a VolumeAttributesClass
// informer over the fake API server.
func withModifier(m Modifier) envOpt {
	return func(c *Config) {
		c.Modifier = m
		c.AttributeClasses = kube.NewInformer(c.Client, c.Client.StorageV1().VolumeAttributesClasses(), 0, nil)
	}
}

// newModifyEnv builds a controller with modification on (m nil: a
// fakeModifier that always succeeds) over a fake API server holding objs.
func newModifyEnv(t *testing.T, m *fakeModifier, objs []runtime.Object, opts ...envOpt) *modifyEnv {
	t.Helper()
	versions := &atomic.Int64{}
	for _, o := range objs {
		switch o.(type) {
		case *v1.PersistentVolumeClaim, *v1.PersistentVolume:
			acc, err := meta.Accessor(o)
			if err != nil {
				t.Fatal(err)
			}
			acc.SetResourceVersion(strconv.FormatInt(versions.Add(1), 10))
		}
	}
	client := fake.NewSimpleClientset(objs...)
	keepVersions(client, versions)
	return restartModifyEnv(t, client, versions, m, opts...)
}

// restartModifyEnv builds a controller, with fresh memory, over the fake
// API server of an earlier one, as a restarted process finds it.
func restartModifyEnv(t *testing.T, client *fake.Clientset, versions *atomic.Int64, m *fakeModifier, opts ...envOpt) *modifyEnv {
	t.Helper()
	if m == nil {
		m = &fakeModifier{}
	}
	e := newEnvWithClient(t, client, nil, append([]envOpt{withModifier(m)}, opts...)...)
	return &modifyEnv{env: e, modifier: m, versions: versions}
}

// restart is restartModifyEnv over e's API server.
func (e *modifyEnv) restart(m *fakeModifier, opts ...envOpt) *modifyEnv {
	e.t.Helper()
	return restartModifyEnv(e.t, e.client, e.versions, m, opts...)
}

// keepVersions makes the fake API server treat the patches of claims and
// PVs as a real one does: a patch that names a resourceVersion other than
// the object's fails with a conflict, and every write gives the object a
// new resourceVersion. The controller's memory of what it wrote then works
// as against a real server, and a stale write is refused.
func keepVersions(client *fake.Clientset, versions *atomic.Int64) {
	client.PrependReactor("patch", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		p, ok := action.(clienttesting.PatchAction)
		gvr := action.GetResource()
		if !ok || (gvr.Resource != "persistentvolumeclaims" && gvr.Resource != "persistentvolumes") {
			return false, nil, nil
		}
		if p.GetPatchType() != types.MergePatchType {
			return true, nil, fmt.Errorf("patch type %s: the controller writes merge patches only", p.GetPatchType())
		}
		cur, err := client.Tracker().Get(gvr, p.GetNamespace(), p.GetName())
		if err != nil {
			return true, nil, err
		}
		var patch map[string]any
		if err := json.Unmarshal(p.GetPatch(), &patch); err != nil {
			return true, nil, err
		}
		acc, err := meta.Accessor(cur)
		if err != nil {
			return true, nil, err
		}
		if m, ok := patch["metadata"].(map[string]any); ok {
			if rv, ok := m["resourceVersion"].(string); ok && rv != "" && rv != acc.GetResourceVersion() {
				return true, nil, apierrors.NewConflict(gvr.GroupResource(), p.GetName(),
					fmt.Errorf("the object has been modified: resourceVersion %s, patch for %s", acc.GetResourceVersion(), rv))
			}
		}
		doc, err := toMap(cur)
		if err != nil {
			return true, nil, err
		}
		merged, err := json.Marshal(mergePatch(doc, patch))
		if err != nil {
			return true, nil, err
		}
		var out runtime.Object
		switch cur.(type) {
		case *v1.PersistentVolumeClaim:
			out = &v1.PersistentVolumeClaim{}
		default:
			out = &v1.PersistentVolume{}
		}
		if err := json.Unmarshal(merged, out); err != nil {
			return true, nil, err
		}
		outMeta, _ := meta.Accessor(out)
		outMeta.SetResourceVersion(strconv.FormatInt(versions.Add(1), 10))
		if err := client.Tracker().Update(gvr, out, p.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, out.DeepCopyObject(), nil
	})
}

func toMap(obj runtime.Object) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// mergePatch applies a JSON merge patch (RFC 7386) to doc.
func mergePatch(doc, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	d, ok := doc.(map[string]any)
	if !ok {
		d = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(d, k)
			continue
		}
		d[k] = mergePatch(d[k], v)
	}
	return d
}

// refreshClasses makes the VolumeAttributesClass cache hold what the fake
// API server holds.
func (e *modifyEnv) refreshClasses() {
	e.t.Helper()
	if e.ctrl.AttributeClasses == nil {
		return
	}
	list, err := e.client.Tracker().List(storagev1.SchemeGroupVersion.WithResource("volumeattributesclasses"),
		storagev1.SchemeGroupVersion.WithKind("VolumeAttributesClass"), "")
	e.must(err)
	var objs []any
	for i := range list.(*storagev1.VolumeAttributesClassList).Items {
		objs = append(objs, &list.(*storagev1.VolumeAttributesClassList).Items[i])
	}
	e.must(e.ctrl.AttributeClasses.GetIndexer().Replace(objs, ""))
}

// sync refreshes every cache and syncs one claim.
func (e *modifyEnv) sync(name string) (time.Duration, error) {
	e.t.Helper()
	e.refresh()
	e.refreshClasses()
	return e.ctrl.sync(e.ctx, ns+"/"+name)
}

func (e *modifyEnv) mustSync(name string) time.Duration {
	e.t.Helper()
	after, err := e.sync(name)
	if err != nil {
		e.t.Fatalf("sync %s: %v", name, err)
	}
	return after
}

// process refreshes every cache and hands the claim to the worker's loop,
// which turns the outcome of the sync into a requeue.
func (e *modifyEnv) process(name string) {
	e.t.Helper()
	e.refresh()
	e.refreshClasses()
	e.ctrl.queue.Add(ns + "/" + name)
	if !e.ctrl.processNext(e.ctx) {
		e.t.Fatal("processNext: the queue is shut down")
	}
}

// editClaim changes the claim in the API server, as a user does.
func (e *modifyEnv) editClaim(name string, edit func(*v1.PersistentVolumeClaim)) {
	e.t.Helper()
	pvc := e.claim(name)
	edit(pvc)
	pvc.ResourceVersion = strconv.FormatInt(e.versions.Add(1), 10)
	e.must(e.client.Tracker().Update(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), pvc, ns))
}

// setClass sets the claim's spec.volumeAttributesClassName; "" unsets it.
func (e *modifyEnv) setClass(name, class string) {
	e.t.Helper()
	e.editClaim(name, func(pvc *v1.PersistentVolumeClaim) {
		pvc.Spec.VolumeAttributesClassName = nil
		if class != "" {
			pvc.Spec.VolumeAttributesClassName = &class
		}
	})
}

// createClass adds a VolumeAttributesClass to the API server.
func (e *modifyEnv) createClass(vac *storagev1.VolumeAttributesClass) {
	e.t.Helper()
	_, err := e.client.StorageV1().VolumeAttributesClasses().Create(e.ctx, vac, metav1.CreateOptions{})
	e.must(err)
}

// patchBodies lists the bodies of the patches made so far, in order, each
// as "resource[/sub] name" and its decoded JSON.
func (e *modifyEnv) patchBodies() []patchBody {
	var out []patchBody
	for _, a := range e.client.Actions() {
		p, ok := a.(clienttesting.PatchAction)
		if !ok || a.GetVerb() != "patch" {
			continue
		}
		what := a.GetResource().Resource
		if a.GetSubresource() != "" {
			what += "/" + a.GetSubresource()
		}
		var body map[string]any
		e.must(json.Unmarshal(p.GetPatch(), &body))
		out = append(out, patchBody{What: what + " " + p.GetName(), Body: body})
	}
	return out
}

type patchBody struct {
	What string
	Body map[string]any
}

// field returns the value at path in the body; ok is false when a key on
// the way is absent (a null value is present, as nil).
func (p patchBody) field(path ...string) (any, bool) {
	var cur any = p.Body
	for _, k := range path {
		m, isMap := cur.(map[string]any)
		if !isMap {
			return nil, false
		}
		v, ok := m[k]
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// modifySummary summarises a claim's modification state in one comparable
// line: spec and current class, modifyVolumeStatus, condition types.
func modifySummary(pvc *v1.PersistentVolumeClaim) string {
	status := "-"
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		status = string(m.Status) + ":" + m.TargetVolumeAttributesClassName
	}
	var conds []string
	for _, c := range pvc.Status.Conditions {
		conds = append(conds, string(c.Type))
	}
	sort.Strings(conds)
	return fmt.Sprintf("spec=%s current=%s modify=%s conditions=[%s]",
		ptr.Deref(pvc.Spec.VolumeAttributesClassName, "-"), ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, "-"),
		status, strings.Join(conds, ","))
}

// modifyError returns the claim's ModifyVolumeError condition, nil if none.
func modifyError(pvc *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaimCondition {
	for i, c := range pvc.Status.Conditions {
		if c.Type == v1.PersistentVolumeClaimVolumeModifyVolumeError {
			return &pvc.Status.Conditions[i]
		}
	}
	return nil
}

func pvClass(pv *v1.PersistentVolume) string {
	return ptr.Deref(pv.Spec.VolumeAttributesClassName, "-")
}

// jsonOf is v as JSON, for messages and substring checks.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func t0Meta() metav1.Time { return metav1.NewTime(t0) }
