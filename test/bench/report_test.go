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
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	twenty := ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{name: "empty", sorted: nil, p: 50, want: 0},
		{name: "one value", sorted: ms(7), p: 50, want: 7 * time.Millisecond},
		{name: "median of an even count is the lower middle", sorted: ms(1, 2, 3, 4), p: 50, want: 2 * time.Millisecond},
		{name: "median of an odd count is the middle", sorted: ms(1, 2, 3), p: 50, want: 2 * time.Millisecond},
		{name: "p95 of 20 is the 19th", sorted: twenty, p: 95, want: 19 * time.Millisecond},
		{name: "p100 is the max", sorted: twenty, p: 100, want: 20 * time.Millisecond},
		{name: "tiny p is the min", sorted: twenty, p: 0.1, want: 1 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tc.sorted, tc.p, got, tc.want)
			}
		})
	}
}

func TestSummarizeLeavesItsInputAlone(t *testing.T) {
	in := []time.Duration{3, 1, 2}
	s := summarize(in)
	if s.N != 3 || s.P50 != 2 || s.P95 != 3 || s.Max != 3 {
		t.Errorf("summary = %+v", s)
	}
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("input reordered: %v", in)
	}
	if (summarize(nil) != summary{}) {
		t.Error("summary of nothing is not zero")
	}
}
