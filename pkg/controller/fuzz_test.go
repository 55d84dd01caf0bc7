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

package controller

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/internal/quantitytest"
	"github.com/csi-resizer/csi-resizer/pkg/decide"
)

// FuzzCheckCapacity checks the driver's answer against the target with
// quantities parsed from arbitrary strings: 0 means "not reported" and gives
// the target, an answer below the target is an error, and nothing below the
// target (or <= 0) is ever returned without an error.
//
// Targets <= 0 or out of decide.CheckSize's range are skipped: Decide never
// gives one (FuzzDecide checks it). Answers out of range are skipped too:
// the driver's answer is an int64.
//
// Run it for longer with:
//
//	go test -run='^$' -fuzz='^FuzzCheckCapacity$' -fuzztime=60s ./pkg/controller/
func FuzzCheckCapacity(f *testing.F) {
	seeds := [][2]string{
		{"0", "2Gi"}, {"1536Mi", "2Gi"}, {"2Gi", "2Gi"}, {"3Gi", "2Gi"}, {"1Ei", "2Gi"},
		{"2147483648", "2Gi"}, {"2147483647", "2Gi"}, {"-1", "2Gi"}, {"2", "1500m"}, {"1", "1500m"},
		{"1e3", "1Ki"}, {"0.5Ki", "512"}, {"9Ei", "8Ei"}, {"1E", "+1Gi"}, {"9223372036854775807", "9223372036854775808"},
		{"0m", "1n"}, {"-0", "1"}, {"1e2000000000", "2Gi"}, {"9228374E38025775308", "2Gi"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, answer, target string) {
		if quantitytest.ParseMayHang(answer) || quantitytest.ParseMayHang(target) {
			t.Skip()
		}
		size, err1 := resource.ParseQuantity(answer)
		tgt, err2 := resource.ParseQuantity(target)
		if err1 != nil || err2 != nil || tgt.Sign() <= 0 || decide.CheckSize(tgt) != nil || decide.CheckSize(size) != nil {
			t.Skip()
		}
		got, short, err := checkCapacity(size, tgt)
		switch {
		case size.IsZero():
			if err != nil || short || got.Cmp(tgt) != 0 {
				t.Fatalf("checkCapacity(0, %s) = %s, %v, %v; want the target", tgt.String(), got.String(), short, err)
			}
		case size.Sign() < 0:
			if err == nil {
				t.Fatalf("checkCapacity(%s, %s) = %s without an error", size.String(), tgt.String(), got.String())
			}
		case size.Cmp(tgt) < 0:
			if err != nil || !short || got.Cmp(size) != 0 {
				t.Fatalf("checkCapacity(%s, %s) = %s, %v, %v; want the answer, short", size.String(), tgt.String(), got.String(), short, err)
			}
		default:
			if err != nil || short || got.Cmp(size) != 0 {
				t.Fatalf("checkCapacity(%s, %s) = %s, %v, %v; want the answer", size.String(), tgt.String(), got.String(), short, err)
			}
		}
		if err == nil && (got.Sign() <= 0 || short != (got.Cmp(tgt) < 0)) {
			t.Fatalf("checkCapacity(%s, %s) = %s, short %v: not positive, or short misjudged, without an error", size.String(), tgt.String(), got.String(), short)
		}
	})
}
