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
	"strings"
	"testing"
)

// TestLeaderJitterFactorIsClientGos checks the copy of client-go's jitter
// factor against the original.
func TestValidationErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "zero workers", args: []string{"--workers=0"},
			wantErr: "invalid value 0 for flag --workers: must be at least 1"},
		{name: "negative workers", args: []string{"-workers=-2"},
			wantErr: "invalid value -2 for flag --workers: must be at least 1"},
		{name: "zero timeout", args: []string{"--timeout=0s"},
			wantErr: "invalid value 0s for flag --timeout: must be greater than zero"},
		{name: "negative timeout", args: []string{"--timeout=-1s"},
			wantErr: "invalid value -1s for flag --timeout: must be greater than zero"},
		{name: "zero resize-timeout", args: []string{"--resize-timeout=0s"},
			wantErr: "invalid value 0s for flag --resize-timeout: must be greater than zero"},
		{name: "negative resize-timeout", args: []string{"-resize-timeout=-1m"},
			wantErr: "invalid value -1m0s for flag --resize-timeout: must be greater than zero"},
		{name: "zero modify-timeout", args: []string{"-modify-timeout=0s"},
			wantErr: "invalid value 0s for flag --modify-timeout: must be greater than zero"},
		{name: "negative modify-timeout", args: []string{"--modify-timeout=-5s"},
			wantErr: "invalid value -5s for flag --modify-timeout: must be greater than zero"},
		{name: "bad resize-timeout even when timeout overrides it", args: []string{"--timeout=1m", "--resize-timeout=0s"},
			wantErr: "invalid value 0s for flag --resize-timeout: must be greater than zero"},
		{name: "zero timeout with valid new ones", args: []string{"--timeout=0s", "--resize-timeout=1m", "--modify-timeout=1m"},
			wantErr: "invalid value 0s for flag --timeout: must be greater than zero"},
		{name: "negative resync", args: []string{"--resync-period=-1m"},
			wantErr: "invalid value -1m0s for flag --resync-period: must not be negative"},
		{name: "zero retry start", args: []string{"--retry-interval-start=0s"},
			wantErr: "invalid value 0s for flag --retry-interval-start: must be greater than zero"},
		{name: "retry start above max", args: []string{"--retry-interval-start=10m"},
			wantErr: "invalid value 10m0s for flag --retry-interval-start: must not be greater than --retry-interval-max (5m0s)"},
		{name: "retry max below start", args: []string{"--retry-interval-start=2s", "--retry-interval-max=1s"},
			wantErr: "must not be greater than --retry-interval-max (1s)"},
		{name: "zero qps", args: []string{"--kube-api-qps=0"},
			wantErr: "invalid value 0 for flag --kube-api-qps: must be a finite number greater than zero"},
		{name: "negative qps", args: []string{"--kube-api-qps=-1"},
			wantErr: "invalid value -1 for flag --kube-api-qps"},
		{name: "NaN qps", args: []string{"--kube-api-qps=NaN"},
			wantErr: "invalid value NaN for flag --kube-api-qps"},
		{name: "infinite qps", args: []string{"--kube-api-qps=+Inf"},
			wantErr: "invalid value +Inf for flag --kube-api-qps"},
		{name: "zero burst", args: []string{"--kube-api-burst=0"},
			wantErr: "invalid value 0 for flag --kube-api-burst: must be at least 1"},
		{name: "metrics-address with http-endpoint", args: []string{"--metrics-address=:9090", "--http-endpoint=:8080"},
			wantErr: "only one of --metrics-address and --http-endpoint can be set"},
		{name: "relative metrics path", args: []string{"--metrics-path=metrics"},
			wantErr: `invalid value "metrics" for flag --metrics-path: must start with "/"`},
		{name: "empty metrics path", args: []string{"--metrics-path="},
			wantErr: `invalid value "" for flag --metrics-path: must start with "/"`},
		{name: "lease not above renew", args: []string{"--leader-election", "--leader-election-lease-duration=10s"},
			wantErr: "--leader-election-lease-duration (10s) must be greater than --leader-election-renew-deadline (10s)"},
		{name: "renew not above retry times jitter", args: []string{"--leader-election", "--leader-election-renew-deadline=6s"},
			wantErr: "--leader-election-renew-deadline (6s) must be greater than 1.2 times --leader-election-retry-period (5s), i.e. greater than 6s"},
		{name: "zero retry period", args: []string{"--leader-election", "--leader-election-retry-period=0s"},
			wantErr: "invalid value 0s for flag --leader-election-retry-period: must be greater than zero"},
		{name: "all problems on one line", args: []string{"--workers=0", "--kube-api-burst=0"},
			wantErr: "invalid value 0 for flag --workers: must be at least 1; invalid value 0 for flag --kube-api-burst: must be at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, out, err := parse(t, tc.args...)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error %q", tc.args, o, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse(%q) error = %q, want it to contain %q", tc.args, err, tc.wantErr)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("Parse(%q) error has more than one line: %q", tc.args, err)
			}
			if out != "" {
				t.Errorf("Parse(%q) wrote %q, want nothing", tc.args, out)
			}
		})
	}
}

func TestLeaderElectionTimingsOnlyCheckedWhenEnabled(t *testing.T) {
	// Upstream ignores the lease timings without --leader-election; so do we.
	mustParse(t, "--leader-election-lease-duration=1s", "--leader-election-renew-deadline=5s")
}

func TestLeaderElectionTimingsAtTheLimit(t *testing.T) {
	o := mustParse(t, "--leader-election", "--leader-election-lease-duration=8s",
		"--leader-election-renew-deadline=7s", "--leader-election-retry-period=5s")
	if !o.LeaderElection {
		t.Error("LeaderElection = false")
	}
}
