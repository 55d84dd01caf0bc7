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
	"encoding/json"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/api/resource"
)

// parseAnswers reads a fault file's content: a list of answers whose sizes
// are quantities ("3Gi") or bytes.
func parseAnswers(data []byte) ([]answer, error) {
	var answers []answer
	if err := json.Unmarshal(data, &answers); err != nil {
		return nil, err
	}
	for n := range answers {
		a := &answers[n]
		var err error
		if a.sizeBytes, err = bytesOf(a.Size); err != nil {
			return nil, fmt.Errorf("entry %d: size: %w", n, err)
		}
		if a.capacityBytes, err = bytesOf(a.Capacity); err != nil {
			return nil, fmt.Errorf("entry %d: capacity: %w", n, err)
		}
	}
	return answers, nil
}

// bytesOf reads a size; "" is 0.
func bytesOf(size string) (int64, error) {
	if size == "" {
		return 0, nil
	}
	q, err := resource.ParseQuantity(size)
	if err != nil {
		return 0, err
	}
	if q.Sign() <= 0 {
		return 0, fmt.Errorf("%s is not a positive size", size)
	}
	return q.Value(), nil
}

// withCapacity is an expand request as the mock must see it for an answer
// of capacity bytes (0: the request as it is): asking for that size, so
// that the mock's volume has the size it answers, more or less than the
// caller asked for.
func withCapacity(req any, capacity int64) any {
	r, ok := req.(*csi.ControllerExpandVolumeRequest)
	if !ok || capacity <= 0 {
		return req
	}
	r = proto.Clone(r).(*csi.ControllerExpandVolumeRequest)
	r.CapacityRange = &csi.CapacityRange{RequiredBytes: capacity}
	return r
}

// roundUp rounds size up to a multiple of unit (a non-positive unit leaves
// it).
func roundUp(size, unit int64) int64 {
	if unit <= 0 || size%unit == 0 {
		return size
	}
	return (size/unit + 1) * unit
}
