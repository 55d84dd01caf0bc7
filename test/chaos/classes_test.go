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
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// attrClass is a VolumeAttributesClass of the run. Every class sets the
// same keys, so that the parameters the backend holds after a modification
// (the driver merges them into those applied before) are exactly the
// class's.
type attrClass struct {
	name   string
	params map[string]string
}

// baseClasses exist from the start of the run.
var baseClasses = []attrClass{
	{name: "chaos-gold", params: map[string]string{"iops": "16000", "throughput": "1000", "tier": "gold"}},
	{name: "chaos-silver", params: map[string]string{"iops": "6000", "throughput": "500", "tier": "silver"}},
	{name: "chaos-bronze", params: map[string]string{"iops": "3000", "throughput": "125", "tier": "bronze"}},
}

// lateClass is asked for in the second wave, before it exists (the claims
// wait, Pending), and created later in the window.
var lateClass = attrClass{name: "chaos-late", params: map[string]string{"iops": "9000", "throughput": "750", "tier": "late"}}

// forDriver is the class of the same parameters for driver's volumes: a
// VolumeAttributesClass names one driver, so the claims of the node share
// have classes of their own, named "node-" and the name.
func (ac attrClass) forDriver(driver string) attrClass {
	if driver == nodeDriver {
		ac.name = "node-" + ac.name
	}
	return ac
}

// classParams maps every class of the run, of both drivers, to its
// parameters.
func classParams() map[string]map[string]string {
	all := map[string]map[string]string{}
	for _, driver := range []string{chaosDriver, nodeDriver} {
		for _, ac := range append(slices.Clone(baseClasses), lateClass) {
			all[ac.forDriver(driver).name] = ac.params
		}
	}
	return all
}

// lateClasses are the names of the late class of each driver.
func lateClasses() []string {
	return []string{lateClass.forDriver(chaosDriver).name, lateClass.forDriver(nodeDriver).name}
}

// createAttrClass creates a VolumeAttributesClass of driver, and retries
// while the API server is away.
func createAttrClass(ctx context.Context, c kubernetes.Interface, driver string, ac attrClass) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, last = c.StorageV1().VolumeAttributesClasses().Create(ctx, &storagev1.VolumeAttributesClass{
			ObjectMeta: metav1.ObjectMeta{Name: ac.name}, DriverName: driver, Parameters: ac.params,
		}, metav1.CreateOptions{})
		return last == nil || apierrors.IsAlreadyExists(last), nil
	})
	if err != nil {
		return fmt.Errorf("create VolumeAttributesClass %s: %w (last error: %v)", ac.name, err, last)
	}
	return nil
}

// classChanges adds the class changes of the current wave to its growths:
// in the first wave every claim that changes class does, later each with a
// chance of one half, to a class other than the one it asked for last. In
// the second wave a third of them ask for the late class, which does not
// exist yet. A claim both grown and given a class gets one patch for both.
func (r *chaosRun) classChanges(grown []claim) (changes []change, classed, both int) {
	grow := map[claim]bool{}
	for _, cl := range grown {
		grow[cl] = true
	}
	classes := map[claim]string{}
	for _, cl := range r.classy {
		if r.wave > 0 && r.classRnd.IntN(2) != 0 {
			continue
		}
		classes[cl] = r.nextClass(cl)
	}
	for _, cl := range r.claims.list {
		class := classes[cl]
		if !grow[cl] && class == "" {
			continue
		}
		changes = append(changes, change{claim: cl, grow: grow[cl], class: class})
		if class != "" {
			classed++
			if grow[cl] {
				both++
			}
		}
	}
	return changes, classed, both
}

// nextClass picks the class a claim changes to, among the classes of its
// volume's driver.
func (r *chaosRun) nextClass(cl claim) string {
	driver := r.claims.driver[cl]
	late := lateClass.forDriver(driver).name
	if r.wave == 1 && r.sched.lateClassAt > 0 && r.lateCreated.IsZero() && r.classRnd.IntN(3) == 0 {
		return late
	}
	current := r.claims.classOf(cl)
	var choices []string
	for _, ac := range baseClasses {
		if name := ac.forDriver(driver).name; name != current {
			choices = append(choices, name)
		}
	}
	if !r.lateCreated.IsZero() && current != late {
		choices = append(choices, late)
	}
	return choices[r.classRnd.IntN(len(choices))]
}

// secondThoughts picks, after the first wave, a fifth of the claims that
// have just changed class to change again after a pause of 0.5 to 2s: the
// resizer is then often at work on the first change (or waiting for a hung
// call to it), and must finish it before it follows the spec.
func (r *chaosRun) secondThoughts(changes []change) ([]change, time.Duration) {
	if r.wave == 0 {
		return nil, 0
	}
	var again []change
	for _, ch := range changes {
		if ch.class != "" && r.classRnd.IntN(5) == 0 {
			again = append(again, change{claim: ch.claim, class: r.nextClass(ch.claim)})
		}
	}
	return again, time.Duration(500+r.classRnd.IntN(1500)) * time.Millisecond
}

// createLate creates the late class of each driver, and says how many
// claims had asked for it and how many of those the resizers had recorded
// as Pending.
func (r *chaosRun) createLate(ctx context.Context) (string, error) {
	admin := r.e.cluster.Admin
	var asked, pending int
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pvcs, err := admin.CoreV1().PersistentVolumeClaims(r.claims.list[0].ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		asked, pending = 0, 0
		for _, pvc := range pvcs.Items {
			class := ptr.Deref(pvc.Spec.VolumeAttributesClassName, "")
			if !slices.Contains(lateClasses(), class) {
				continue
			}
			asked++
			if s := pvc.Status.ModifyVolumeStatus; s != nil && s.TargetVolumeAttributesClassName == class &&
				s.Status == v1.PersistentVolumeClaimModifyVolumePending {
				pending++
			}
		}
		return true, nil
	})
	if err != nil {
		return "", fmt.Errorf("list claims: %w", err)
	}
	for _, driver := range []string{chaosDriver, nodeDriver} {
		if err := createAttrClass(ctx, admin, driver, lateClass.forDriver(driver)); err != nil {
			return "", err
		}
	}
	r.lateCreated = time.Now()
	r.lateAsked, r.latePending = asked, pending
	return fmt.Sprintf("%s: %d claims had asked for them, %d of them recorded Pending", strings.Join(lateClasses(), ", "), asked, pending), nil
}
