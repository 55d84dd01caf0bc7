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
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-resizer/csi-resizer/test/testobj"
)

func TestModifyMissingClassPends(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	e := newModifyEnv(t, nil, objects(pvc, volume(pvc, "1Gi")))
	equal(t, "requeue after", e.mustSync("a"), time.Duration(0))
	equal(t, "claim", modifySummary(e.claim("a")), pendingGold)
	equal(t, "writes", e.writes(), []string{claimStatusWrite})
	equal(t, "events", e.events(), []string{`Warning VolumeModifyFailed VolumeAttributesClass "gold" does not exist: the modification starts when it is created`})
	equal(t, "driver calls", len(e.modifier.targets()), 0)

	// Looking again changes nothing and says nothing again.
	e.clearActions()
	e.clock.Step(time.Minute)
	e.mustSync("a")
	equal(t, "writes while pending", e.writes(), []string(nil))
	equal(t, "events while pending", e.events(), []string(nil))

	// The creation of the awaited class queues the claim; another class's
	// does not.
	e.ctrl.classCreated(attributeClass(silver, driverName))
	equal(t, "queued by another class", e.ctrl.queue.Len(), 0)
	e.ctrl.classCreated(attributeClass(gold, driverName))
	equal(t, "queued by the awaited class", e.ctrl.queue.Len(), 1)
	key, _ := e.ctrl.queue.Get()
	equal(t, "queued key", key, ns+"/a")
	e.ctrl.queue.Done(key)

	// A class deleted and created again while the watch was down comes back
	// from the relist as an update with a new UID: the same as a creation.
	// An update of the same class queues nothing.
	old, replaced := attributeClass(gold, driverName), attributeClass(gold, driverName)
	old.UID, replaced.UID = "uid-1", "uid-2"
	e.ctrl.classReplaced(old, old)
	equal(t, "queued by an update of the same class", e.ctrl.queue.Len(), 0)
	e.ctrl.classReplaced(old, replaced)
	equal(t, "queued by the class created again", e.ctrl.queue.Len(), 1)
}

// TestModifyStartsWhenClassCreated runs the controller on its informers:
// the claim waits for its class, then the class is created and nothing
// else happens to the claim; the VolumeAttributesClass informer's event
// alone must start the modification.
func TestModifyStartsWhenClassCreated(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	e := newModifyEnv(t, nil, objects(pvc, volume(pvc, "1Gi")))
	stop := runInformers(t, e.ctrl)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- e.ctrl.Run(ctx, 2) }()
	defer func() {
		cancel()
		<-done
		close(stop)
	}()

	waitFor(t, "claim pending", func() bool { return modifySummary(e.claim("a")) == pendingGold })
	// Nothing but the class can start the modification now: the controller
	// decides to pend with nothing left to write, and no retry is queued.
	p := e.idle(t, "a")
	equal(t, "decision while pending", fmt.Sprintf("%s %s intent=%v", p.Modify.Action, p.Modify.Target, p.Modify.RecordIntent), "pend gold intent=false")
	equal(t, "retries queued while pending", e.ctrl.queue.NumRequeues(ns+"/a"), 0)
	equal(t, "driver calls while pending", len(e.modifier.targets()), 0)

	e.createClass(attributeClass(gold, driverName))
	waitFor(t, "claim modified", func() bool { return modifySummary(e.claim("a")) == atGold })
	equal(t, "driver calls", e.modifier.targets(), []string{gold})
	equal(t, "PV class", pvClass(e.volume("pv-a")), gold)
}

// runInformers starts the informers of c; closing the channel stops them.
func runInformers(t *testing.T, c *Controller) chan struct{} {
	t.Helper()
	stop := make(chan struct{})
	informers := []cache.SharedIndexInformer{c.Claims, c.Volumes, c.Classes}
	if c.AttributeClasses != nil {
		informers = append(informers, c.AttributeClasses)
	}
	for _, inf := range informers {
		go inf.Run(stop)
	}
	return stop
}

func TestModifyRefusesClassOfAnotherDriver(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	e := newModifyEnv(t, nil, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, otherDriver)))
	equal(t, "requeue after", e.mustSync("a"), time.Duration(0))
	equal(t, "driver calls", len(e.modifier.targets()), 0)
	got := e.claim("a")
	equal(t, "claim", modifySummary(got), refusedGold)
	if c := modifyError(got); c == nil || c.Reason != "InvalidArgument" {
		t.Errorf("ModifyVolumeError %+v, want reason InvalidArgument", c)
	}
	equal(t, "events", e.events(), []string{`Warning VolumeModifyFailed VolumeAttributesClass "gold" is for driver "other.csi.example.com", not "test.csi.example.com": set a class of driver "test.csi.example.com"`})

	// The refusal is recorded once: looking again later writes and says
	// nothing new.
	e.clearActions()
	e.clock.Step(10 * time.Minute)
	e.mustSync("a")
	equal(t, "writes when looking again", e.writes(), []string(nil))
	equal(t, "events when looking again", e.events(), []string(nil))
	equal(t, "driver calls when looking again", len(e.modifier.targets()), 0)
}

// TestModifyRefusesInTreeVolume: an in-tree EBS volume migrated to CSI is
// ours to expand, but Kubernetes allows a class on CSI volumes only: the
// class is refused, once, with no call.
func TestModifyRefusesInTreeVolume(t *testing.T) {
	const ebs = "ebs.csi.aws.com"
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""), testobj.Annotated("volume.kubernetes.io/storage-resizer", ebs))
	pv := volume(pvc, "1Gi", func(pv *v1.PersistentVolume) {
		pv.Spec.CSI = nil
		pv.Spec.AWSElasticBlockStore = &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "aws://us-east-1a/vol-0123"}
	})
	e := newModifyEnv(t, nil, objects(pvc, pv, attributeClass(gold, ebs)), func(c *Config) { c.Driver = ebs })
	e.mustSync("a")
	equal(t, "driver calls", len(e.modifier.targets()), 0)
	equal(t, "claim", modifySummary(e.claim("a")), refusedGold)
	equal(t, "events", e.events(), []string{`Warning VolumeModifyFailed volume "pv-a" is an in-tree volume migrated to CSI: Kubernetes allows a VolumeAttributesClass on CSI volumes only`})

	e.clearActions()
	e.clock.Step(10 * time.Minute)
	e.mustSync("a")
	equal(t, "writes when looking again", e.writes(), []string(nil))
	equal(t, "events when looking again", e.events(), []string(nil))
}

// TestModifyBlockedUntilClassReturns: the class of a modification that may
// still be running in the backend is deleted. Nothing may be sent (another
// class would race with it, and its parameters are gone) until the class is
// created again, whose creation queues the claim.
func TestModifyBlockedUntilClassReturns(t *testing.T) {
	pvc := claim("a", "1Gi", "1Gi", testobj.AttributesClasses(gold, ""))
	m := &fakeModifier{script: []error{status.Error(codes.DeadlineExceeded, "slow")}}
	e := newModifyEnv(t, m, objects(pvc, volume(pvc, "1Gi"), attributeClass(gold, driverName), attributeClass(silver, driverName)))
	if _, err := e.sync("a"); err == nil {
		t.Fatal("want the failure to be retried")
	}
	e.must(e.client.StorageV1().VolumeAttributesClasses().Delete(e.ctx, gold, metav1.DeleteOptions{}))
	e.setClass("a", silver)
	e.events()

	restarted := e.restart(m)
	restarted.clearActions()
	equal(t, "requeue after", restarted.mustSync("a"), time.Duration(0))
	equal(t, "driver calls while blocked", m.targets(), []string{gold})
	equal(t, "writes while blocked", restarted.writes(), []string(nil))
	equal(t, "events while blocked", restarted.events(), []string{`Warning VolumeModifyFailed the unfinished modification to class "gold" cannot be retried: the VolumeAttributesClass no longer exists; create it again`})
	equal(t, "claim while blocked", modifySummary(restarted.claim("a")), "spec=silver current=- modify=InProgress:gold conditions=[ModifyVolumeError,ModifyingVolume]")

	restarted.refresh()
	restarted.ctrl.classCreated(attributeClass(gold, driverName))
	equal(t, "queued by the class's return", restarted.ctrl.queue.Len(), 1)
	restarted.createClass(attributeClass(gold, driverName))
	restarted.mustSync("a")
	restarted.mustSync("a")
	equal(t, "driver calls", m.targets(), []string{gold, gold, silver})
	equal(t, "claim", modifySummary(restarted.claim("a")), "spec=silver current=silver modify=- conditions=[]")
}
