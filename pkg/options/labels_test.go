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

package options

import (
	"reflect"
	"strings"
	"testing"
)

func TestLabelsValue(t *testing.T) {
	tests := []struct {
		name    string
		values  []string // one per occurrence of the flag
		want    map[string]string
		wantErr string
	}{
		{name: "one label", values: []string{"a:b"}, want: map[string]string{"a": "b"}},
		{name: "several labels", values: []string{"my-label:my-value,my-second-label:my-second-value"},
			want: map[string]string{"my-label": "my-value", "my-second-label": "my-second-value"}},
		{name: "prefixed key", values: []string{"example.com/owner:team-a"},
			want: map[string]string{"example.com/owner": "team-a"}},
		{name: "empty value", values: []string{"a:"}, want: map[string]string{"a": ""}},
		{name: "repeated flag merges, later wins", values: []string{"a:1,b:2", "b:3,c:4"},
			want: map[string]string{"a": "1", "b": "3", "c": "4"}},
		{name: "empty", values: []string{""}, wantErr: `malformed item "" in list of labels, want key:value`},
		{name: "no colon", values: []string{"a:b,c"}, wantErr: `malformed item "c"`},
		{name: "two colons", values: []string{"a:b:c"}, wantErr: `malformed item "a:b:c"`},
		{name: "trailing comma", values: []string{"a:b,"}, wantErr: `malformed item ""`},
		{name: "empty key", values: []string{":b"}, wantErr: `invalid label key ""`},
		{name: "bad key", values: []string{"a b:c"}, wantErr: `invalid label key "a b"`},
		{name: "bad value", values: []string{"a:b c"}, wantErr: `invalid value "b c" of label "a"`},
		{name: "value too long", values: []string{"a:" + strings.Repeat("x", 64)}, wantErr: `invalid value "xxx`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			v := &labelsValue{m: &got}
			var err error
			for _, s := range tc.values {
				if err = v.Set(s); err != nil {
					break
				}
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Set(%q) error = %v, want it to contain %q", tc.values, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Set(%q) error = %v", tc.values, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Set(%q) = %v, want %v", tc.values, got, tc.want)
			}
		})
	}
}

func TestLabelsValueString(t *testing.T) {
	tests := []struct {
		name string
		v    *labelsValue
		want string
	}{
		{name: "nil value", v: nil, want: ""},
		{name: "nil map pointer", v: &labelsValue{}, want: ""},
		{name: "sorted", v: &labelsValue{m: &map[string]string{"b": "2", "a": "1"}}, want: "a:1,b:2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.v.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLabelsValueAllocatesMap(t *testing.T) {
	var m map[string]string
	if err := (&labelsValue{m: &m}).Set("a:b"); err != nil {
		t.Fatal(err)
	}
	if m["a"] != "b" {
		t.Errorf("map = %v, want a:b", m)
	}
}

func TestLabelsRepeatedOnCommandLine(t *testing.T) {
	o := mustParse(t, "--leader-election-labels=a:1", "-leader-election-labels", "b:2")
	if want := map[string]string{"a": "1", "b": "2"}; !reflect.DeepEqual(o.LeaderElectionLabels, want) {
		t.Errorf("LeaderElectionLabels = %v, want %v", o.LeaderElectionLabels, want)
	}
}
