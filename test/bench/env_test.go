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
	"strings"
	"testing"
)

func TestParseSetting(t *testing.T) {
	tests := []struct {
		in      string
		want    setting
		wantErr bool
	}{
		{in: "default", want: setting{Name: "default", QPS: 5, Burst: 10, Workers: 10}},
		{in: "fast", want: setting{Name: "fast", QPS: 100, Burst: 200, Workers: 50}},
		{in: "20/40/10", want: setting{Name: "20/40/10", QPS: 20, Burst: 40, Workers: 10}},
		{in: "20/40", wantErr: true},
		{in: "20/0/10", wantErr: true},
		{in: "slow", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSetting(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := strings.Join(knownSettings["default"].args(), " "); got != "--kube-api-qps=5 --kube-api-burst=10 --workers=10" {
		t.Errorf("args = %s", got)
	}
}

func TestParseFlagsDefaultsRunEverything(t *testing.T) {
	cfg, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.modes["throughput"] || !cfg.modes["modify"] || !cfg.modes["memory"] || !cfg.modes["latency"] || !cfg.modes["scrape"] || !cfg.modes["nodes"] {
		t.Errorf("modes = %v, want all six", cfg.modes)
	}
	if len(cfg.scrapeN) != 2 || cfg.scrapeN[0] != 10000 || cfg.scrapeN[1] != 50000 {
		t.Errorf("scrape-n = %v, want the issue's 10000 and 50000", cfg.scrapeN)
	}
	if cfg.n != 500 || cfg.modifyN != 500 || cfg.memoryN != 10000 || !cfg.pods || len(cfg.settings) != 2 {
		t.Errorf("defaults: n=%d modify-n=%d memory-n=%d pods=%v settings=%v", cfg.n, cfg.modifyN, cfg.memoryN, cfg.pods, cfg.settings)
	}
	cfg, err = parseFlags([]string{"-mode=modify", "-modify-n=50"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.modes) != 1 || !cfg.modes["modify"] || cfg.modifyN != 50 {
		t.Errorf("-mode=modify -modify-n=50: modes=%v modify-n=%d", cfg.modes, cfg.modifyN)
	}
	if _, err := parseFlags([]string{"-modify-n=0"}); err == nil {
		t.Error("-modify-n=0 was accepted")
	}
	if _, err := parseFlags([]string{"-scrape-n=50000,10000"}); err == nil {
		t.Error("-scrape-n going down was accepted")
	}
	if _, err := parseFlags([]string{"-mode=speed"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
