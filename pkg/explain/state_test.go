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

package explain

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/csi-resizer/csi-resizer/pkg/controller"
	"github.com/csi-resizer/csi-resizer/pkg/modify"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/resize"
)

// TestStatesAreTheControllers pins ResizeState and ModifyState to the
// states pkg/controller builds: on the same objects, the decisions made on
// them are those a freshly started controller logs ("Decided"), action,
// target and reason alike.
func TestStatesAreTheControllers(t *testing.T) {
	t1 := now.Add(-time.Minute)
	inTree := claim("1Gi", "1Gi", annotated(ownership.ResizerAnnotation, "ebs.csi.aws.com"), classes("gold", ""))
	tests := []struct {
		name    string
		pvc     *v1.PersistentVolumeClaim
		pvSize  string
		vacs    []*storagev1.VolumeAttributesClass
		inTree  bool
		decides string // the driver of the resizer
	}{
		{name: "nothing to do", pvc: claim("1Gi", "1Gi")},
		{name: "a larger request", pvc: claim("2Gi", "1Gi")},
		{name: "in progress", pvc: claim("3Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress), condition(v1.PersistentVolumeClaimResizing, t0, ""))},
		{name: "final error", pvc: claim("3Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimControllerResizeInProgress),
			condition(v1.PersistentVolumeClaimControllerResizeError, t0, "no"))},
		{name: "infeasible", pvc: claim("10Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
			condition(v1.PersistentVolumeClaimControllerResizeError, t0, "no"))},
		{name: "infeasible, lowered", pvc: claim("4Gi", "1Gi", allocated("10Gi", v1.PersistentVolumeClaimControllerResizeInfeasible),
			condition(v1.PersistentVolumeClaimControllerResizeError, t0, "no"))},
		{name: "node pending", pvc: claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizePending)), pvSize: "2Gi"},
		{name: "node pending, the PV behind", pvc: claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizePending))},
		{name: "node infeasible", pvc: claim("2Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizeInfeasible)), pvSize: "2Gi"},
		{name: "node infeasible, raised", pvc: claim("3Gi", "1Gi", allocated("2Gi", v1.PersistentVolumeClaimNodeResizeInfeasible)), pvSize: "2Gi"},
		{name: "allocated above the request", pvc: claim("2Gi", "3Gi", allocated("3Gi", "")), pvSize: "3Gi"},
		{name: "a new class", pvc: claim("1Gi", "1Gi", classes("gold", "silver")), vacs: []*storagev1.VolumeAttributesClass{vac("gold", driver), vac("silver", driver)}},
		{name: "a missing class", pvc: claim("1Gi", "1Gi", classes("gold", ""))},
		{name: "a class of another driver", pvc: claim("1Gi", "1Gi", classes("gold", "")), vacs: []*storagev1.VolumeAttributesClass{vac("gold", "other")}},
		{name: "pending, created since", pvc: claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumePending)),
			vacs: []*storagev1.VolumeAttributesClass{vac("gold", driver)}},
		{name: "uncertain, then another class", pvc: claim("1Gi", "1Gi", classes("silver", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInProgress),
			modifyError("DeadlineExceeded", t1, "timeout")), vacs: []*storagev1.VolumeAttributesClass{vac("gold", driver), vac("silver", driver)}},
		{name: "final failure", pvc: claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInProgress),
			modifyError("Internal", t1, "no")), vacs: []*storagev1.VolumeAttributesClass{vac("gold", driver)}},
		{name: "infeasible class, waiting", pvc: claim("1Gi", "1Gi", classes("gold", "silver"), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInfeasible),
			modifyError("InvalidArgument", t1, "no")), vacs: []*storagev1.VolumeAttributesClass{vac("gold", driver), vac("silver", driver)}},
		{name: "set back", pvc: claim("1Gi", "1Gi", classes("silver", "silver"), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInfeasible),
			modifyError("InvalidArgument", t1, "no")), vacs: []*storagev1.VolumeAttributesClass{vac("gold", driver), vac("silver", driver)}},
		{name: "class deleted mid-way", pvc: claim("1Gi", "1Gi", classes("gold", ""), modifyStatus("gold", v1.PersistentVolumeClaimModifyVolumeInProgress))},
		{name: "in-tree volume migrated", pvc: inTree, inTree: true, decides: "ebs.csi.aws.com",
			vacs: []*storagev1.VolumeAttributesClass{vac("gold", "ebs.csi.aws.com")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.decides
			if d == "" {
				d = driver
			}
			size := tc.pvSize
			if size == "" {
				size = sizeOf(tc.pvc.Status.Capacity)
			}
			pv := volume(tc.pvc, size)
			if tc.inTree {
				awsEBS(pv)
			}
			classDrivers := map[string]string{}
			objs := []runtime.Object{tc.pvc, pv}
			for _, c := range tc.vacs {
				classDrivers[c.Name] = c.DriverName
				objs = append(objs, c)
			}
			gotResize, gotModify := controllerDecisions(t, d, objs)
			r := resize.Decide(ResizeState(tc.pvc, pv, true), now, defaultRetryMax)
			m := modify.Decide(ModifyState(d, tc.pvc, pv, classDrivers), now, defaultRetryMax)
			if want := fmt.Sprintf("%s %s: %s", r.Action, r.Target.String(), r.Reason); gotResize != want {
				t.Errorf("resize: the controller decided %q, explain %q", gotResize, want)
			}
			if want := fmt.Sprintf("%s %s: %s", m.Action, m.Target, m.Reason); gotModify != want {
				t.Errorf("modify: the controller decided %q, explain %q", gotModify, want)
			}
		})
	}
}

// controllerDecisions runs a controller of driver over objs and returns
// the first decisions it logs about the claim, as "action target: reason".
func controllerDecisions(t *testing.T, driverName string, objs []runtime.Object) (resizeDecision, modifyDecision string) {
	t.Helper()
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(4), ktesting.BufferLogs(true)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	client := fake.NewClientset(objs...)
	cfg := controller.Config{
		Driver: driverName, Resizer: refusing{}, Modifier: refusing{}, Client: client, Recorder: record.NewFakeRecorder(1000),
		Claims:           coreinformers.NewPersistentVolumeClaimInformer(client, "", 0, cache.Indexers{}),
		Volumes:          coreinformers.NewPersistentVolumeInformer(client, 0, cache.Indexers{}),
		Classes:          storageinformers.NewStorageClassInformer(client, 0, cache.Indexers{}),
		AttributeClasses: storageinformers.NewVolumeAttributesClassInformer(client, 0, cache.Indexers{}),
		RetryStart:       time.Hour, RetryMax: defaultRetryMax, Recovery: true, Clock: testingclock.NewFakeClock(now),
	}
	ctrl, err := controller.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer func() { cancel(); <-done }()
	for _, inf := range []cache.SharedIndexInformer{cfg.Claims, cfg.Volumes, cfg.Classes, cfg.AttributeClasses} {
		go inf.Run(ctx.Done())
	}
	go func() { defer close(done); _ = ctrl.Run(ctx, 1) }()
	buffer := logger.GetSink().(ktesting.Underlier).GetBuffer()
	err = wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		resizeDecision, modifyDecision = decided(buffer.Data())
		return resizeDecision != "" && modifyDecision != "", nil
	})
	if err != nil {
		t.Fatalf("the controller logged no decisions: %v\n%s", err, buffer.String())
	}
	return resizeDecision, modifyDecision
}

// decided reads the first "Decided" entry of each operation from log.
func decided(log ktesting.Log) (resizeDecision, modifyDecision string) {
	for _, e := range log {
		if e.Message != "Decided" {
			continue
		}
		kv := map[string]any{}
		for i := 0; i+1 < len(e.ParameterKVList); i += 2 {
			kv[fmt.Sprint(e.ParameterKVList[i])] = e.ParameterKVList[i+1]
		}
		line := fmt.Sprintf("%v %v: %v", kv["action"], kv["target"], kv["reason"])
		switch {
		case kv["operation"] == "resize" && resizeDecision == "":
			resizeDecision = line
		case kv["operation"] == "modify" && modifyDecision == "":
			modifyDecision = line
		}
	}
	return resizeDecision, modifyDecision
}

// refusing is a driver that refuses every call, so that the controller,
// having decided, changes nothing the test looks at.
type refusing struct{}

var errRefused = errors.New("refused by the test")

func (refusing) Expand(context.Context, *v1.PersistentVolume, resource.Quantity, map[string]string) (resource.Quantity, bool, error) {
	return resource.Quantity{}, false, errRefused
}

func (refusing) UsesSecrets() bool { return false }

func (refusing) Modify(context.Context, *v1.PersistentVolume, map[string]string, map[string]string) error {
	return errRefused
}
