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
	"math"

	"k8s.io/apimachinery/pkg/api/resource"
)

// maxSize bounds, in bytes, the sizes the resizer compares: far beyond any
// volume (and beyond the int64 bytes of a CSI request, which is refused
// later with a clear error), yet small enough that comparing two sizes is
// cheap. resource.Quantity.Cmp of a value such as "1e2000000000", a valid
// quantity (which an API server with bounded comparisons accepts in a
// request), writes the whole number out in digits and does not return in any
// useful time.
const maxSize = 1e30

// maxScale bounds the decimal exponent of the sizes the resizer compares:
// a zero can carry a huge one too ("0e2000000000"), and comparing it with
// another size costs as much as with a huge value.
const maxScale = 1000

// CheckSize returns an error when q is too large or, not being zero, too
// small (in magnitude), or carries too large an exponent, to be compared in
// bounded time. It looks only at the quantity's exponent, sign and
// approximate value, which are cheap whatever the quantity holds.
func CheckSize(q resource.Quantity) error {
	// AsDec converts this copy of q (cheaply), never the caller's.
	if scale := q.AsDec().Scale(); scale > maxScale || scale < -maxScale {
		// q.String() of such a size may not even show it right.
		return fmt.Errorf("size with decimal exponent %d is out of range", -int64(scale))
	}
	v := q.AsApproximateFloat64()
	switch {
	case math.IsNaN(v) || math.Abs(v) > maxSize:
		return fmt.Errorf("size %s is out of range (more than %.0e bytes)", shorten(q.String()), maxSize)
	case q.Sign() != 0 && math.Abs(v) < 1/maxSize:
		// q.String() of a size below a nanobyte is wrong: show the value.
		return fmt.Errorf("size %.3g is out of range (less than %.0e bytes)", v, 1/maxSize)
	}
	return nil
}

// Validate returns an error when a size of s is out of range (see
// CheckSize): no decision can be made about such a claim, and Decide leaves
// it alone.
func (s ResizeState) Validate() error {
	type named struct {
		what string
		q    *resource.Quantity
	}
	sizes := []named{{"requested size", &s.Request}, {"status capacity", &s.Capacity}, {"PV capacity", &s.PVSize}}
	if s.Allocated != nil {
		sizes = append(sizes, named{"allocated size", s.Allocated})
	}
	if s.LastFailure != nil {
		sizes = append(sizes, named{"size of the last failure", &s.LastFailure.Target})
	}
	if s.Rounded != nil {
		sizes = append(sizes, named{"target the driver gave more for", &s.Rounded.Target}, named{"size the driver gave", &s.Rounded.Size})
	}
	for _, size := range sizes {
		if err := CheckSize(*size.q); err != nil {
			return fmt.Errorf("%s: %w", size.what, err)
		}
	}
	return nil
}

// maxShown bounds how much of a size an error shows: a quantity may hold
// a mantissa of any length.
const maxShown = 40

func shorten(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return fmt.Sprintf("%s...(%d characters)", s[:maxShown], len(s))
}
