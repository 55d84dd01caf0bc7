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

package driver

import (
	"math"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/internal/quantitytest"
	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

// FuzzBytesOf parses arbitrary quantity strings, odd suffixes included, and
// checks the bytes a CSI request is built from: never a panic, sizes <= 0 and
// beyond int64 refused as infeasible, fractions rounded up, never below the
// quantity.
//
// Run it for longer with:
//
//	go test -run='^$' -fuzz='^FuzzBytesOf$' -fuzztime=60s ./pkg/resizer/
func FuzzBytesOf(f *testing.F) {
	for _, s := range []string{
		"1e3", "1500m", "0.5Ki", "9Ei", "1E", "+1Gi", "2Gi", "1.5Gi", "2e9", "1n", "1", "0", "-1", "-0.5",
		"8Ei", "9223372036854775807", "9223372036854775808", "9223372036854775806.5", "7.99999999999999999999Ei",
		"0.000000001", "1e-9", "999999999999999999999999999999E", "123456789012345678901234567890m",
		"922337203E854775808", "1e2000000000", "1e2147483647", "-1e2000000000",
	} {
		f.Add(s)
	}
	maxInt64 := *resource.NewQuantity(math.MaxInt64, resource.BinarySI)
	f.Fuzz(func(t *testing.T, s string) {
		if quantitytest.ParseMayHang(s) {
			t.Skip()
		}
		q, err := resource.ParseQuantity(s)
		if err != nil {
			t.Skip()
		}
		b, err := bytesOf(q)
		// Quantity.Cmp of an extreme scale ("1e2000000000") never returns: the
		// oracle tells such sizes apart by their approximate value.
		huge := math.Abs(q.AsApproximateFloat64()) > 1e30
		switch {
		case q.Sign() <= 0:
			if err == nil || status.Code(err) != codes.InvalidArgument || decide.ResizeRules.ClassOf(err) != decide.Infeasible {
				t.Fatalf("bytesOf(%s) = %d, %v; want an infeasible InvalidArgument", q.String(), b, err)
			}
		case huge || q.Cmp(maxInt64) > 0:
			if err == nil || status.Code(err) != codes.OutOfRange || decide.ResizeRules.ClassOf(err) != decide.Infeasible {
				t.Fatalf("bytesOf(%s) = %d, %v; want an infeasible OutOfRange", q.String(), b, err)
			}
		default:
			if err != nil {
				t.Fatalf("bytesOf(%s): %v", q.String(), err)
			}
			if b <= 0 {
				t.Fatalf("bytesOf(%s) = %d, want > 0", q.String(), b)
			}
			if got := resource.NewQuantity(b, resource.BinarySI); got.Cmp(q) < 0 {
				t.Fatalf("bytesOf(%s) = %d, below the quantity", q.String(), b)
			}
			if below := resource.NewQuantity(b-1, resource.BinarySI); below.Cmp(q) >= 0 {
				t.Fatalf("bytesOf(%s) = %d, not the smallest whole number of bytes holding it", q.String(), b)
			}
		}
	})
}
