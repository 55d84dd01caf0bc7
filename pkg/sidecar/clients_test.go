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

package sidecar

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/csi-resizer/csi-resizer/internal/kubetest"
	"github.com/csi-resizer/csi-resizer/pkg/kube"
	"github.com/csi-resizer/csi-resizer/pkg/options"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: https://10.0.0.1:6443
contexts:
- name: test
  context:
    cluster: test
    user: test
current-context: test
users:
- name: test
  user:
    token: not-a-secret
`

func TestRestConfig(t *testing.T) {
	good := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(good, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		name     string
		opts     options.Options
		inPod    bool
		wantHost string
		wantErr  []string
	}{
		{name: "kubeconfig", opts: options.Options{Kubeconfig: good}, wantHost: "https://10.0.0.1:6443"},
		{name: "--master overrides the kubeconfig", opts: options.Options{Kubeconfig: good, Master: "https://10.0.0.2:6443"},
			wantHost: "https://10.0.0.2:6443"},
		{name: "--master alone", opts: options.Options{Master: "https://10.0.0.3:6443"}, wantHost: "https://10.0.0.3:6443"},
		{name: "kubeconfig that does not exist", opts: options.Options{Kubeconfig: missing},
			wantErr: []string{"build Kubernetes client configuration", missing}},
		{name: "in-cluster outside a cluster", inPod: true,
			wantErr: []string{"build Kubernetes client configuration"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.inPod {
				t.Setenv("KUBERNETES_SERVICE_HOST", "")
				t.Setenv("KUBERNETES_SERVICE_PORT", "")
			}
			o := tc.opts
			o.KubeAPIQPS, o.KubeAPIBurst = 7.5, 15
			config, err := restConfig(&o)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("restConfig = %+v, want an error", config)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("restConfig error %q does not mention %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("restConfig: %v", err)
			}
			if config.Host != tc.wantHost {
				t.Errorf("host = %q, want %q", config.Host, tc.wantHost)
			}
			if config.QPS != 7.5 || config.Burst != 15 {
				t.Errorf("QPS, burst = %v, %v, want 7.5, 15", config.QPS, config.Burst)
			}
			if config.ContentType != runtime.ContentTypeProtobuf {
				t.Errorf("content type = %q, want protobuf", config.ContentType)
			}
			if config.UserAgent != options.ProgramName {
				t.Errorf("user agent = %q, want %q", config.UserAgent, options.ProgramName)
			}
		})
	}
}

// burst counts the requests a client's rate limiter lets through at once.
// The QPS of the tests is so low that no token comes back meanwhile.
func burst(t *testing.T, client kube.Interface) int {
	t.Helper()
	limiter := client.CoreV1().RESTClient().GetRateLimiter()
	if limiter == nil {
		t.Fatal("client has no rate limiter")
	}
	n := 0
	for limiter.TryAccept() {
		n++
		if n > 1000 {
			t.Fatal("rate limiter without limit")
		}
	}
	return n
}

func TestNewClients(t *testing.T) {
	config := &rest.Config{Host: "https://10.0.0.1:6443", QPS: 0.001, Burst: 3}
	cs, err := newClients(config)
	if err != nil {
		t.Fatalf("newClients: %v", err)
	}
	tests := []struct {
		name      string
		client    kube.Interface
		wantQPS   float32
		wantBurst int
	}{
		{name: "work", client: cs.work, wantQPS: 0.001, wantBurst: 3},
		{name: "events get twice the budget", client: cs.events, wantQPS: 0.002, wantBurst: 6},
		{name: "leader election has its own budget", client: cs.leader, wantQPS: 0.001, wantBurst: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.client.CoreV1().RESTClient().GetRateLimiter().QPS(); got != tc.wantQPS {
				t.Errorf("QPS = %v, want %v", got, tc.wantQPS)
			}
			if got := burst(t, tc.client); got != tc.wantBurst {
				t.Errorf("burst = %d, want %d", got, tc.wantBurst)
			}
		})
	}
	if config.QPS != 0.001 || config.Burst != 3 {
		t.Errorf("newClients changed its configuration to QPS %v, burst %d", config.QPS, config.Burst)
	}
}

func TestNewClientsBadConfig(t *testing.T) {
	_, err := newClients(&rest.Config{Host: "::not a url::"})
	if err == nil || !strings.Contains(err.Error(), "create work client") {
		t.Errorf("newClients with a bad host = %v, want an error about the work client", err)
	}
}

func TestRecorder(t *testing.T) {
	client := fake.NewClientset()
	recorder, stop := newRecorder(kubetest.Wrap(client), testDriver)
	defer stop()
	pvc := claim("data", "2Gi", "1Gi")
	recorder.Event(pvc, v1.EventTypeNormal, "Resizing", "External resizer is resizing volume pv-data")
	waitFor(t, "the event to be written", func() (bool, error) {
		events, err := client.CoreV1().Events(testNamespace).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.Reason == "Resizing" && e.InvolvedObject.Name == "data" {
				if want := "external-resizer " + testDriver; e.Source.Component != want {
					t.Errorf("event source = %q, want %q", e.Source.Component, want)
				}
				return true, nil
			}
		}
		return false, nil
	})
}
