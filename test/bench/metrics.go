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
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The Prometheus text format, as far as the scrape mode reads it.

// sample is one line of the Prometheus text format: a series and its value.
type sample struct {
	Labels map[string]string
	Value  float64
}

// parseSeries returns the samples of the metric name in text, whose lines
// are `name{label="value",...} value [timestamp]`.
func parseSeries(text, name string) ([]sample, error) {
	var out []sample
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || (rest[0] != '{' && rest[0] != ' ') {
			continue // a comment, another metric, or a longer name
		}
		s := sample{Labels: map[string]string{}}
		if rest[0] == '{' {
			var err error
			if s.Labels, rest, err = parseLabels(rest[1:]); err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("%q: no value", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		s.Value = v
		out = append(out, s)
	}
	return out, nil
}

// parseLabels reads `a="x",b="y"}` and returns the labels and what follows
// the closing brace.
func parseLabels(s string) (map[string]string, string, error) {
	labels := map[string]string{}
	for {
		if rest, ok := strings.CutPrefix(s, "}"); ok {
			return labels, rest, nil
		}
		key, rest, ok := strings.Cut(s, `="`)
		if !ok || key == "" || strings.ContainsAny(key, ",} ") {
			return nil, "", errors.New("a label without a quoted value")
		}
		value, rest, err := unquoteLabel(rest)
		if err != nil {
			return nil, "", err
		}
		labels[key] = value
		s = strings.TrimPrefix(rest, ",")
	}
}

// unquoteLabel reads a label value up to its closing quote; the format
// escapes backslash, quote and newline.
func unquoteLabel(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			if i++; i == len(s) {
				return "", "", errors.New("a label value ends in a backslash")
			}
			if s[i] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", errors.New("an unterminated label value")
}
