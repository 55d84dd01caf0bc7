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
	"fmt"
	"reflect"
	"testing"
)

// settingsKeys are the keys of the Settings line, in order. The corpus test
// of cmd/csi-resizer and the README name them.
var settingsKeys = []string{
	"csiAddress", "timeout", "resizeTimeout", "modifyTimeout", "workers",
	"resyncPeriod", "retryIntervalStart", "retryIntervalMax",
	"handleVolumeInUseError", "leaderElection", "leaderElectionNamespace",
	"leaseDuration", "renewDeadline", "retryPeriod", "kubeAPIQPS",
	"kubeAPIBurst", "httpEndpoint", "metricsAddress", "metricsPath",
	"verbosity", "featureGates", "extraModifyMetadata", "nodeDeployment",
}

func TestSettings(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want map[string]any // the keys that differ from the defaults
	}{
		{name: "defaults"},
		{
			name: "--timeout overrides the call timeouts",
			args: []string{"--timeout=90s", "--resize-timeout=5s"},
			want: map[string]any{"timeout": "1m30s", "resizeTimeout": "1m30s", "modifyTimeout": "1m30s"},
		},
		{
			name: "the Lease namespace from POD_NAMESPACE",
			env:  map[string]string{PodNamespaceEnv: "kube-system"},
			want: map[string]any{"leaderElectionNamespace": "kube-system"},
		},
		{
			name: "gates sorted by name, only those named",
			args: []string{"--feature-gates=VolumeAttributesClass=false", "--feature-gates=AnnotateFsResize=true,AllAlpha=false"},
			want: map[string]any{"featureGates": "AllAlpha=false,AnnotateFsResize=true,VolumeAttributesClass=false"},
		},
		{
			name: "every other flag",
			args: []string{
				"-csi-address=/csi/csi.sock", "--workers=3", "--resync-period=0", "--retry-interval-start=500ms",
				"--retry-interval-max=30m", "--handle-volume-inuse-error=false", "--leader-election",
				"--leader-election-namespace=storage", "--leader-election-lease-duration=30s",
				"--leader-election-renew-deadline=20s", "--leader-election-retry-period=10s",
				"--kube-api-qps=25.5", "--kube-api-burst=50", "--metrics-address=:9000",
				"--metrics-path=/m", "--v=5", "--extra-modify-metadata",
			},
			want: map[string]any{
				"csiAddress": "/csi/csi.sock", "workers": 3, "resyncPeriod": "0s", "retryIntervalStart": "500ms",
				"retryIntervalMax": "30m0s", "handleVolumeInUseError": false, "leaderElection": true,
				"leaderElectionNamespace": "storage", "leaseDuration": "30s", "renewDeadline": "20s",
				"retryPeriod": "10s", "kubeAPIQPS": 25.5, "kubeAPIBurst": 50, "metricsAddress": ":9000",
				"metricsPath": "/m", "verbosity": uint32(5), "extraModifyMetadata": true,
			},
		},
		{
			name: "node deployment",
			args: []string{"--node-deployment", "--http-endpoint=:8080"},
			env:  map[string]string{NodeNameEnv: "node-a"},
			want: map[string]any{"nodeDeployment": true, "httpEndpoint": ":8080"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(PodNamespaceEnv, "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			got := settingsMap(t, mustParse(t, tc.args...).Settings())
			want := map[string]any{
				"csiAddress": "/run/csi/socket", "timeout": "10s", "resizeTimeout": "10s", "modifyTimeout": "10s",
				"workers": 10, "resyncPeriod": "10m0s", "retryIntervalStart": "1s", "retryIntervalMax": "5m0s",
				"handleVolumeInUseError": true, "leaderElection": false,
				"leaderElectionNamespace": (&Options{}).LeaseNamespace(),
				"leaseDuration":           "15s", "renewDeadline": "10s", "retryPeriod": "5s", "kubeAPIQPS": 5.0,
				"kubeAPIBurst": 10, "httpEndpoint": "", "metricsAddress": "", "metricsPath": "/metrics",
				"verbosity": uint32(0), "featureGates": "", "extraModifyMetadata": false, "nodeDeployment": false,
			}
			for k, v := range tc.want {
				want[k] = v
			}
			for _, k := range settingsKeys {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Errorf("%s = %#v, want %#v", k, got[k], want[k])
				}
			}
		})
	}
}

// settingsMap checks that kv holds settingsKeys in order, each once, and
// returns it as a map.
func settingsMap(t *testing.T, kv []any) map[string]any {
	t.Helper()
	if len(kv) != 2*len(settingsKeys) {
		t.Fatalf("Settings() has %d items, want %d key/value pairs", len(kv), len(settingsKeys))
	}
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		if key := fmt.Sprint(kv[i]); key != settingsKeys[i/2] {
			t.Fatalf("Settings() key %d = %q, want %q", i/2, key, settingsKeys[i/2])
		}
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}
