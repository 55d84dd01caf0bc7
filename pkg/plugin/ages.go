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

package plugin

import (
	"fmt"
	"time"
)

// ago says how long before now t was: "3h ago"; "in 5m" for a time after
// now (clocks differ).
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "at an unknown time"
	}
	if d := now.Sub(t); d >= 0 {
		return short(d) + " ago"
	}
	return "in " + short(t.Sub(now))
}

// short writes d in its two largest units: "45s", "4m10s", "3h", "2d5h".
func short(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return pair(int(d/time.Minute), "m", int(d%time.Minute/time.Second), "s")
	case d < 48*time.Hour:
		return pair(int(d/time.Hour), "h", int(d%time.Hour/time.Minute), "m")
	}
	return pair(int(d/(24*time.Hour)), "d", int(d%(24*time.Hour)/time.Hour), "h")
}

func pair(a int, unitA string, b int, unitB string) string {
	if b == 0 {
		return fmt.Sprintf("%d%s", a, unitA)
	}
	return fmt.Sprintf("%d%s%d%s", a, unitA, b, unitB)
}
