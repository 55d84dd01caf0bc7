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

package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// kubeletResized is the reason of kubelet's event once NodeExpandVolume
// succeeded (Kubernetes' events.FileSystemResizeSuccessful).
const kubeletResized = "FileSystemResizeSuccessful"

// resize grows the claim to 2Gi and prints the timeline until kubelet has
// finished it: the resizer expands the volume and hands the claim to
// kubelet, which expands it on the node and records the new capacity.
func (d *demo) resize(ctx context.Context) error {
	say("User: kubectl patch pvc %s -p '{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}}}'", claim)
	return d.follow(ctx, "the resize", func() error {
		return framework.Grow(ctx, d.user, namespace, claim, "2Gi")
	}, func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.Capacity(pvc) == "2Gi" && len(pvc.Status.Conditions) == 0 && len(pvc.Status.AllocatedResourceStatuses) == 0
	}, kubeletResized)
}

// modify moves the claim to the VolumeAttributesClass fast and prints the
// timeline until the claim reports it.
func (d *demo) modify(ctx context.Context) error {
	say("User: kubectl patch pvc %s -p '{\"spec\":{\"volumeAttributesClassName\":\"%s\"}}'", claim, fastClass)
	return d.follow(ctx, "the class change", func() error {
		return framework.SetAttributesClass(ctx, d.user, namespace, claim, fastClass)
	}, func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.CurrentAttributesClass(pvc) == fastClass && pvc.Status.ModifyVolumeStatus == nil
	}, events.ReasonModifySuccessful)
}

// follow does act, then prints every change of the claim, its PV and the
// events of the namespace, and the driver's calls, until done holds for
// the claim and the events of the reasons last have come (the last event
// of a step is often sent just after the status that ends it).
func (d *demo) follow(ctx context.Context, what string, act func() error, done func(*v1.PersistentVolumeClaim) bool, last ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	w, err := d.watch(ctx)
	if err != nil {
		return err
	}
	if err := act(); err != nil {
		return err
	}
	var out lines
	defer func() { out.flush(time.Now()) }()
	// The driver's calls are in a file: read it every tenth of a second.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	waiting := sets.New(last...)
	finished := false
	for !finished || len(waiting) > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not finish (claim finished: %t; events awaited: %v): %w", what, finished, sets.List(waiting), ctx.Err())
		case <-tick.C:
			if err := d.readCalls(&out); err != nil {
				return err
			}
			out.flush(time.Now().Add(-holdBack))
		case ev, ok := <-w.events:
			if !ok {
				return fmt.Errorf("%s: the watch of events ended", what)
			}
			if e, ok := ev.Object.(*v1.Event); ok && ev.Type == watch.Added {
				out.add(time.Now(), "Event   %s %s %s/%s, from %s: %s", e.Type, e.Reason, e.InvolvedObject.Kind, e.InvolvedObject.Name, eventSource(e), e.Message)
				waiting.Delete(e.Reason)
			}
		case ev, ok := <-w.volumes:
			if !ok {
				return fmt.Errorf("%s: the watch of the PV ended", what)
			}
			if pv, ok := ev.Object.(*v1.PersistentVolume); ok {
				d.addVolume(&out, pv)
			}
		case ev, ok := <-w.claims:
			if !ok {
				return fmt.Errorf("%s: the watch of the claim ended", what)
			}
			if pvc, ok := ev.Object.(*v1.PersistentVolumeClaim); ok {
				d.addClaim(&out, pvc)
				finished = done(pvc)
			}
		}
	}
	if err := d.readCalls(&out); err != nil {
		return err
	}
	out.add(time.Now(), "Done: %s of PVC %s/%s", what, namespace, claim)
	return nil
}

// addClaim adds the claim when its summary changed, and who wrote it. The
// writer is told against the version just before, printed or not.
func (d *demo) addClaim(out *lines, pvc *v1.PersistentVolumeClaim) {
	before := d.lastClaim
	d.lastClaim = pvc
	if before == nil || before.ResourceVersion == pvc.ResourceVersion {
		return // the watch begins with the version printed last
	}
	if s := framework.Describe(pvc); s != framework.Describe(before) {
		out.add(time.Now(), "PVC     %s/%s %s%s", namespace, claim, s, byWriter(before.ManagedFields, pvc.ManagedFields))
	}
	if framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending && framework.ResizeStatus(before) != v1.PersistentVolumeClaimNodeResizePending {
		out.add(time.Now(), "        kubelet's turn: it expands the volume on the node at its next sync of pod %s/%s, seconds from now", namespace, pod)
	}
}

// addVolume adds the PV when its summary changed, and who wrote it.
func (d *demo) addVolume(out *lines, pv *v1.PersistentVolume) {
	before := d.lastPV
	d.lastPV = pv
	if before == nil || before.ResourceVersion == pv.ResourceVersion {
		return
	}
	if s := describeVolume(pv); s != describeVolume(before) {
		out.add(time.Now(), "PV      %s %s%s", pv.Name, s, byWriter(before.ManagedFields, pv.ManagedFields))
	}
}

// watches are the watches of one step.
type watches struct {
	claims, volumes, events <-chan watch.Event
}

// watch watches the claim, its PV and the events of the namespace from
// now on: those of an earlier step were printed already. The watches end
// with ctx.
func (d *demo) watch(ctx context.Context) (*watches, error) {
	core := d.cluster.Admin.CoreV1()
	c, err := core.PersistentVolumeClaims(namespace).Watch(ctx, byName(claim))
	if err != nil {
		return nil, err
	}
	p, err := core.PersistentVolumes().Watch(ctx, byName(d.volume.PVName()))
	if err != nil {
		return nil, err
	}
	old, err := core.Events(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	e, err := core.Events(namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: old.ResourceVersion})
	if err != nil {
		return nil, err
	}
	return &watches{claims: c.ResultChan(), volumes: p.ResultChan(), events: e.ResultChan()}, nil
}

func byName(name string) metav1.ListOptions {
	return metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}
}

// describeVolume is a one-line summary of a PV: capacity, and class when set.
func describeVolume(pv *v1.PersistentVolume) string {
	size := pv.Spec.Capacity[v1.ResourceStorage]
	s := "capacity=" + size.String()
	if c := pv.Spec.VolumeAttributesClassName; c != nil {
		s += " class=" + *c
	}
	return s
}

// holdBack is how long a line waits before it is printed: the driver's
// call log is read every tenth of a second, so a call is read up to then
// after it ended, which is before the writes it caused were seen.
const holdBack = 250 * time.Millisecond

// lines are the lines of the timeline not printed yet, each with the time
// it tells of; they are printed in that order.
type lines []line

type line struct {
	at   time.Time
	text string
}

// add holds back a line about what happened at at.
func (l *lines) add(at time.Time, format string, args ...any) {
	*l = append(*l, line{at: at, text: fmt.Sprintf(format, args...)})
}

// flush prints, in order, the lines of what happened before until.
func (l *lines) flush(until time.Time) {
	slices.SortStableFunc(*l, func(a, b line) int { return a.at.Compare(b.at) })
	n := 0
	for _, p := range *l {
		if p.at.After(until) {
			break
		}
		sayAt(p.at, "%s", p.text)
		n++
	}
	*l = (*l)[n:]
}
