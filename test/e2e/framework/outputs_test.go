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

package framework

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const metricsText = `# HELP csi_resizer_claims [ALPHA] Claims of this driver.
# TYPE csi_resizer_claims gauge
csi_resizer_claims{driver_name="bench.csi.example.com",operation="resize",state="controller_in_progress"} 0
csi_resizer_claims{driver_name="bench.csi.example.com",operation="resize",state="node_pending"} 334
csi_resizer_claims{driver_name="bench.csi.example.com",operation="resize",state="node_in_progress"} 333
csi_resizer_claims{driver_name="bench.csi.example.com",operation="resize",state="node_infeasible"} 333 1700000000000
csi_resizer_claims{driver_name="bench.csi.example.com",operation="modify",state="pending"} 0
# HELP csi_resizer_claim_oldest_seconds [ALPHA] Seconds since the oldest claim.
csi_resizer_claim_oldest_seconds{driver_name="bench.csi.example.com",operation="resize",state="node_pending"} 612.5
csi_resizer_claims_other{driver_name="x"} 7
workqueue_depth{name="bench.csi.example.com-pvc"} 0
`

func TestParseMetrics(t *testing.T) {
	m, err := ParseMetrics(metricsText)
	if err != nil {
		t.Fatal(err)
	}
	got := m["csi_resizer_claims"]
	if len(got) != 5 {
		t.Fatalf("%d samples, want 5: %+v", len(got), got)
	}
	if s := got[3]; s.Metric["state"] != "node_infeasible" || s.Metric["operation"] != "resize" || s.Value != 333 {
		t.Errorf("fourth sample = %+v", s)
	}
	if oldest := m["csi_resizer_claim_oldest_seconds"]; len(oldest) != 1 || oldest[0].Value != 612.5 {
		t.Errorf("oldest = %+v", oldest)
	}
	plain, err := ParseMetrics("up 1\nupper 2\n")
	if err != nil || len(plain["up"]) != 1 || plain["up"][0].Value != 1 || len(plain["up"][0].Metric) != 1 {
		t.Errorf("a series without labels: %+v, %v", plain, err)
	}
	escaped, err := ParseMetrics(`m{a="x\"y\\z\n",b=""} 3` + "\n")
	if err != nil || len(escaped["m"]) != 1 || escaped["m"][0].Metric["a"] != "x\"y\\z\n" || escaped["m"][0].Metric["b"] != "" {
		t.Errorf("escapes: %+v, %v", escaped, err)
	}
	for _, bad := range []string{`m{a="x} 1`, `m{a="x"} `, `m{a="x"} one`, `m{a} 1`, `m{a="x\`} {
		if _, err := ParseMetrics(bad + "\n"); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestHasLabels(t *testing.T) {
	m, err := ParseMetrics(metricsText)
	if err != nil {
		t.Fatal(err)
	}
	depth := m["workqueue_depth"][0]
	for _, tc := range []struct {
		labels map[string]string
		want   bool
	}{
		{labels: nil, want: true},
		{labels: map[string]string{"name": "bench.csi.example.com-pvc"}, want: true},
		{labels: map[string]string{"name": "other-pvc"}, want: false},
		// A label the sample does not carry reads as empty.
		{labels: map[string]string{"driver_name": ""}, want: true},
		{labels: map[string]string{"driver_name": "x"}, want: false},
	} {
		if got := HasLabels(depth, tc.labels); got != tc.want {
			t.Errorf("HasLabels(%v) = %v, want %v", tc.labels, got, tc.want)
		}
	}
}

// TestScrapeMetrics serves metricsText, and reads a value of it by name
// and labels; a series that is not served, and an answer other than 200,
// are told apart.
func TestScrapeMetrics(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(metricsText)) })
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	m, err := ScrapeMetrics(context.Background(), l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := MetricValue(m, "csi_resizer_claims", map[string]string{"state": "node_in_progress"}); !ok || v != 333 {
		t.Errorf("node_in_progress claims = %v, %v; want 333", v, ok)
	}
	if v, ok := MetricValue(m, "csi_resizer_claims", map[string]string{"state": "gone"}); ok {
		t.Errorf("a series not served was found: %v", v)
	}
	if code, _, err := HTTPGet(context.Background(), l.Addr().String(), "/other"); err != nil || code != http.StatusNotFound {
		t.Errorf("GET /other = %d, %v; want 404", code, err)
	}
}

func TestDecisions(t *testing.T) {
	log := filepath.Join(t.TempDir(), "resizer.log")
	head := `I1124 08:19:23.591250   27769 controller.go:168] "Starting workers" driver="e2e-1.csi.example.com" workers=10
I1124 08:19:23.591502   27769 plan.go:57] "Decided" pvc="e2e-1/data" next="none" owner="nobody" why="settled" resize="none" resizeTarget="0" resizeReason="requested size is reached"
`
	tail := `I1124 08:19:23.606007   27769 plan.go:57] "Decided" pvc="e2e-1/data" next="none" owner="user" why="slow-lane" modify="wait" modifyTarget="e2e-1-gold" modifyReason="class \"e2e-1-gold\" was infeasible; retrying in 3s unless the class changes"
E1124 08:19:23.700000   27769 sync.go:1] "Not a decision" pvc="e2e-1/data"
I1124 08:19:23.711767   27769 plan.go:57] "Decided" pvc="e2e-1/other" next="modify" owner="resizer" why="step-due" resize="none" resizeTarget="0" resizeReason="requested size is reached" modify="modify" modifyTarget="gold" modifyReason="the class changed"
I1124 08:19:23.711800   27769 plan.go:57] "Decided" pvc="e2e-1/data" next="modify" owner="resizer" why="step-due" modify="cancel" modifyTar`
	if err := os.WriteFile(log, []byte(head+tail), 0o600); err != nil {
		t.Fatal(err)
	}
	all, err := Decisions(log, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Decision{
		{Claim: "e2e-1/data", Next: "none", Owner: "nobody", Why: "settled", Operation: "resize", Action: "none", Target: "0", Reason: "requested size is reached"},
		{Claim: "e2e-1/data", Next: "none", Owner: "user", Why: "slow-lane", Operation: "modify", Action: "wait", Target: "e2e-1-gold",
			Reason: `class "e2e-1-gold" was infeasible; retrying in 3s unless the class changes`},
		{Claim: "e2e-1/other", Next: "modify", Owner: "resizer", Why: "step-due", Operation: "resize", Action: "none", Target: "0", Reason: "requested size is reached"},
		{Claim: "e2e-1/other", Next: "modify", Owner: "resizer", Why: "step-due", Operation: "modify", Action: "modify", Target: "gold", Reason: "the class changed"},
	}
	if !slices.Equal(all, want) {
		t.Errorf("Decisions = %v, want %v (the line being written left out)", all, want)
	}
	later, err := Decisions(log, int64(len(head)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(later, want[1:]) {
		t.Errorf("Decisions from the offset = %v, want %v", later, want[1:])
	}
}
