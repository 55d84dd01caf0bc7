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

import "testing"

func TestStable(t *testing.T) {
	tests := []struct {
		name    string
		samples []int64
		want    bool
	}{
		{name: "too few", samples: []int64{100, 100}, want: false},
		{name: "flat", samples: []int64{50, 100, 100, 100}, want: true},
		{name: "within 1%", samples: []int64{1000, 995, 999}, want: true},
		{name: "still growing", samples: []int64{900, 950, 1000}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := stable(tc.samples, 3, 0.01); got != tc.want {
				t.Errorf("stable(%v) = %v, want %v", tc.samples, got, tc.want)
			}
		})
	}
}
