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

package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
)

func TestDurations(t *testing.T) {
	registry := k8smetrics.NewKubeRegistry()
	r := NewOutcomes(registry, "test.csi.example.com")
	r.ObserveResize("finished", 30*time.Millisecond)
	r.ObserveResize("finished", 2*time.Second)
	r.ObserveResize("infeasible", time.Second)
	r.ObserveModify("uncertain", 10*time.Second)

	want := `
# HELP csi_resizer_resize_duration_seconds [ALPHA] Duration of volume expansion attempts, from the decision to the recorded result, by result (finished, node_pending, or the failure class).
# TYPE csi_resizer_resize_duration_seconds histogram
`
	err := testutil.GatherAndCompare(registry, strings.NewReader(want+expected("resize", "finished", 2, 2.03, map[string]int{"0.05": 1, "2.5": 2})+expected("resize", "infeasible", 1, 1, map[string]int{"1": 1})), "csi_resizer_resize_duration_seconds")
	if err != nil {
		t.Fatal(err)
	}
	wantModify := `
# HELP csi_resizer_modify_duration_seconds [ALPHA] Duration of volume modification attempts (VolumeAttributesClass), from the decision to the recorded result, by result (finished, or the failure class).
# TYPE csi_resizer_modify_duration_seconds histogram
`
	err = testutil.GatherAndCompare(registry, strings.NewReader(wantModify+expected("modify", "uncertain", 1, 10, map[string]int{"10": 1})), "csi_resizer_modify_duration_seconds")
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteFailures(t *testing.T) {
	registry := k8smetrics.NewKubeRegistry()
	r := NewOutcomes(registry, "test.csi.example.com")
	r.ObserveWriteFailure("persistentvolumeclaims/status", "403")
	r.ObserveWriteFailure("persistentvolumeclaims/status", "403")
	r.ObserveWriteFailure("persistentvolumes", "error")
	want := `
# HELP csi_resizer_api_write_failures_total [ALPHA] Writes of claims and PVs that the API server refused or did not answer, by resource and HTTP code (401 and 403: the resizer's RBAC; error: no answer). Conflicts are not counted: the object changed, and the claim is looked at again.
# TYPE csi_resizer_api_write_failures_total counter
csi_resizer_api_write_failures_total{code="403",driver_name="test.csi.example.com",resource="persistentvolumeclaims/status"} 2
csi_resizer_api_write_failures_total{code="error",driver_name="test.csi.example.com",resource="persistentvolumes"} 1
`
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want), "csi_resizer_api_write_failures_total"); err != nil {
		t.Fatal(err)
	}
}

// expected renders the expected buckets of one result of the histogram of
// operation: counts[le] is the count from that bucket on (cumulative).
func expected(operation, result string, count int, sum float64, from map[string]int) string {
	name := "csi_resizer_" + operation + "_duration_seconds"
	buckets := []string{"0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "60", "120", "300", "+Inf"}
	var b strings.Builder
	n := 0
	for _, le := range buckets {
		if c, ok := from[le]; ok {
			n = c
		}
		b.WriteString(name + `_bucket{driver_name="test.csi.example.com",result="` + result + `",le="` + le + `"} ` + itoa(n) + "\n")
	}
	b.WriteString(name + `_sum{driver_name="test.csi.example.com",result="` + result + `"} ` + ftoa(sum) + "\n")
	b.WriteString(name + `_count{driver_name="test.csi.example.com",result="` + result + `"} ` + itoa(count) + "\n")
	return b.String()
}

func TestHealthEndpoints(t *testing.T) {
	var notReady error = errors.New("caches are not synced yet")
	mux := NewMux(func() error { return notReady })
	ctx, cancel := context.WithCancel(context.Background())
	done, err := Serve(ctx, "127.0.0.1:0", mux)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("server stopped with %v", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := Serve(context.Background(), ln.Addr().String(), mux); err == nil || !strings.Contains(err.Error(), "--http-endpoint") {
		t.Fatalf("address in use: want a clear error, got %v", err)
	}

	srv := &http.Server{Handler: mux}
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() { _ = srv.Serve(ln2) }()
	defer srv.Close()
	base := "http://" + ln2.Addr().String()
	check := func(path string, wantCode int, wantBody string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != wantCode || !strings.Contains(string(body), wantBody) {
			t.Errorf("GET %s = %d %q, want %d %q", path, resp.StatusCode, body, wantCode, wantBody)
		}
	}
	check("/healthz", 200, "ok")
	check("/readyz", 503, "caches are not synced yet")
	notReady = nil
	check("/readyz", 200, "ok")
}

func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
