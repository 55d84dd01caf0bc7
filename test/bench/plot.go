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
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// series is one line of a chart.
type series struct {
	Name  string
	Color string
	X, Y  []float64
	// Step draws a staircase: Y holds from one X to the next (a count).
	Step bool
	// Dash draws a dashed line (a reference rather than a measurement).
	Dash bool
}

// chart is one panel: a line chart with axes, grid and labels. XMax, when
// set, fixes the end of the x axis (a zoom); lines beyond it are clipped.
type chart struct {
	Title, XLabel, YLabel string
	XMax                  float64
	Series                []series
}

// figure is charts side by side under one title, with one legend below
// them for the series of the first chart, written as SVG with nothing but
// the standard library.
type figure struct {
	Title  string
	Width  int
	Charts []chart
}

const (
	marginLeft, marginRight, marginTop, marginBottom = 62, 16, 58, 50
	panelHeight                                      = 420
	legendRow                                        = 18
)

// writeSVG writes the figure as a standalone SVG document.
func (f figure) writeSVG(w io.Writer) error {
	b := bufio.NewWriter(w)
	width := f.Width
	if width == 0 {
		width = 1000
	}
	var entries []series
	if len(f.Charts) > 0 {
		entries = f.Charts[0].Series
	}
	rows := (len(entries) + 1) / 2
	height := panelHeight + 10 + rows*legendRow + 10
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	text(b, float64(width)/2, 22, "middle", 15, f.Title, "")
	panel := float64(width) / float64(max(len(f.Charts), 1))
	for i, c := range f.Charts {
		c.draw(b, i, panel*float64(i), panel, panelHeight)
	}
	// The legend: two columns under the panels.
	for i, s := range entries {
		x := marginLeft + float64(i%2)*float64(width)/2
		y := float64(panelHeight+10+(i/2)*legendRow) + 12
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", x, y-4, x+24, y-4, attr(s.Color), dashAttr(s.Dash))
		text(b, x+30, y, "start", 12, s.Name, "")
	}
	fmt.Fprintln(b, `</svg>`)
	return b.Flush()
}

// draw draws the chart in the panel that starts at x0 and is width wide;
// id keeps its clip path apart from the other panels'.
func (c chart) draw(b io.Writer, id int, x0, width, height float64) {
	left, top := x0+marginLeft, float64(marginTop)
	plotW, plotH := width-marginLeft-marginRight, height-marginTop-marginBottom
	xMax, yMax := 0.0, 0.0
	for _, s := range c.Series {
		for i := range s.X {
			xMax, yMax = math.Max(xMax, s.X[i]), math.Max(yMax, s.Y[i])
		}
	}
	if c.XMax > 0 {
		xMax = c.XMax
	}
	xStep, xMax := niceAxis(xMax)
	yStep, yMax := niceAxis(yMax)
	px := func(x float64) float64 { return left + x/xMax*plotW }
	py := func(y float64) float64 { return top + plotH - y/yMax*plotH }

	text(b, left+plotW/2, top-14, "middle", 13, c.Title, "")
	for x := 0.0; x <= xMax+xStep/2; x += xStep {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", px(x), top, px(x), top+plotH)
		text(b, px(x), top+plotH+16, "middle", 11, formatTick(x, xStep), "")
	}
	for y := 0.0; y <= yMax+yStep/2; y += yStep {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, py(y), left+plotW, py(y))
		text(b, left-6, py(y)+4, "end", 11, formatTick(y, yStep), "")
	}
	fmt.Fprintf(b, `<path d="M%.1f %.1f V%.1f H%.1f" fill="none" stroke="black"/>`+"\n", left, top, top+plotH, left+plotW)
	text(b, left+plotW/2, height-12, "middle", 12, c.XLabel, "")
	text(b, x0+16, top+plotH/2, "middle", 12, c.YLabel, fmt.Sprintf("rotate(-90 %.1f %.1f)", x0+16, top+plotH/2))

	clip := fmt.Sprintf("plot%d", id)
	fmt.Fprintf(b, `<clipPath id="%s"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"/></clipPath>`+"\n", clip, left, top-2, plotW+2, plotH+4)
	for _, s := range c.Series {
		var pts []string
		for i := range s.X {
			if s.Step && i > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[i]), py(s.Y[i-1])))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[i]), py(s.Y[i])))
		}
		fmt.Fprintf(b, `<polyline clip-path="url(#%s)" fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n",
			clip, attr(s.Color), dashAttr(s.Dash), strings.Join(pts, " "))
	}
}

func dashAttr(dash bool) string {
	if dash {
		return ` stroke-dasharray="6 4"`
	}
	return ""
}

// text writes a <text> element with escaped content.
func text(w io.Writer, x, y float64, anchor string, size int, s, transform string) {
	t := ""
	if transform != "" {
		t = ` transform="` + attr(transform) + `"`
	}
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d"%s>`, x, y, anchor, size, t)
	_ = xml.EscapeText(w, []byte(s))
	fmt.Fprintln(w, `</text>`)
}

// attr escapes an attribute value.
func attr(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// niceAxis picks a tick step of 1, 2 or 5 times a power of ten giving
// about five ticks, and the axis end: the first tick at or above v.
func niceAxis(v float64) (step, end float64) {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1, 1
	}
	raw := v / 5
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * pow
	for _, m := range []float64{1, 2, 5} {
		if m*pow >= raw {
			step = m * pow
			break
		}
	}
	return step, math.Ceil(v/step-1e-9) * step
}

// formatTick prints a tick value with as many decimals as the step needs.
func formatTick(v, step float64) string {
	decimals := 0
	if step < 1 {
		decimals = int(math.Ceil(-math.Log10(step)))
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

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
