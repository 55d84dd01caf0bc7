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

import "k8s.io/apimachinery/pkg/api/resource"

// fuzzRounded is what the resizer remembers of a driver that gave more than
// it was asked for, by selector: nothing; the volume's size for the claim's
// capacity (kubelet finished at the target the driver rounded); the
// volume's size for the allocated size or the request; a size other than
// the volume's.
func fuzzRounded(s ResizeState, sel uint8) *Rounding {
	switch sel % 4 {
	case 1:
		return &Rounding{Target: s.Capacity, Size: s.PVSize}
	case 2:
		target := s.Request
		if s.Allocated != nil && sel%8 >= 4 {
			target = *s.Allocated
		}
		return &Rounding{Target: target, Size: s.PVSize}
	case 3:
		if CheckSize(s.PVSize) != nil {
			return nil // adding to it may not end
		}
		size := s.PVSize.DeepCopy()
		size.Add(*resource.NewQuantity(1, resource.BinarySI))
		return &Rounding{Target: s.Capacity, Size: size}
	}
	return nil
}

// fuzzHandBack is what the resizer remembers of the last size it handed
// back to kubelet, by selector: nothing; the recorded size (or the
// request), once or twice; the volume's size.
func fuzzHandBack(s ResizeState, sel uint8) *HandBack {
	target := s.Request
	if s.Allocated != nil {
		target = *s.Allocated
	}
	switch sel % 4 {
	case 1:
		return &HandBack{Target: target}
	case 2:
		return &HandBack{Target: target, Again: true}
	case 3:
		return &HandBack{Target: s.PVSize}
	}
	return nil
}

// handedBackOnceRefused is true when kubelet marked infeasible the very
// size the resizer handed back to it once, which the user still asks for,
// the claim does not have, and the volume holds.
func handedBackOnceRefused(s ResizeState) bool {
	h := s.HandedBack
	return s.Recovery && h != nil && !h.Again && s.Status == nodeInfeasible && s.Allocated != nil &&
		h.Target.Cmp(*s.Allocated) == 0 && s.Request.Sign() > 0 && s.Request.Cmp(h.Target) == 0 && s.Request.Cmp(s.Capacity) > 0 && s.PVSize.Cmp(h.Target) >= 0
}
