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

package decide

import (
	"fmt"
	"maps"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-resizer/csi-resizer/pkg/claimstatus"
)

// Recorded is pvc.status.modifyVolumeStatus.
type Recorded struct {
	Target string
	Status v1.PersistentVolumeClaimModifyVolumeStatus
}

// ModifyState is everything the decision looks at.
type ModifyState struct {
	// Driver is this resizer's driver name.
	Driver string
	// Spec is pvc.spec.volumeAttributesClassName, "" when unset.
	Spec string
	// Current is pvc.status.currentVolumeAttributesClassName, "" when unset.
	Current string
	// Recorded is pvc.status.modifyVolumeStatus, nil when unset.
	Recorded *Recorded
	// Modifying is true when the claim carries the ModifyingVolume condition.
	Modifying bool
	// ErrorCode is the gRPC code's name the ModifyVolumeError condition
	// records as its reason, and ErrorAt when; "" when there is none.
	ErrorCode string
	ErrorAt   time.Time
	// LastFailure is the remembered failure of the last attempt, if any.
	LastFailure *ModifyFailure
	// Classes maps the names of the classes the decision may need (the
	// spec's and the recorded target's) to their driver; a class that does
	// not exist is absent.
	Classes map[string]string
	// NotCSI explains why the volume cannot carry a class (an in-tree volume
	// migrated to CSI); "" for CSI volumes.
	NotCSI string
}

// ClassDriver returns the driver of the VolumeAttributesClass called name;
// ok is false when no such class exists.
type ClassDriver func(name string) (driver string, ok bool)

// ModifyStateOf reads the state the resizer of driver decides on for pvc and
// its volume pv. classes looks up the classes the claim names; last is the
// remembered last failed modification (nil after a restart, or for a reader
// that is not the resizer).
func ModifyStateOf(driver string, pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, classes ClassDriver, last *ModifyFailure) ModifyState {
	s := ModifyState{
		Driver:      driver,
		Spec:        ptr.Deref(pvc.Spec.VolumeAttributesClassName, ""),
		Current:     ptr.Deref(pvc.Status.CurrentVolumeAttributesClassName, ""),
		Modifying:   claimstatus.Modifying(pvc),
		LastFailure: last,
		Classes:     map[string]string{},
	}
	if r := pvc.Status.ModifyVolumeStatus; r != nil {
		s.Recorded = &Recorded{Target: r.TargetVolumeAttributesClassName, Status: r.Status}
	}
	if reason, at, ok := claimstatus.RecordedModifyError(pvc); ok {
		s.ErrorCode, s.ErrorAt = reason, at
		if reason == "" {
			s.ErrorCode = ReasonUncertain
		}
	}
	for _, name := range []string{s.Spec, ptr.Deref(pvc.Status.ModifyVolumeStatus, v1.ModifyVolumeStatus{}).TargetVolumeAttributesClassName} {
		if d, ok := classes(name); name != "" && ok {
			s.Classes[name] = d
		}
	}
	if pv.Spec.CSI == nil {
		s.NotCSI = fmt.Sprintf("volume %q is an in-tree volume migrated to CSI: Kubernetes allows a VolumeAttributesClass on CSI volumes only", pv.Name)
	}
	return s
}

// The keys under which --extra-modify-metadata adds the claim and volume
// names to the mutable parameters: upstream's keys, which drivers read.
const (
	ParamPVCName      = "csi.storage.k8s.io/pvc/name"
	ParamPVCNamespace = "csi.storage.k8s.io/pvc/namespace"
	ParamPVName       = "csi.storage.k8s.io/pv/name"
)

// Parameters returns the mutable parameters of a ControllerModifyVolume
// call: the class's parameters, plus the claim's and volume's names when
// extra is set. The class's map is never changed.
func Parameters(class map[string]string, namespace, claim, volume string, extra bool) map[string]string {
	if !extra {
		return class
	}
	out := make(map[string]string, len(class)+3)
	maps.Copy(out, class)
	out[ParamPVCName] = claim
	out[ParamPVCNamespace] = namespace
	out[ParamPVName] = volume
	return out
}
