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
	"strconv"
	"strings"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/ownership"
	"github.com/csi-resizer/csi-resizer/pkg/secrets"
)

// advice is what a failed call's code means and what the user can do, as
// the failure vocabulary says (decide.MeaningOf), with the claim's facts in
// its words.
type advice struct {
	// means says, in a sentence, what the answer means for the operation.
	means string
	// retargetHelps is true when another size (or class) may succeed where
	// this one failed, so that the state's advice to change the request
	// applies.
	retargetHelps bool
	// until says what must change before a retry can succeed, when
	// another size or class does not help.
	until string
	// can is what the user can do about this code, each a sentence.
	can []string
}

// secretWords say where the Secret sent with each job's call is
// configured.
var secretWords = map[decide.Job]string{
	decide.ResizeJob: fmt.Sprintf("the PV's spec.csi.controllerExpandSecretRef, else the StorageClass parameters %s and %s", secrets.NameParam, secrets.NamespaceParam),
	decide.ModifyJob: fmt.Sprintf("the PV's annotations %s and %s, else the expansion Secret", secrets.ModifyNameAnnotation, secrets.ModifyNamespaceAnnotation),
}

// knownCode reports whether name is a gRPC code's name other than OK.
func knownCode(name string) bool {
	return name != decide.ReasonUncertain && slices.Contains(decide.CodeNames(), name)
}

// resizeAdvice is the advice for an expansion that failed with code.
func (f *facts) resizeAdvice(code string) advice { return f.advice(decide.ResizeJob, code, "") }

// modifyAdvice is the advice for a modification to class that failed with
// code.
func (f *facts) modifyAdvice(code, class string) advice {
	return f.advice(decide.ModifyJob, code, class)
}

// advice renders the vocabulary's meaning of job's failure with code.
func (f *facts) advice(job decide.Job, code, class string) advice {
	m := decide.MeaningOf(job, code)
	fill := strings.NewReplacer("{pv}", f.pvName(), "{handle}", strconv.Quote(f.volumeHandle()), "{driver}", f.driver,
		"{class}", strconv.Quote(class), "{params}", f.classParameters(class), "{secret}", secretWords[job])
	a := advice{means: fill.Replace(m.Means), retargetHelps: m.RetargetHelps, until: fill.Replace(m.Until)}
	can := m.Can
	if len(f.users) == 0 && len(m.CanWhenUnused) > 0 {
		can = m.CanWhenUnused
	}
	for _, c := range can {
		a.can = append(a.can, fill.Replace(c))
	}
	return a
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
