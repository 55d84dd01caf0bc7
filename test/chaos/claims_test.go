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
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// claims are the claims of a run and the size each was last grown to.
type claims struct {
	list  []claim
	mu    sync.Mutex
	want  map[claim]int // Gi
	grown int           // requests raised so far
}

// createClaims creates n bound claims of initialGi in a new namespace with
// an expandable class of driver.
func createClaims(ctx context.Context, c kubernetes.Interface, ns, driver string, n int) (*claims, error) {
	if err := framework.CreateNamespace(ctx, c, ns); err != nil {
		return nil, err
	}
	if err := framework.CreateClass(ctx, c, ns, driver, nil); err != nil {
		return nil, err
	}
	cs := &claims{want: map[claim]int{}}
	for i := range n {
		cl := claim{ns: ns, name: fmt.Sprintf("data-%03d", i)}
		cs.list = append(cs.list, cl)
		cs.want[cl] = initialGi
	}
	err := framework.Parallel(ctx, n, 8, func(ctx context.Context, i int) error {
		cl := cs.list[i]
		_, err := framework.CreateBound(ctx, c, framework.Volume{
			Namespace: ns, Claim: cl.name, Class: ns, Driver: driver, Handle: cl.handle(),
			Size: fmt.Sprintf("%dGi", initialGi),
		})
		return err
	}, nil)
	return cs, err
}

// grow raises the request of each picked claim by 1Gi, as users do, and
// retries while the API server is away.
func (cs *claims) grow(ctx context.Context, c kubernetes.Interface, picked []claim) error {
	return framework.Parallel(ctx, len(picked), 16, func(ctx context.Context, i int) error {
		cl := picked[i]
		cs.mu.Lock()
		size := cs.want[cl] + 1
		cs.mu.Unlock()
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			return framework.Grow(ctx, c, cl.ns, cl.name, fmt.Sprintf("%dGi", size)) == nil, nil
		})
		if err != nil {
			return fmt.Errorf("grow %s/%s to %dGi: %w", cl.ns, cl.name, size, err)
		}
		cs.mu.Lock()
		cs.want[cl] = size
		cs.grown++
		cs.mu.Unlock()
		return nil
	}, nil)
}

// growths is how many requests were raised.
func (cs *claims) growths() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.grown
}

// unfinished lists the claims that are not finished at their requested
// size: claim status, PV and backend all at the request, nothing in
// progress. An error means the state could not be read.
func (cs *claims) unfinished(ctx context.Context, c kubernetes.Interface, backend map[string]int64) ([]string, error) {
	cs.mu.Lock()
	want := make(map[claim]int64, len(cs.want))
	for cl, size := range cs.want {
		want[cl] = gi(size)
	}
	cs.mu.Unlock()
	pvcs, err := c.CoreV1().PersistentVolumeClaims(cs.list[0].ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pvs, err := c.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pvSize := map[string]int64{}
	for _, pv := range pvs.Items {
		q := pv.Spec.Capacity[v1.ResourceStorage]
		pvSize[pv.Name] = q.Value()
	}
	var problems []string
	seen := 0
	for i := range pvcs.Items {
		pvc := &pvcs.Items[i]
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
		case capacity.Value() != size || framework.ResizeStatus(pvc) != "" || len(pvc.Status.Conditions) > 0:
			problems = append(problems, fmt.Sprintf("%s: %s", pvc.Name, framework.Describe(pvc)))
		case pvSize[cl.pv()] != size:
			problems = append(problems, fmt.Sprintf("%s: PV capacity %d bytes, want %d", pvc.Name, pvSize[cl.pv()], size))
		case backend != nil && backend[cl.handle()] != size:
			problems = append(problems, fmt.Sprintf("%s: backend volume %d bytes, want %d", pvc.Name, backend[cl.handle()], size))
		}
	}
	if seen != len(want) {
		problems = append(problems, fmt.Sprintf("%d of %d claims listed", seen, len(want)))
	}
	return problems, nil
}

// waitFinished polls until every claim is finished and returns when that
// was first seen, or the last problems after timeout.
func (cs *claims) waitFinished(ctx context.Context, c kubernetes.Interface, timeout time.Duration) (time.Time, []string) {
	var problems []string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		p, err := cs.unfinished(ctx, c, nil)
		if err != nil {
			return false, nil // the API server may be restarting
		}
		problems = p
		return len(p) == 0, nil
	})
	if err != nil {
		return time.Time{}, problems
	}
	return time.Now(), nil
}
