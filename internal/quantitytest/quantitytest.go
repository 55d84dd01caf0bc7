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

// Package quantitytest helps fuzz tests that parse sizes from random
// strings. It is imported by tests only.
package quantitytest

import (
	"math"
	"math/big"
	"regexp"
)

// decimalExponent splits a quantity with an exponent suffix ("1e-5", "2E9")
// into its number and its exponent.
var decimalExponent = regexp.MustCompile(`^(.*)[eE]([+-]?[0-9]+)$`)

// smallInteger is a number that resource.ParseQuantity takes on its int64
// fast path.
var smallInteger = regexp.MustCompile(`^[+-]?[0-9]{1,18}$`)

// ParseMayHang is true for quantities that make resource.ParseQuantity
// itself run for minutes: an exponent beyond int32 (truncated, often to a
// huge negative scale), below -10^5, or beyond +-10^4 on a number off the
// int64 fast path (rounded through a number of that many digits). They are
// apimachinery's to fix (kubernetes/kubernetes#141203, #141306). Huge
// exponents on small integers ("1e2000000000") parse at once and are kept:
// it is comparing them that must not hang.
func ParseMayHang(s string) bool {
	m := decimalExponent.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	exp, ok := new(big.Int).SetString(m[2], 10)
	switch {
	case !ok || exp.Cmp(big.NewInt(math.MaxInt32)) > 0 || exp.Cmp(big.NewInt(-100000)) < 0:
		return true
	case exp.CmpAbs(big.NewInt(10000)) > 0:
		return !smallInteger.MatchString(m[1])
	}
	return false
}
