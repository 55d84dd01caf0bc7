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

package quantitytest

import "testing"

func TestParseMayHang(t *testing.T) {
	for s, want := range map[string]bool{
		"1Gi": false, "1e3": false, "1e2000000000": false,
		"1e3000000000": true, "1e-854775808": true, "12345678901234567890e20000": true, "1.5e20000": true,
	} {
		if got := ParseMayHang(s); got != want {
			t.Errorf("ParseMayHang(%q) = %v, want %v", s, got, want)
		}
	}
}
