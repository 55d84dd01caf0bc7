//go:build chaos

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

package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// initialGi is the size of every claim when it is created.
const initialGi = 1

func gi(n int) int64 { return int64(n) << 30 }

// claim is one bound claim of the run.
type claim struct {
	ns, name string
}

func (c claim) handle() string { return "vol-" + c.ns + "-" + c.name }
func (c claim) pv() string     { return "pv-" + c.ns + "-" + c.name }

// claims are the claims of a run, the size each was last grown to and the
// class each last asked for.
type claims struct {
	list []claim
	// driver is the CSI driver of each claim's volume; fixed once created.
	driver map[claim]string
	mu     sync.Mutex
	want   map[claim]int64 // bytes
	// highest is the largest request each claim ever made: the size its
	// PV and backend end at, as a PV never shrinks (a lowered request
	// leaves them at the size asked before).
	highest map[claim]int64
	grown   int // requests raised so far
	lowered int // requests lowered so far
	// raised counts each claim's raised requests.
	raised map[claim]int
	// class is the VolumeAttributesClass each claim last asked for; a claim
	// that never asked for one is absent.
	class map[claim]string
	// asks are the class changes asked, in the order they were answered.
	asks []classAsk
}

// classAsk is one change of a claim's spec.volumeAttributesClassName.
type classAsk struct {
	claim claim
	class string
	// grown is true when the same patch raised the request.
	grown bool
	// at is when the API server answered the patch.
	at time.Time
}

// change is what a wave asks of one claim: a request raised by 1Gi, a new
// class, or both in one patch (so that the resizer sees both at once). The
// node share's recovery sets a request to a size instead (to), lowered or
// raised.
type change struct {
	claim claim
	grow  bool
	to    int64  // when set, the request's new size in bytes, in place of grow
	class string // "" keeps the class
}

// createClaims creates n bound claims of initialGi in namespace ns (created
// unless it exists), volumes of driver.
func createClaims(ctx context.Context, c kubernetes.Interface, ns, driver string, n int) (*claims, error) {
	return createClaimsOn(ctx, c, ns, n, func(int) string { return driver })
}

// createClaimsOn creates n bound claims of initialGi in namespace ns
// (created unless it exists); claim i is a volume of driverOf(i), with an
// expandable StorageClass of that driver, named after it.
func createClaimsOn(ctx context.Context, c kubernetes.Interface, ns string, n int, driverOf func(i int) string) (*claims, error) {
	if err := framework.CreateNamespace(ctx, c, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	cs := &claims{want: map[claim]int64{}, highest: map[claim]int64{}, raised: map[claim]int{}, class: map[claim]string{}, driver: map[claim]string{}}
	storageClasses := map[string]bool{}
	for i := range n {
		cl := claim{ns: ns, name: fmt.Sprintf("data-%03d", i)}
		cs.list = append(cs.list, cl)
		cs.want[cl], cs.highest[cl] = gi(initialGi), gi(initialGi)
		driver := driverOf(i)
		if !storageClasses[driver] {
			if err := framework.CreateClass(ctx, c, driver, driver, nil); err != nil {
				return nil, err
			}
			storageClasses[driver] = true
		}
		cs.driver[cl] = driver
	}
	err := framework.Parallel(ctx, n, 8, func(ctx context.Context, i int) error {
		cl := cs.list[i]
		driver := cs.driver[cl]
		_, err := framework.CreateBound(ctx, c, framework.Volume{
			Namespace: ns, Claim: cl.name, Class: driver, Driver: driver, Handle: cl.handle(),
			Size: fmt.Sprintf("%dGi", initialGi),
		})
		return err
	}, nil)
	return cs, err
}

// of lists the claims whose volumes are of driver.
func (cs *claims) of(driver string) []claim {
	var out []claim
	for _, cl := range cs.list {
		if cs.driver[cl] == driver {
			out = append(out, cl)
		}
	}
	return out
}

// grow raises the request of each picked claim by 1Gi, as users do, and
// retries while the API server is away.
func (cs *claims) grow(ctx context.Context, c kubernetes.Interface, picked []claim) error {
	changes := make([]change, len(picked))
	for i, cl := range picked {
		changes[i] = change{claim: cl, grow: true}
	}
	return cs.apply(ctx, c, changes)
}

// apply makes each change with one patch of the claim's spec, as users do,
// and retries while the API server is away.
func (cs *claims) apply(ctx context.Context, c kubernetes.Interface, changes []change) error {
	return framework.Parallel(ctx, len(changes), 16, func(ctx context.Context, i int) error {
		ch := changes[i]
		cl := ch.claim
		cs.mu.Lock()
		size := cs.want[cl] + gi(1)
		cs.mu.Unlock()
		if ch.to > 0 {
			size = ch.to
		}
		resize := ch.grow || ch.to > 0
		spec := map[string]any{}
		var what []string
		if resize {
			request := quantity(size)
			spec["resources"] = map[string]any{"requests": map[string]string{"storage": request}}
			what = append(what, "request "+request)
		}
		if ch.class != "" {
			spec["volumeAttributesClassName"] = ch.class
			what = append(what, fmt.Sprintf("class %s", ch.class))
		}
		patch, err := json.Marshal(map[string]any{"spec": spec})
		if err != nil {
			return err
		}
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := c.CoreV1().PersistentVolumeClaims(cl.ns).Patch(ctx, cl.name, types.MergePatchType, patch, metav1.PatchOptions{})
			return err == nil, nil
		})
		if err != nil {
			return fmt.Errorf("%s %s/%s: %w", strings.Join(what, ", "), cl.ns, cl.name, err)
		}
		at := time.Now()
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if resize {
			cs.setLocked(cl, size)
		}
		if ch.class != "" {
			cs.class[cl] = ch.class
			cs.asks = append(cs.asks, classAsk{claim: cl, class: ch.class, grown: ch.grow, at: at})
		}
		return nil
	}, nil)
}

// setLocked records a claim's new request. cs.mu must be held.
func (cs *claims) setLocked(cl claim, size int64) {
	if size < cs.want[cl] {
		cs.lowered++
	} else {
		cs.grown++
		cs.raised[cl]++
	}
	cs.want[cl], cs.highest[cl] = size, max(cs.highest[cl], size)
}

// classOf is the class a claim last asked for, "" when it never asked.
func (cs *claims) classOf(cl claim) string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.class[cl]
}

// classes returns the class each claim last asked for; a claim that never
// asked is absent.
func (cs *claims) classes() map[claim]string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return maps.Clone(cs.class)
}

// classAsks returns the class changes asked so far.
func (cs *claims) classAsks() []classAsk {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return slices.Clone(cs.asks)
}

// sizes returns the size in bytes each claim last asked for.
func (cs *claims) sizes() map[claim]int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return maps.Clone(cs.want)
}

// highestSizes returns the largest size in bytes each claim ever asked
// for: where its PV and backend end.
func (cs *claims) highestSizes() map[claim]int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return maps.Clone(cs.highest)
}

// growths is how many requests were raised.
func (cs *claims) growths() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.grown
}

// raisesOf is how many requests of the claims were raised.
func (cs *claims) raisesOf(claims []claim) int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	n := 0
	for _, cl := range claims {
		n += cs.raised[cl]
	}
	return n
}

// lowers is how many requests were lowered.
func (cs *claims) lowers() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.lowered
}

// listing is the claims and PVs as the API server has them.
type listing struct {
	pvcs []v1.PersistentVolumeClaim
	pvs  map[string]*v1.PersistentVolume
}

// listAll lists the claims of the run and every PV.
func (cs *claims) listAll(ctx context.Context, c kubernetes.Interface) (*listing, error) {
	pvcs, err := c.CoreV1().PersistentVolumeClaims(cs.list[0].ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pvs, err := c.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	l := &listing{pvcs: pvcs.Items, pvs: map[string]*v1.PersistentVolume{}}
	for i := range pvs.Items {
		l.pvs[pvs.Items[i].Name] = &pvs.Items[i]
	}
	return l, nil
}

// unfinished lists the claims that are not finished at their requested
// size: claim status, PV and backend all at the request, nothing in
// progress. An error means the state could not be read.
func (cs *claims) unfinished(ctx context.Context, c kubernetes.Interface, backend map[string]int64) ([]string, error) {
	l, err := cs.listAll(ctx, c)
	if err != nil {
		return nil, err
	}
	return cs.sizeProblems(l, backend), nil
}

// sizeProblems lists the claims of l that are not finished at their
// requested size, their PV and backend at the largest size they asked for;
// backend, when not nil, holds the backend's volume sizes.
func (cs *claims) sizeProblems(l *listing, backend map[string]int64) []string {
	want, highest := cs.sizes(), cs.highestSizes()
	pvSize := map[string]int64{}
	for name, pv := range l.pvs {
		q := pv.Spec.Capacity[v1.ResourceStorage]
		pvSize[name] = q.Value()
	}
	var problems []string
	seen := 0
	for i := range l.pvcs {
		pvc := &l.pvcs[i]
		cl := claim{ns: pvc.Namespace, name: pvc.Name}
		size, ok := want[cl]
		if !ok {
			continue
		}
		seen++
		request := pvc.Spec.Resources.Requests[v1.ResourceStorage]
		capacity := pvc.Status.Capacity[v1.ResourceStorage]
		switch {
		case request.Value() != size:
			problems = append(problems, fmt.Sprintf("%s: request %s, want %d bytes", pvc.Name, request.String(), size))
		case capacity.Value() != size || framework.ResizeStatus(pvc) != "" || slices.ContainsFunc(pvc.Status.Conditions, notModify):
			problems = append(problems, fmt.Sprintf("%s: %s", pvc.Name, framework.Describe(pvc)))
		case pvSize[cl.pv()] != highest[cl]:
			problems = append(problems, fmt.Sprintf("%s: PV capacity %d bytes, want %d", pvc.Name, pvSize[cl.pv()], highest[cl]))
		case backend != nil && backend[cl.handle()] != highest[cl]:
			problems = append(problems, fmt.Sprintf("%s: backend volume %d bytes, want %d", pvc.Name, backend[cl.handle()], highest[cl]))
		}
	}
	if seen != len(want) {
		problems = append(problems, fmt.Sprintf("%d of %d claims listed", seen, len(want)))
	}
	return problems
}

// waitFinished polls until every claim is finished at its requested size
// and class, and returns when that was first seen, or the last problems
// after timeout.
func (cs *claims) waitFinished(ctx context.Context, c kubernetes.Interface, timeout time.Duration) (time.Time, []string) {
	_, done, problems := cs.waitFinishedAll(ctx, c, timeout)
	return done, problems
}

// waitFinishedAll is waitFinished that also says when every claim was
// first seen finished at its requested size (sized), classes apart.
func (cs *claims) waitFinishedAll(ctx context.Context, c kubernetes.Interface, timeout time.Duration) (sized, done time.Time, problems []string) {
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		l, err := cs.listAll(ctx, c)
		if err != nil {
			return false, nil // the API server may be restarting
		}
		sizes := cs.sizeProblems(l, nil)
		if len(sizes) == 0 && sized.IsZero() {
			sized = time.Now()
		}
		problems = append(sizes, cs.classProblems(l)...)
		return len(problems) == 0, nil
	})
	if err != nil {
		return sized, time.Time{}, problems
	}
	return sized, time.Now(), nil
}
