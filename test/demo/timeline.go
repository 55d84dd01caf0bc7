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
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// resize grows the claim to 2Gi and prints the timeline until the claim is
// finished. The demo plays kubelet for the node step, since no kubelet runs
// here.
func resize(ctx context.Context, cluster *framework.Cluster, v framework.Volume) error {
	say("User: kubectl patch pvc %s -p '{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}}}'", claim)
	return follow(ctx, cluster, v, "the resize", func() error {
		return framework.Grow(ctx, cluster.Admin, namespace, claim, "2Gi")
	}, func(pvc *v1.PersistentVolumeClaim) (bool, error) {
		switch {
		case framework.ResizeStatus(pvc) == v1.PersistentVolumeClaimNodeResizePending:
			say("Kubelet (played by the demo): expanding the file system on the node")
			return false, framework.FinishOnNode(ctx, cluster.Admin, namespace, claim)
		case framework.Capacity(pvc) == "2Gi" && len(pvc.Status.Conditions) == 0:
			say("Done: PVC %s/%s has 2Gi", namespace, claim)
			return true, nil
		}
		return false, nil
	})
}

// modify moves the claim to the VolumeAttributesClass fast and prints the
// timeline until the claim reports it.
func modify(ctx context.Context, cluster *framework.Cluster, v framework.Volume) error {
	say("User: kubectl patch pvc %s -p '{\"spec\":{\"volumeAttributesClassName\":\"%s\"}}'", claim, fastClass)
	return follow(ctx, cluster, v, "the class change", func() error {
		return framework.SetAttributesClass(ctx, cluster.Admin, namespace, claim, fastClass)
	}, func(pvc *v1.PersistentVolumeClaim) (bool, error) {
		if framework.CurrentAttributesClass(pvc) == fastClass && pvc.Status.ModifyVolumeStatus == nil {
			say("Done: PVC %s/%s is in class %s", namespace, claim, fastClass)
			return true, nil
		}
		return false, nil
	})
}

// follow does act, then prints every change of the claim, its PV and their
// events until done says the claim is where it should be.
func follow(ctx context.Context, cluster *framework.Cluster, v framework.Volume, what string, act func() error,
	done func(*v1.PersistentVolumeClaim) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	watches, err := watchAll(ctx, cluster, v)
	if err != nil {
		return err
	}
	if err := act(); err != nil {
		return err
	}
	var lastClaim, lastPV string
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not finish: %w", what, ctx.Err())
		case ev := <-watches.events:
			if e, ok := ev.Object.(*v1.Event); ok && ev.Type == watch.Added {
				say("Event   %s %s: %s", e.Type, e.Reason, e.Message)
			}
		case ev := <-watches.volumes:
			if pv, ok := ev.Object.(*v1.PersistentVolume); ok {
				if s := describeVolume(pv); s != lastPV {
					say("PV      %s %s", pv.Name, s)
					lastPV = s
				}
			}
		case ev := <-watches.claims:
			pvc, ok := ev.Object.(*v1.PersistentVolumeClaim)
			if !ok {
				continue
			}
			if s := framework.Describe(pvc); s != lastClaim {
				say("PVC     %s/%s %s", namespace, claim, s)
				lastClaim = s
			}
			if ok, err := done(pvc); ok || err != nil {
				if err == nil {
					lateEvents(watches.events)
				}
				return err
			}
		}
	}
}

// lateEvents prints the events that arrive within a moment: the last event
// of a step is often sent just after the status that ends it.
func lateEvents(events <-chan watch.Event) {
	deadline := time.After(500 * time.Millisecond)
	for {
		select {
		case <-deadline:
			return
		case ev := <-events:
			if e, ok := ev.Object.(*v1.Event); ok && ev.Type == watch.Added {
				say("Event   %s %s: %s", e.Type, e.Reason, e.Message)
			}
		}
	}
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

type watches struct {
	claims, volumes, events <-chan watch.Event
}

func watchAll(ctx context.Context, cluster *framework.Cluster, v framework.Volume) (*watches, error) {
	byName := func(name string) metav1.ListOptions {
		return metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}
	}
	c, err := cluster.Admin.CoreV1().PersistentVolumeClaims(namespace).Watch(ctx, byName(claim))
	if err != nil {
		return nil, err
	}
	p, err := cluster.Admin.CoreV1().PersistentVolumes().Watch(ctx, byName(v.PVName()))
	if err != nil {
		return nil, err
	}
	// Events from now on: those of an earlier step were printed already.
	old, err := cluster.Admin.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	e, err := cluster.Admin.CoreV1().Events(namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: old.ResourceVersion})
	if err != nil {
		return nil, err
	}
	go func() { <-ctx.Done(); c.Stop(); p.Stop(); e.Stop() }()
	return &watches{claims: c.ResultChan(), volumes: p.ResultChan(), events: e.ResultChan()}, nil
}
