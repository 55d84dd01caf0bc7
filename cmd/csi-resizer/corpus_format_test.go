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
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"ADDRESS": "/csi/csi.sock", "NS": "kube-system", "EMPTY": ""}
	tests := []struct {
		name, in, want string
	}{
		{name: "a reference", in: "--csi-address=$(ADDRESS)", want: "--csi-address=/csi/csi.sock"},
		{name: "two references", in: "$(NS)/$(ADDRESS)", want: "kube-system//csi/csi.sock"},
		{name: "unknown stays", in: "--x=$(NOPE)", want: "--x=$(NOPE)"},
		{name: "empty value", in: "a$(EMPTY)b", want: "ab"},
		{name: "escaped", in: "$$(ADDRESS)", want: "$(ADDRESS)"},
		{name: "double escape", in: "$$$$", want: "$$"},
		{name: "unterminated", in: "$(ADDRESS", want: "$(ADDRESS"},
		{name: "lone dollar", in: "a$b$", want: "a$b$"},
		{name: "empty name", in: "$()", want: "$()"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := expand(tc.in, vars); got != tc.want {
				t.Errorf("expand(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		wantErr  bool
	}{
		{name: "none", in: "-", want: nil},
		{name: "spaces", in: "--v=5  --leader-election", want: []string{"--v=5", "--leader-election"}},
		{name: "quoted", in: "'--labels=a:b c' --v=1", want: []string{"--labels=a:b c", "--v=1"}},
		{name: "quoted part", in: "--x='a b'", want: []string{"--x=a b"}},
		{name: "empty quotes", in: "''", want: []string{""}},
		{name: "unterminated", in: "'a b", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := words(tc.in)
			if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("words(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestParseCorpus(t *testing.T) {
	const good = "d | src | A=/x | --csi-address=$(A) | csi-address=/x"
	tests := []struct {
		name    string
		data    string
		wantErr string // "" for none
	}{
		{name: "good", data: "# header\n\n" + good},
		{name: "refused", data: "d | src | - | --nope=1 | refused=nope"},
		{name: "four fields", data: "# h\nd | src | - | --v=1", wantErr: "2: 4 fields"},
		{name: "bad env", data: "d | src | A | - | -", wantErr: `1: env: "A" is not VAR=value`},
		{name: "unknown key", data: "d | src | - | - | workerz=3", wantErr: `1: expect: unknown key "workerz"`},
		{name: "not key=value", data: "d | src | - | - | workers", wantErr: `1: expect: "workers" is not key=value`},
		{name: "unterminated quote", data: "d | src | - | 'a | -", wantErr: "1: args: unterminated quote"},
		{name: "name twice", data: good + "\n" + good, wantErr: `2: driver "d" is on line 1 too`},
		{name: "no driver", data: "# only comments\n", wantErr: "0: no driver"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			drivers, errs := parseCorpus(tc.data)
			if tc.wantErr == "" {
				if len(errs) > 0 || len(drivers) == 0 {
					t.Fatalf("parseCorpus() = %+v, %v; want drivers and no error", drivers, errs)
				}
				return
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.wantErr) {
				t.Errorf("parseCorpus() errors = %v, want one starting with %q", errs, tc.wantErr)
			}
		})
	}
	drivers, _ := parseCorpus(good)
	if d := drivers[0]; !reflect.DeepEqual(d.args, []string{"--csi-address=/x"}) || !reflect.DeepEqual(d.env, []string{"A=/x"}) || d.line != 1 {
		t.Errorf("parseCorpus(%q) = %+v", good, d)
	}
}
