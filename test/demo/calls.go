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
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// shownMethods are the CSI calls the timeline shows, from the mock's call
// log. The controller service is called by the resizer alone, the node
// service by kubelet alone: the call says who made it.
var shownMethods = map[string]string{
	csidriver.MethodExpand:      "csi-resizer",
	csidriver.MethodModify:      "csi-resizer",
	csidriver.MethodNodeStage:   "kubelet",
	csidriver.MethodNodePublish: "kubelet",
	csidriver.MethodNodeExpand:  "kubelet",
}

// callLog reads the calls the driver received, from its call log.
type callLog struct {
	driver *framework.Driver
	read   map[string]int // calls read, per method
}

// next returns the calls received since it last returned, in the order
// they ended.
func (l *callLog) next() ([]framework.Call, error) {
	var calls []framework.Call
	for _, method := range slices.Sorted(maps.Keys(shownMethods)) {
		all, err := l.driver.Calls(method)
		if err != nil {
			return nil, err
		}
		calls = append(calls, all[min(l.read[method], len(all)):]...)
		l.read[method] = len(all)
	}
	slices.SortStableFunc(calls, func(a, b framework.Call) int { return a.End.Compare(b.End) })
	return calls, nil
}

// describeCall is who made a call, its arguments and its answer, on one
// line.
func describeCall(c framework.Call) string {
	var args []string
	if c.RequiredBytes > 0 {
		args = append(args, sizeOf(c.RequiredBytes))
	}
	for _, k := range slices.Sorted(maps.Keys(c.Parameters)) {
		args = append(args, k+"="+c.Parameters[k])
	}
	call := c.Method
	if len(args) > 0 {
		call += "(" + strings.Join(args, ", ") + ")"
	}
	answer := []string{c.Code}
	if c.Code == "OK" && c.CapacityBytes > 0 {
		answer = append(answer, "capacity "+sizeOf(c.CapacityBytes))
	}
	if c.Code == "OK" && c.NodeExpansionRequired {
		answer = append(answer, "node expansion required")
	}
	return fmt.Sprintf("%s called %s: %s", shownMethods[c.Method], call, strings.Join(answer, ", "))
}

// sizeOf is a size as Kubernetes writes it (2Gi).
func sizeOf(n int64) string {
	return resource.NewQuantity(n, resource.BinarySI).String()
}
