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

import "time"

// tally is the count and the oldest transition time of each state, by the
// index of its key.
type tally struct {
	count  []int
	oldest []time.Time // zero: no claim of the state recorded a time
}

func newTally(states int) tally {
	return tally{count: make([]int, states), oldest: make([]time.Time, states)}
}

// add counts one claim in state i, in it since since (zero when unknown).
func (t tally) add(i int, since time.Time) {
	t.count[i]++
	if !since.IsZero() && (t.oldest[i].IsZero() || since.Before(t.oldest[i])) {
		t.oldest[i] = since
	}
}

// age returns the seconds from the oldest time of state i to now: 0 when
// no time is known, and never below 0 (a time from a clock ahead of ours).
func (t tally) age(i int, now time.Time) float64 {
	if t.oldest[i].IsZero() {
		return 0
	}
	return max(now.Sub(t.oldest[i]).Seconds(), 0)
}
