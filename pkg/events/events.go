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

// Package events holds what the resizer's events say that others read (their
// source, reasons, the annotation that carries a failed call's code, and the
// fixed words of some messages; `kubectl csi-resizer explain` reads all but
// the words from here), and the sink that writes them so that none is lost
// to another writer's name.
package events

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	"github.com/csi-resizer/csi-resizer/pkg/kube"
)

// Source is the event source component of driver's resizer: upstream's.
func Source(driver string) string { return "external-resizer " + driver }

// Reasons of expansion events: the upstream strings, which tools parse.
const (
	ReasonResizing                 = "Resizing"
	ReasonResizeFailed             = "VolumeResizeFailed"
	ReasonFileSystemResizeRequired = "FileSystemResizeRequired"
	ReasonResizeSuccessful         = "VolumeResizeSuccessful"
)

// Reasons of modification events: the upstream strings, "Canceled" spelled
// as upstream spells it.
const (
	ReasonModify           = "VolumeModify"
	ReasonModifySuccessful = "VolumeModifySuccessful"
	ReasonModifyFailed     = "VolumeModifyFailed"
	ReasonModifyCanceled   = "VolumeModifyCanceled"
)

// ReasonNodeAffinityConflict is the reason of the warning of a resizer run
// with --node-deployment (ours only) that refuses a claim of its driver: the
// volume's node affinity selects the instance's node but does not pin the
// volume to it alone, so no instance resizes or modifies it.
const ReasonNodeAffinityConflict = "NodeAffinityConflict"

// AnnotationCode is the annotation of the resizer's events of a failed
// driver call: the gRPC code's name (decide.ReasonOf), so that a reader of
// the event need not find it in the message.
const AnnotationCode = "csi-resizer.io/code"

// AnsweredShort is in the message of a ReasonResizeFailed event, and of the
// ControllerResizeError condition, of a driver that answered an expansion
// with success but less than the size asked for.
const AnsweredShort = "the driver answered success with"

// Parts of the message of a ReasonResizeFailed event about a volume in use.
const (
	// OfflineOnly and AnsweredInUse are in the message of an expansion held
	// back while pods use the volume because the driver expands offline
	// only (upstream's words) or answered FailedPrecondition the last time.
	OfflineOnly   = "only supports offline expansion"
	AnsweredInUse = "answered FailedPrecondition (volume in use) to the last attempt"
	// CannotExpandInUse is in the message of a failed call that the driver
	// answered FailedPrecondition.
	CannotExpandInUse = "the driver cannot expand the volume while a pod uses it"
)

// client-go's recorder names an event "<object>.<hex UnixNano>" and drops it
// when the API server answers that the name is taken. Two writers that
// report on one object in the same instant take the same name: every
// instance of a --node-deployment sees a volume that several nodes share at
// once and warns about it, and on a clock of coarse resolution their
// timestamps match to the nanosecond. Distinct gives the second event a
// name of its own instead.

// EventsGetter gives the event client of a namespace (kube.CoreV1Interface).
type EventsGetter interface {
	Events(namespace string) kube.EventInterface
}

// Distinct writes events in the event's namespace, as client-go's
// EventSinkImpl does, except that an event whose name another event holds is
// created again under a name the API server generates ("<object>.<random>").
// The holder is read first (list with a name selector: the resizer may list
// events, not get them): when it is this very event, written by an earlier
// attempt whose answer was lost, it is returned and nothing is written twice.
func Distinct(events EventsGetter) record.EventSink {
	return &distinct{events: events}
}

type distinct struct {
	events EventsGetter
}

func (s *distinct) Create(e *v1.Event) (*v1.Event, error) {
	created, err := s.create(e)
	if !apierrors.IsAlreadyExists(err) {
		return created, err
	}
	holder, lookupErr := s.holder(e)
	if lookupErr != nil {
		return nil, err
	}
	if holder != nil && same(holder, e) {
		return holder, nil
	}
	renamed := e.DeepCopy()
	renamed.Name, renamed.GenerateName = "", e.InvolvedObject.Name+"."
	return s.create(renamed)
}

// create, Update and Patch write e in its own namespace, as client-go's
// EventSinkImpl does; the recorder gives them no context.
func (s *distinct) create(e *v1.Event) (*v1.Event, error) {
	return s.events.Events(e.Namespace).Create(context.Background(), e, metav1.CreateOptions{})
}

func (s *distinct) Update(e *v1.Event) (*v1.Event, error) {
	return s.events.Events(e.Namespace).Update(context.Background(), e, metav1.UpdateOptions{})
}

func (s *distinct) Patch(e *v1.Event, data []byte) (*v1.Event, error) {
	return s.events.Events(e.Namespace).Patch(context.Background(), e.Name, types.StrategicMergePatchType, data, metav1.PatchOptions{})
}

// holder reads the event named as e in e's namespace; nil when it is gone.
func (s *distinct) holder(e *v1.Event) (*v1.Event, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := s.events.Events(e.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", e.Name).String()})
	if err != nil || len(list.Items) == 0 {
		return nil, err
	}
	return &list.Items[0], nil
}

// same tells whether a and b are one event: about the same object, from
// the same source, with the same reason and message.
func same(a, b *v1.Event) bool {
	return a.InvolvedObject.UID == b.InvolvedObject.UID && a.InvolvedObject.Kind == b.InvolvedObject.Kind &&
		a.InvolvedObject.Name == b.InvolvedObject.Name && a.Source == b.Source &&
		a.Reason == b.Reason && a.Message == b.Message && a.Type == b.Type
}
