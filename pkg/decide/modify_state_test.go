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
	"maps"
	"testing"
)

func TestParameters(t *testing.T) {
	class := map[string]string{"iops": "3000"}
	tests := []struct {
		name  string
		class map[string]string
		extra bool
		want  map[string]string
	}{
		{name: "class parameters as they are", class: class, want: map[string]string{"iops": "3000"}},
		{name: "no parameters", want: nil},
		{name: "extra metadata added", class: class, extra: true, want: map[string]string{
			"iops": "3000", ParamPVCName: "data", ParamPVCNamespace: "ns", ParamPVName: "pv-1"}},
		{name: "extra metadata without class parameters", extra: true, want: map[string]string{
			ParamPVCName: "data", ParamPVCNamespace: "ns", ParamPVName: "pv-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parameters(tt.class, "ns", "data", "pv-1", tt.extra)
			if !maps.Equal(got, tt.want) {
				t.Errorf("Parameters = %v, want %v", got, tt.want)
			}
		})
	}
	if len(class) != 1 {
		t.Errorf("the class's parameters were changed: %v", class)
	}
}
