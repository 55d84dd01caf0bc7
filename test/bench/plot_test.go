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
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// elements parses doc as XML and returns the count of each element name;
// it fails the test if doc is not well-formed.
func elements(t *testing.T, doc []byte) map[string]int {
	t.Helper()
	count := map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 && (el.Name.Local != "svg" || el.Name.Space != "http://www.w3.org/2000/svg") {
				t.Errorf("root element is %v, want svg in the SVG namespace", el.Name)
			}
			count[el.Name.Local]++
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 {
		t.Errorf("%d elements left open", depth)
	}
	return count
}

func TestChartIsWellFormedSVG(t *testing.T) {
	c := chart{
		Title:  `Claims finished <over> time & "quotes"`,
		XLabel: "seconds",
		YLabel: "claims",
		Series: []series{
			{Name: "QPS 5 / burst 10: 500 in 312 s", Color: "#1f77b4", Step: true, X: []float64{0, 1, 2, 300}, Y: []float64{0, 1, 2, 500}},
			{Name: "budget <dashed>", Color: "#1f77b4", Dash: true, X: []float64{0, 300}, Y: []float64{0, 500}},
			{Name: "QPS 100", Color: "#d62728", Step: true, X: []float64{0, 9.8}, Y: []float64{0, 500}},
		},
	}
	zoom := c
	zoom.XMax = 10
	var b bytes.Buffer
	if err := (figure{Title: "two panels", Charts: []chart{c, zoom}}).writeSVG(&b); err != nil {
		t.Fatal(err)
	}
	n := elements(t, b.Bytes())
	if n["polyline"] != 6 {
		t.Errorf("%d polylines, want one per series and panel (6)", n["polyline"])
	}
	if n["clipPath"] != 2 {
		t.Errorf("%d clip paths, want one per panel (2)", n["clipPath"])
	}
	if !strings.Contains(b.String(), `id="plot0"`) || !strings.Contains(b.String(), `id="plot1"`) {
		t.Error("the panels' clip paths do not have distinct ids")
	}
	if n["text"] < 10 {
		t.Errorf("%d text elements: axes, ticks, labels or legend missing", n["text"])
	}
	for _, want := range []string{"Claims finished &lt;over&gt; time &amp;", "budget &lt;dashed&gt;", "stroke-dasharray", "seconds", "claims"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestChartWithoutData(t *testing.T) {
	var b bytes.Buffer
	if err := (figure{Title: "empty", Charts: []chart{{Title: "nothing"}}}).writeSVG(&b); err != nil {
		t.Fatal(err)
	}
	elements(t, b.Bytes())
	if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
		t.Errorf("empty chart has NaN or Inf coordinates:\n%s", b.String())
	}
}

func TestNiceAxis(t *testing.T) {
	tests := []struct {
		name            string
		max, step, last float64
	}{
		{name: "a 312 s run", max: 312, step: 100, last: 400},
		{name: "a 9.8 s run", max: 9.8, step: 2, last: 10},
		{name: "500 claims", max: 500, step: 100, last: 500},
		{name: "small values", max: 0.7, step: 0.2, last: 0.8},
		{name: "nothing", max: 0, step: 1, last: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			step, last := niceAxis(tc.max)
			if !near(step, tc.step) || !near(last, tc.last) {
				t.Errorf("niceAxis(%v) = %v, %v; want %v, %v", tc.max, step, last, tc.step, tc.last)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
