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

package metrics

import (
	"testing"
	"time"
)

func TestTally(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tl := newTally(4)
	tl.add(0, t0.Add(-time.Minute))
	tl.add(0, time.Time{})
	tl.add(0, t0.Add(-time.Hour))
	tl.add(0, t0.Add(-time.Second))
	tl.add(1, time.Time{})
	tl.add(2, t0.Add(time.Minute))
	for i, want := range []struct {
		count int
		age   float64
	}{
		{count: 4, age: 3600},
		{count: 1, age: 0}, // in the state, no time known
		{count: 1, age: 0}, // a time ahead of the clock
		{count: 0, age: 0},
	} {
		if tl.count[i] != want.count || tl.age(i, t0) != want.age {
			t.Errorf("state %d: count %d, age %v; want %d, %v", i, tl.count[i], tl.age(i, t0), want.count, want.age)
		}
	}
}
