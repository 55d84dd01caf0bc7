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

package slim

import (
	"maps"
	"testing"
)

func TestPairs(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]string
		drop string
		want map[string]string
	}{
		{name: "nil", in: nil, want: nil},
		{name: "only the dropped key", in: map[string]string{LastApplied: "{}"}, drop: LastApplied, want: nil},
		{name: "dropped key among others", in: map[string]string{LastApplied: "{}", "a": "1", "b": ""}, drop: LastApplied, want: map[string]string{"a": "1", "b": ""}},
		{name: "nothing dropped", in: map[string]string{"a": "1", "": "empty key"}, drop: LastApplied, want: map[string]string{"a": "1", "": "empty key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := PairsOf(tc.in, tc.drop)
			if got := p.Map(); !maps.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Errorf("Map() = %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got := p.Get(k); got != v {
					t.Errorf("Get(%q) = %q, want %q", k, got, v)
				}
			}
			if got := p.Get(tc.drop); got != "" && tc.drop != "" {
				t.Errorf("Get(dropped %q) = %q, want empty", tc.drop, got)
			}
			if got := p.Get("absent"); got != "" {
				t.Errorf("Get(absent) = %q, want empty", got)
			}
		})
	}
}
