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
	"fmt"
	"slices"
	"time"
)

// holdBack is how long a line waits before it is printed: the driver's
// call log is read every tenth of a second, so a call is read up to then
// after it ended, which is before the writes it caused were seen.
const holdBack = 250 * time.Millisecond

// lines are the lines of the timeline not printed yet, each with the time
// it tells of; they are printed in that order.
type lines struct {
	pending []line
}

type line struct {
	at   time.Time
	text string
}

// add holds back a line about what happened at at.
func (l *lines) add(at time.Time, format string, args ...any) {
	l.pending = append(l.pending, line{at: at, text: fmt.Sprintf(format, args...)})
}

// flush prints, in order, the lines of what happened before until.
func (l *lines) flush(until time.Time) {
	slices.SortStableFunc(l.pending, func(a, b line) int { return a.at.Compare(b.at) })
	n := 0
	for _, p := range l.pending {
		if p.at.After(until) {
			break
		}
		sayAt(p.at, "%s", p.text)
		n++
	}
	l.pending = l.pending[n:]
}
