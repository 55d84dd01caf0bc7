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
	"encoding/json"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	clienttesting "k8s.io/client-go/testing"

	"github.com/csi-resizer/csi-resizer/pkg/slim"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

// hostileCase is one malformed or hostile object set synced once.
type hostileCase struct {
	name      string
	pvc       *v1.PersistentVolumeClaim
	pv        *v1.PersistentVolume // nil: volume(pvc, "1Gi")
	wantErr   bool                 // the claim is requeued with backoff
	wantEvent string               // "" for none; else a substring of the only event
	writes    []string
	calls     []string
}

func TestHostileObjects(t *testing.T) {
	nfs := func(pv *v1.PersistentVolume) {
		pv.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{NFS: &v1.NFSVolumeSource{Server: "nfs", Path: "/x"}}
	}
	emptyHandle := func(pv *v1.PersistentVolume) { pv.Spec.CSI.VolumeHandle = "" }
	otherName := func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef.Name = "b" }
	otherUID := func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef.UID = "uid-b" }
	noClaimRef := func(pv *v1.PersistentVolume) { pv.Spec.ClaimRef = nil }
	noCapacity := func(pv *v1.PersistentVolume) { pv.Spec.Capacity = nil }
	noRequest := func(pvc *v1.PersistentVolumeClaim) { pvc.Spec.Resources.Requests = nil }
	noStatusCapacity := func(pvc *v1.PersistentVolumeClaim) { pvc.Status.Capacity = nil }
	migrating := testobj.Annotated("volume.kubernetes.io/storage-resizer", driverName)
	grown := []string{intentWrite, pvWrite, claimWrite}

	tests := []hostileCase{
		// Not ours, or not bound the way it claims: silence.
		{name: "PV without spec.csi, not migratable, resizer annotation set", pvc: claim("a", "2Gi", "1Gi", migrating), pv: volume(claim("a", "2Gi", "1Gi"), "1Gi", nfs)},
		{name: "PV with an empty volumeHandle", pvc: claim("a", "2Gi", "1Gi"), pv: volume(claim("a", "2Gi", "1Gi"), "1Gi", emptyHandle)},
		{name: "claimRef names another claim", pvc: claim("a", "2Gi", "1Gi"), pv: volume(claim("a", "2Gi", "1Gi"), "1Gi", otherName)},
		{name: "claimRef has another UID", pvc: claim("a", "2Gi", "1Gi"), pv: volume(claim("a", "2Gi", "1Gi"), "1Gi", otherUID)},
		{name: "PV without claimRef", pvc: claim("a", "2Gi", "1Gi"), pv: volume(claim("a", "2Gi", "1Gi"), "1Gi", noClaimRef)},

		// Ours, with odd sizes.
		{name: "claim without a storage request", pvc: claim("a", "1Gi", "1Gi", noRequest)},
		{name: "claim without request nor status capacity", pvc: claim("a", "1Gi", "1Gi", noRequest, noStatusCapacity), pv: volume(claim("a", "1Gi", "1Gi"), "1Gi", noCapacity)},
		{name: "negative request", pvc: claim("a", "-1Gi", "1Gi")},
		{name: "PV without capacity", pvc: claim("a", "2Gi", "1Gi"), pv: volume(claim("a", "2Gi", "1Gi"), "1Gi", noCapacity),
			wantEvent: "VolumeResizeSuccessful", writes: grown, calls: []string{"2Gi"}},
		{name: "claim without status capacity", pvc: claim("a", "2Gi", "1Gi", noStatusCapacity),
			wantEvent: "VolumeResizeSuccessful", writes: grown, calls: []string{"2Gi"}},
		{name: "request in millibytes", pvc: claim("a", "1500m", "1"), pv: volume(claim("a", "1500m", "1"), "1"),
			wantEvent: "VolumeResizeSuccessful", writes: grown, calls: []string{"1500m"}},
		{name: "request with an exponent", pvc: claim("a", "2e9", "1Gi"),
			wantEvent: "VolumeResizeSuccessful", writes: grown, calls: []string{"2e9"}},
		{name: "fractional binary request", pvc: claim("a", "1.5Gi", "1Gi"),
			wantEvent: "VolumeResizeSuccessful", writes: grown, calls: []string{"1536Mi"}},
		{name: "request 1 byte over 8Ei (parsed as 2^63-1): the fake resizer takes it, see TestRequestBeyondInt64 for the CSI one", pvc: claim("a", "9223372036854775809", "8Ei"), pv: volume(claim("a", "2Gi", "8Ei"), "8Ei"),
			wantEvent: "VolumeResizeSuccessful", writes: grown, calls: []string{"9223372036854775809"}},
		{name: "request too large to compare", pvc: claim("a", "1e2000000000", "1Gi"),
			wantEvent: `Warning VolumeResizeFailed cannot resize volume "pv-a": requested size: size with decimal exponent 2000000000 is out of range`},
		{name: "PV capacity too large to compare", pvc: claim("a", "2Gi", "1Gi"), pv: volume(claim("a", "2Gi", "1Gi"), "1e2000000000"),
			wantEvent: `Warning VolumeResizeFailed cannot resize volume "pv-a": PV capacity: size with decimal exponent 2000000000 is out of range`},
		{name: "status capacity of 0 with a huge exponent", pvc: claim("a", "2Gi", "0e2000000000"),
			wantEvent: `Warning VolumeResizeFailed cannot resize volume "pv-a": status capacity: size with decimal exponent 2000000000 is out of range`},
		{name: "allocated size too large to compare", pvc: claim("a", "2Gi", "1Gi", testobj.Allocated("-1e2000000000", v1.PersistentVolumeClaimControllerResizeInProgress)),
			wantEvent: `Warning VolumeResizeFailed cannot resize volume "pv-a": allocated size: size with decimal exponent 2000000000 is out of range`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runHostile(t, tc) })
	}
}

// runHostile syncs tc once, within a deadline, and checks what it did.
func runHostile(t *testing.T, tc hostileCase) {
	t.Helper()
	pv := tc.pv
	if pv == nil {
		pv = volume(tc.pvc, "1Gi")
	}
	e := newEnv(t, nil, objects(tc.pvc, pv))
	_, err := e.syncWithin("a", 10*time.Second)
	if (err != nil) != tc.wantErr {
		t.Errorf("sync error = %v, want error: %v", err, tc.wantErr)
	}
	events := e.events()
	switch {
	case tc.wantEvent == "" && len(events) != 0:
		t.Errorf("events = %q, want none", events)
	case tc.wantEvent != "" && (len(events) == 0 || !strings.Contains(events[len(events)-1], tc.wantEvent)):
		t.Errorf("events = %q, want the last to contain %q", events, tc.wantEvent)
	}
	equal(t, "writes", e.writes(), tc.writes)
	equal(t, "driver calls", e.resizer.targets(), tc.calls)
	checkNoShrink(t, e, tc.pvc, pv)
}

// syncWithin refreshes the caches and syncs one claim, failing the test if
// the sync does not return within d (a hang on a malformed object).
func (e *env) syncWithin(name string, d time.Duration) (time.Duration, error) {
	e.t.Helper()
	e.refresh()
	type result struct {
		after time.Duration
		err   error
	}
	done := make(chan result, 1)
	go func() {
		after, err := e.ctrl.sync(e.ctx, ns+"/"+name)
		done <- result{after, err}
	}()
	select {
	case r := <-done:
		return r.after, r.err
	case <-time.After(d):
		e.t.Fatalf("sync %s did not return within %s", name, d)
		return 0, nil
	}
}

// checkNoShrink fails t when a patch lowered the PV's or the claim's
// capacity below what the objects held before, or wrote a size <= 0.
func checkNoShrink(t *testing.T, e *env, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) {
	t.Helper()
	for _, a := range e.client.Actions() {
		p, ok := a.(clienttesting.PatchAction)
		if !ok {
			continue
		}
		var patch struct {
			Spec struct {
				Capacity map[string]string `json:"capacity"`
			} `json:"spec"`
			Status struct {
				Capacity map[string]string `json:"capacity"`
			} `json:"status"`
		}
		if err := json.Unmarshal(p.GetPatch(), &patch); err != nil {
			t.Fatalf("patch %s: %v", p.GetPatch(), err)
		}
		written, before := patch.Status.Capacity["storage"], pvc.Status.Capacity[v1.ResourceStorage]
		if p.GetResource().Resource == "persistentvolumes" {
			written, before = patch.Spec.Capacity["storage"], pv.Spec.Capacity[v1.ResourceStorage]
		}
		if written == "" {
			continue
		}
		q, err := resource.ParseQuantity(written)
		if err != nil {
			t.Errorf("%s wrote capacity %q: %v", p.GetResource().Resource, written, err)
			continue
		}
		if q.Sign() <= 0 || q.Cmp(before) < 0 {
			t.Errorf("%s capacity written %s, was %s: never shrink, never 0", p.GetResource().Resource, q.String(), before.String())
		}
	}
}

// TestHostileSecretConfiguration drives the secret lookup with a missing
// Secret, a deleted StorageClass and templates that resolve badly or reach
// for another namespace; after the cause is fixed the claim resizes.
func TestHostileSecretConfiguration(t *testing.T) {
	const (
		nameParam = "csi.storage.k8s.io/controller-expand-secret-name"
		nsParam   = "csi.storage.k8s.io/controller-expand-secret-namespace"
	)
	tests := []struct {
		name      string
		pvc       *v1.PersistentVolumeClaim
		pvOpts    []testobj.VolumeOpt
		class     *storageclass
		secrets   []*v1.Secret
		wantEvent string // substring of the only event; "" when the resize goes through
		wantReads []string
		fix       func(e *env) // makes the next sync succeed
	}{
		{name: "StorageClass deleted: no secret, resize proceeds", pvc: claim("a", "2Gi", "1Gi", testobj.InStorageClass("gone")), pvOpts: []testobj.VolumeOpt{testobj.Classes("gone", "")}},
		{name: "Secret missing: event naming it, no call, nothing written", pvc: claim("a", "2Gi", "1Gi"), pvOpts: []testobj.VolumeOpt{expandSecret("vault", "missing")},
			wantEvent: `Warning VolumeResizeFailed expand volume "pv-a" to 2Gi: secret "vault/missing" for volume expansion not found: secrets "missing" not found; the driver is not called without it: retried with backoff`,
			wantReads: []string{"secrets vault/missing"},
			fix: func(e *env) {
				e.must(e.client.Tracker().Add(secret("vault", "missing", map[string]string{"k": "v"})))
			}},
		{name: "name template resolving to an invalid name", pvc: claim("a", "2Gi", "1Gi", testobj.Annotated("x", "../kube-system/admin")), pvOpts: []testobj.VolumeOpt{testobj.Classes("bad", "")},
			class:     &storageclass{"bad", map[string]string{nameParam: "${pvc.annotations['x']}", nsParam: "${pvc.namespace}"}},
			wantEvent: `resolved to "../kube-system/admin", which is not a valid Secret name`,
			fix: func(e *env) {
				pvc := e.claim("a")
				pvc.Annotations["x"] = "expand-creds"
				e.must(e.client.Tracker().Update(v1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), pvc, ns))
				e.must(e.client.Tracker().Add(secret(ns, "expand-creds", map[string]string{"k": "v"})))
			}},
		{name: "namespace template from a user annotation is refused", pvc: claim("a", "2Gi", "1Gi", testobj.Annotated("x", "kube-system")), pvOpts: []testobj.VolumeOpt{testobj.Classes("steal", "")},
			class:     &storageclass{"steal", map[string]string{nameParam: "admin", nsParam: "${pvc.annotations['x']}"}},
			secrets:   []*v1.Secret{secret("kube-system", "admin", map[string]string{"token": "cluster-admin"})},
			wantEvent: `token "${pvc.annotations['x']}" is not allowed in a namespace template`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pv := volume(tc.pvc, "1Gi", tc.pvOpts...)
			objs := objects(tc.pvc, pv)
			if tc.class != nil {
				objs = append(objs, testobj.StorageClass(tc.class.name, driverName, tc.class.params))
			}
			for _, s := range tc.secrets {
				objs = append(objs, s)
			}
			e := newEnv(t, nil, objs)
			_, err := e.syncWithin("a", 10*time.Second)
			equal(t, "secret reads", e.reads(), tc.wantReads)
			checkNoShrink(t, e, tc.pvc, pv)
			if tc.wantEvent == "" {
				if err != nil {
					t.Fatalf("sync: %v", err)
				}
				equal(t, "driver calls", e.resizer.targets(), []string{"2Gi"})
				equal(t, "secrets passed", e.resizer.calls[0].Secrets, map[string]string(nil))
				equal(t, "claim", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
				return
			}
			if err == nil {
				t.Error("sync: want an error, so that the claim is retried")
			}
			events := e.events()
			if len(events) != 1 || !strings.HasPrefix(events[0], "Warning VolumeResizeFailed") || !strings.Contains(events[0], tc.wantEvent) {
				t.Errorf("events = %q, want one VolumeResizeFailed containing %q", events, tc.wantEvent)
			}
			equal(t, "driver calls", e.resizer.targets(), []string(nil))
			equal(t, "writes", e.writes(), []string(nil))
			if tc.fix == nil {
				return
			}
			tc.fix(e)
			e.mustSync("a")
			equal(t, "driver calls once fixed", e.resizer.targets(), []string{"2Gi"})
			equal(t, "claim once fixed", summary(e.claim("a")), "capacity=2Gi allocated=2Gi status=- conditions=[]")
		})
	}
}

// TestClaimUpdatedWithUncomparableSizes runs the update handler, which sees
// every claim of the cluster, on sizes that resource.Quantity.Cmp cannot
// compare in useful time: it must return at once and queue real changes.
func TestClaimUpdatedWithUncomparableSizes(t *testing.T) {
	withRequest := func(rv, request string) *v1.PersistentVolumeClaim {
		c := claim("a", request, "1Gi")
		c.ResourceVersion = rv
		return c
	}
	tests := []struct {
		name     string
		old, cur *v1.PersistentVolumeClaim
		want     bool
	}{
		{name: "request raised to a huge size", old: withRequest("1", "1Gi"), cur: withRequest("2", "1e2000000000"), want: true},
		{name: "huge request lowered", old: withRequest("1", "1e2000000000"), cur: withRequest("2", "2Gi"), want: true},
		{name: "huge request changed to another huge one", old: withRequest("1", "1e2000000000"), cur: withRequest("2", "2e2000000000"), want: true},
		{name: "huge request unchanged", old: withRequest("1", "1e2000000000"), cur: withRequest("2", "1e2000000000"), want: false},
		{name: "huge capacity written", old: withRequest("1", "2Gi"), cur: func() *v1.PersistentVolumeClaim {
			c := withRequest("2", "2Gi")
			c.Status.Capacity[v1.ResourceStorage] = resource.MustParse("1e2000000000")
			return c
		}(), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil, nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				e.ctrl.claimUpdated(slim.NewClaim(tc.old), slim.NewClaim(tc.cur))
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("claimUpdated did not return")
			}
			equal(t, "queued", e.ctrl.queue.Len() == 1, tc.want)
		})
	}
}
