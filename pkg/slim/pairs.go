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

package slim

// Pairs is a small map of strings kept as its keys and values, each key
// followed by its value. A Go map of a few entries weighs several times
// more, and annotations are read rarely: once a sync, not once an event.
type Pairs []string

// PairsOf returns the entries of m but the key drop, nil when none is left.
// The strings are shared with m.
func PairsOf(m map[string]string, drop string) Pairs {
	n := len(m)
	if _, ok := m[drop]; ok {
		n--
	}
	if n == 0 {
		return nil
	}
	p := make(Pairs, 0, 2*n)
	for k, v := range m {
		if k != drop {
			p = append(p, k, v)
		}
	}
	return p
}

// Get returns the value of key, "" when absent.
func (p Pairs) Get(key string) string {
	for i := 0; i+1 < len(p); i += 2 {
		if p[i] == key {
			return p[i+1]
		}
	}
	return ""
}

// Map returns the entries as a new map, nil when there are none.
func (p Pairs) Map() map[string]string {
	if len(p) == 0 {
		return nil
	}
	m := make(map[string]string, len(p)/2)
	for i := 0; i+1 < len(p); i += 2 {
		m[p[i]] = p[i+1]
	}
	return m
}
