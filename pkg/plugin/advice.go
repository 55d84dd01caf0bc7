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

package plugin

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/secrets"
)

// A driver's answer is classed by its gRPC code (decide's attempt rules):
// the codes of a call that may still complete are uncertain, each operation
// names its infeasible codes, and every other code is final. The resizer
// records the code of a final failure as the reason of the claim's
// condition (ControllerResizeError, ModifyVolumeError). What the user can
// do depends on the code itself: a size the driver cannot have is fixed by
// another size, a volume the driver does not know by no size at all.
// advice says, per code and operation, what explain tells the user. This
// file is the per-code table only: it is to be generated from the shared
// table of failures.

// knownCode reports whether name is a gRPC code's name other than OK.
func knownCode(name string) bool {
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		if c.String() == name {
			return true
		}
	}
	return false
}

// advice is what a code of a failed call tells, and what the user can do.
type advice struct {
	// means says, in a sentence, what the answer means for the operation.
	means string
	// retargetHelps is true when another size (or class) may succeed where
	// this one failed, so that the state's advice to change the request
	// applies; false when the failure is not about the size or class, and
	// every other one fails the same way.
	retargetHelps bool
	// until says what must change before a retry can succeed, when
	// another size or class does not help: "until the driver knows the
	// volume".
	until string
	// can is what the user can do about this code, each a sentence.
	can []string
}

// operationWords name an operation's call and its target in advice.
type operationWords struct {
	verb, method, target string
	// secret says where the Secret sent with the call is configured.
	secret string
	// timeout is the resizer's flag that bounds the call.
	timeout string
}

var (
	expandWords = operationWords{verb: "expand", method: "ControllerExpandVolume", target: "size",
		secret:  fmt.Sprintf("the PV's spec.csi.controllerExpandSecretRef, else the StorageClass parameters %s and %s", secrets.NameParam, secrets.NamespaceParam),
		timeout: "--resize-timeout"}
	modifyWords = operationWords{verb: "modify", method: "ControllerModifyVolume", target: "class",
		secret:  fmt.Sprintf("the PV's annotations %s and %s, else the expansion Secret", secrets.ModifyNameAnnotation, secrets.ModifyNamespaceAnnotation),
		timeout: "--modify-timeout"}
)

// resizeAdvice is the advice for an expansion that failed with code.
func (f *facts) resizeAdvice(code string) advice {
	switch code {
	case codes.InvalidArgument.String():
		return advice{retargetHelps: true,
			means: "The request is invalid (InvalidArgument): most often the size, which the driver cannot have; the message says what it found invalid.",
			can:   []string{fmt.Sprintf("If the message is about the volume rather than its size (its capability, its CSI source), no size helps: fix PV %s.", f.pvName())}}
	case codes.OutOfRange.String():
		return advice{retargetHelps: true,
			means: "The size is outside the range the driver supports for the volume (OutOfRange); the message may give the range."}
	case codes.NotFound.String():
		return f.volumeUnknown(expandWords)
	case codes.FailedPrecondition.String():
		a := advice{until: "until the volume's state allows it",
			means: "The driver cannot expand the volume in its present state (FailedPrecondition): most often because a pod uses it and the driver expands volumes only when none does."}
		if len(f.users) == 0 {
			a.can = []string{"No pod uses the claim now, so the next attempt may pass; if it fails again, the message says which condition the volume does not meet."}
		}
		return a
	}
	return f.commonAdvice(code, expandWords)
}

// modifyAdvice is the advice for a modification that failed with code.
func (f *facts) modifyAdvice(code, class string) advice {
	switch code {
	case codes.InvalidArgument.String():
		return advice{retargetHelps: true,
			means: fmt.Sprintf("The driver refused the parameters of class %q (InvalidArgument): the message says which.", class),
			can: []string{fmt.Sprintf("Compare the parameters of VolumeAttributesClass %q (%s) with what driver %s accepts; a class cannot be edited, "+
				"so create one with parameters it accepts and set spec.volumeAttributesClassName to it.", class, f.classParameters(class), f.driver)}}
	case codes.OutOfRange.String():
		return advice{retargetHelps: true,
			means: fmt.Sprintf("A value is beyond what the driver supports (OutOfRange), most likely a parameter of class %q; the message says which.", class),
			can:   []string{fmt.Sprintf("Set spec.volumeAttributesClassName to a class whose parameters driver %s supports.", f.driver)}}
	case codes.NotFound.String():
		return f.volumeUnknown(modifyWords)
	case codes.FailedPrecondition.String():
		return advice{until: "until the volume's state allows it",
			means: "The driver cannot modify the volume in its present state (FailedPrecondition): some backends allow a change only once the last one has settled, or only so often.",
			can:   []string{"The message says what must happen first; the resizer tries again with backoff, and another class would meet the same condition."}}
	}
	return f.commonAdvice(code, modifyWords)
}

// volumeUnknown is the advice for NotFound: the driver does not know the
// volume, which no size or class changes.
func (f *facts) volumeUnknown(w operationWords) advice {
	handle := f.volumeHandle()
	return advice{until: "until the driver knows the volume",
		means: fmt.Sprintf("The driver does not know the volume (NotFound): it has no volume with the handle %q of PV %s.", handle, f.pvName()),
		can: []string{
			fmt.Sprintf("Check PV %s: its spec.csi.volumeHandle %q must name a volume that driver %s serves (was the volume deleted in the backend, "+
				"or the PV written by hand, or does the driver run against another backend?); the driver's log shows its lookup. Once it knows the volume, the next retry goes through.",
				f.pvName(), handle, f.driver),
		}}
}

// commonAdvice is the advice for the codes whose meaning both operations
// share.
func (f *facts) commonAdvice(code string, w operationWords) advice {
	fixIt := "Fix what the driver reports: the next attempt picks it up."
	switch code {
	case codes.Canceled.String():
		return advice{means: fmt.Sprintf("The call was canceled before the driver answered (Canceled), as when the resizer stops: the driver may still %s the volume.", w.verb)}
	case codes.DeadlineExceeded.String():
		return advice{means: fmt.Sprintf("The driver did not answer within the resizer's %s (DeadlineExceeded): it may still %s the volume.", w.timeout, w.verb),
			can: []string{fmt.Sprintf("If the backend is only slow, a longer %s spares it calls that time out.", w.timeout)}}
	case codes.Unavailable.String():
		return advice{means: fmt.Sprintf("The driver could not be reached, or was not ready (Unavailable): it may still %s the volume.", w.verb),
			can: []string{"Check that the driver's controller plugin runs, and listens on the resizer's --csi-address."}}
	case codes.ResourceExhausted.String():
		return advice{means: fmt.Sprintf("The driver or its backend ran out of something (ResourceExhausted): a quota, a rate limit or free capacity; the call may still %s the volume.", w.verb),
			can: []string{"Check the backend's quotas, rate limits and free capacity: the resizer calls again with backoff."}}
	case codes.Aborted.String():
		return advice{means: "The driver was busy with another operation on the volume (Aborted): the resizer calls again with backoff."}
	case codes.Unimplemented.String():
		return advice{until: "until the driver implements " + w.method,
			means: fmt.Sprintf("The driver does not implement %s (Unimplemented), though the resizer found it advertised.", w.method),
			can:   []string{fmt.Sprintf("Check the version and the configuration of driver %s; another %s does not help.", f.driver, w.target)}}
	case codes.PermissionDenied.String(), codes.Unauthenticated.String():
		return advice{until: "until the driver is allowed to",
			means: fmt.Sprintf("The driver or its backend refused the call for want of rights or credentials (%s).", code),
			can:   []string{fmt.Sprintf("Check the driver's credentials for its backend, and the Secret the resizer sends with %s (%s); another %s does not help.", w.method, w.secret, w.target)}}
	case codes.DataLoss.String():
		return advice{until: "until the volume is repaired",
			means: "The driver reports data lost or corrupted (DataLoss).",
			can:   []string{fmt.Sprintf("Check PV %s's volume in the backend before anything else: the resizer keeps trying with backoff.", f.pvName())}}
	case codes.Internal.String(), codes.Unknown.String(), codes.AlreadyExists.String():
		return advice{retargetHelps: true, means: fmt.Sprintf("The driver failed (%s): its message, and its log, say why.", code), can: []string{fixIt}}
	case decide.ReasonUncertain:
		return advice{means: fmt.Sprintf("The failure carries no gRPC code (the message says what failed), so the resizer takes it for a call that may still complete, and retries the same %s.", w.target)}
	}
	return advice{retargetHelps: true, can: []string{fixIt}}
}

// volumeHandle is the handle the resizer sends the driver for the volume.
func (f *facts) volumeHandle() string {
	if src, err := ownership.Source(f.pv); err == nil {
		return src.VolumeHandle
	}
	return ""
}

func (f *facts) pvName() string {
	if f.pv == nil {
		return ""
	}
	return f.pv.Name
}

// classParameters lists the parameters of class as read: "iops=3000,
// type=gp3"; "not read" when the class was not.
func (f *facts) classParameters(class string) string {
	vac, ok := f.o.AttributesClasses[class]
	if !ok {
		return "not read"
	}
	if len(vac.Parameters) == 0 {
		return "no parameters"
	}
	pairs := make([]string, 0, len(vac.Parameters))
	for k, v := range vac.Parameters {
		pairs = append(pairs, k+"="+v)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ", ")
}
