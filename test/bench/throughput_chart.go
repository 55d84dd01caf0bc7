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
	"math"
)

// throughputChart is the plot of finished resizes over time, one line per
// setting with the most its API budget allows dashed beside it; a second
// panel zooms on the fastest run, which the first squeezes to the left.
func throughputChart(ts []*throughputResult) figure {
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd"}
	full := chart{Title: "All runs", XLabel: "seconds since the first grow", YLabel: "claims finished"}
	fastest := ts[0].Wall
	for i, t := range ts {
		color := colors[i%len(colors)]
		s := series{Name: fmt.Sprintf("%s: %d in %.1f s", t.Setting, t.N, t.Wall.Seconds()), Color: color, Step: true,
			X: []float64{0}, Y: []float64{0}}
		for j, d := range t.Finish {
			s.X, s.Y = append(s.X, d.Seconds()), append(s.Y, float64(j+1))
		}
		full.Series = append(full.Series, s, budgetLine(t, color))
		fastest = min(fastest, t.Wall)
	}
	f := figure{Title: fmt.Sprintf("Claims finished over time, %d grown at once (controller-only driver)", ts[0].N), Charts: []chart{full}}
	if len(ts) > 1 {
		_, end := niceAxis(fastest.Seconds() * 1.1)
		zoom := full
		zoom.Title, zoom.XMax = fmt.Sprintf("The first %g s", end), end
		f.Charts = append(f.Charts, zoom)
	}
	return f
}

// budgetLine is the most the token bucket allows: burst writes at once,
// then QPS a second, 3 writes a resize.
func budgetLine(t *throughputResult, color string) series {
	q, b, n := float64(t.Setting.QPS), float64(t.Setting.Burst), float64(t.N)
	s := series{Name: fmt.Sprintf("token bucket: (%d + %d/s × t) ÷ %.0f writes", t.Setting.Burst, t.Setting.QPS, targetWrites),
		Color: color, Dash: true, X: []float64{0, 0}, Y: []float64{0, math.Min(b/targetWrites, n)}}
	if end := (n*targetWrites - b) / q; end > 0 {
		s.X, s.Y = append(s.X, end), append(s.Y, n)
	}
	return s
}
