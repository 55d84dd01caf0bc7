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
	"bytes"
	"compress/gzip"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/slim"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
	"github.com/csi-resizer/csi-resizer/test/testobj"
)

func TestStateOfRotatesOneInTen(t *testing.T) {
	for i, want := range map[int]decide.Stage{0: decide.NodePending, 10: decide.NodeInProgress, 20: decide.NodeInfeasible, 30: decide.NodePending} {
		if st, ok := stateOf(i); !ok || st.State != want {
			t.Errorf("stateOf(%d) = %v, %v; want %s", i, st.State, ok, want)
		}
	}
	for _, i := range []int{1, 9, 11, 49999} {
		if st, ok := stateOf(i); ok {
			t.Errorf("stateOf(%d) = %s, want none", i, st.State)
		}
	}
	tests := []struct {
		n    int
		want map[decide.Stage]int
	}{
		{n: 10000, want: map[decide.Stage]int{decide.NodePending: 334, decide.NodeInProgress: 333, decide.NodeInfeasible: 333}},
		{n: 50000, want: map[decide.Stage]int{decide.NodePending: 1667, decide.NodeInProgress: 1667, decide.NodeInfeasible: 1666}},
		{n: 1, want: map[decide.Stage]int{decide.NodePending: 1}},
	}
	for _, tc := range tests {
		if got := expectedStates(tc.n); !maps.Equal(got, tc.want) {
			t.Errorf("expectedStates(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	if got := total(expectedStates(50000)); got != 5000 {
		t.Errorf("claims in a state of 50000 = %d, want 5000", got)
	}
}

// boundAt is a claim as framework.CreateBound leaves it at size.
func boundAt(size string) *v1.PersistentVolumeClaim {
	return testobj.Claim(benchNamespace, claimName(0), size, size)
}

// TestSetNodeStateIsCountedAndLeftAlone checks each state against the code
// the benchmark relies on: the collector's classification counts it, and
// the resizer's decision (with the PV at the grown size) does nothing, so
// the run makes no write.
func TestSetNodeStateIsCountedAndLeftAlone(t *testing.T) {
	since := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	pvSize := resource.MustParse(scrapeGrown)
	for _, st := range nodeStates {
		t.Run(string(st.State), func(t *testing.T) {
			pvc := boundAt(scrapeGrown)
			setNodeState(pvc, st, since)
			entries := decide.Unfinished(slim.NewClaim(pvc), nil)
			if len(entries) != 1 || entries[0].Key != (decide.Key{Operation: decide.OpResize, State: st.State}) {
				t.Fatalf("entries = %+v, want one in resize/%s", entries, st.State)
			}
			if !entries[0].Since.Equal(since) {
				t.Errorf("since = %v, want %v", entries[0].Since, since)
			}
			allocated := pvc.Status.AllocatedResources[v1.ResourceStorage]
			for _, recovery := range []bool{true, false} {
				s := decide.ResizeState{
					Request: pvc.Spec.Resources.Requests[v1.ResourceStorage], Capacity: pvc.Status.Capacity[v1.ResourceStorage],
					PVSize: pvSize, Allocated: &allocated, Status: st.Status, Recovery: recovery,
				}
				if d := decide.DecideResize(s, since.Add(time.Hour), time.Minute); d.Action != decide.ResizeNone {
					t.Errorf("recovery %v: decision %s (%s), want none", recovery, d.Action, d.Reason)
				}
			}
			if c := pvc.Status.Capacity[v1.ResourceStorage]; c.Cmp(resource.MustParse(scrapeSize)) != 0 {
				t.Errorf("status.capacity = %s, want %s: the file system is not grown yet", c.String(), scrapeSize)
			}
		})
	}
}

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

func TestCheckCounts(t *testing.T) {
	want := expectedStates(10000)
	m, err := framework.ParseMetrics(metricsText)
	if err != nil {
		t.Fatal(err)
	}
	samples := m[claimsMetric]
	if err := checkCounts(samples, driverName, want); err != nil {
		t.Errorf("the expected counts: %v", err)
	}
	short := slices.Clone(samples)
	missing := *short[1]
	missing.Value = 300
	short[1] = &missing
	if err := checkCounts(short, driverName, want); err == nil || !strings.Contains(err.Error(), "counts 966 claims in a state") {
		t.Errorf("a missing claim: %v", err)
	}
	// The right sum in the wrong states is not what was put there.
	swapped, _ := framework.ParseMetrics(strings.Replace(strings.Replace(metricsText, `"node_pending"} 334`, `"node_pending"} 333`, 1),
		`"node_infeasible"} 333`, `"node_infeasible"} 334`, 1))
	if err := checkCounts(swapped[claimsMetric], driverName, want); err == nil {
		t.Error("counts in the wrong states were accepted")
	}
	if err := checkCounts(samples, "other.example.com", want); err == nil {
		t.Error("another driver's series were accepted")
	}
	if err := checkCounts(nil, driverName, want); err == nil || !strings.Contains(err.Error(), "reports nothing") {
		t.Errorf("no series: %v", err)
	}
}

func TestParseCounts(t *testing.T) {
	got, err := parseCounts("10000, 50000")
	if err != nil || !slices.Equal(got, []int{10000, 50000}) {
		t.Errorf("parseCounts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "10,10", "50000,10000", "ten"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestThousandsAndCountsList(t *testing.T) {
	for n, want := range map[int]string{7: "7", 999: "999", 1000: "1,000", 50000: "50,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := countsList([]int{1000, 10000, 50000}); got != "1,000, 10,000 and 50,000" {
		t.Errorf("countsList = %q", got)
	}
}

func TestDecode(t *testing.T) {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	_, _ = z.Write([]byte(metricsText))
	_ = z.Close()
	if got, err := decode(b.Bytes(), "gzip"); err != nil || string(got) != metricsText {
		t.Errorf("gzip: %v", err)
	}
	if got, err := decode([]byte("up 1\n"), ""); err != nil || string(got) != "up 1\n" {
		t.Errorf("identity: %q, %v", got, err)
	}
	if _, err := decode(nil, "zstd"); err == nil {
		t.Error("an encoding not asked for was accepted")
	}
}

func TestScrapeRowAndTable(t *testing.T) {
	var times []time.Duration
	for i := 1; i <= scrapeTimed; i++ {
		times = append(times, time.Duration(i)*100*time.Microsecond) // 0.1 to 5.0 ms
	}
	row := scrapeRow{Claims: 10000, Stated: 1000, Series: 10, Bytes: 150 * 1024, Gzipped: 15 * 1024, Foreign: "0.1 s (4%)"}
	row.record(times, procUsage{CPU: 2 * time.Second}, procUsage{CPU: 2*time.Second + 110*time.Millisecond})
	if row.Latency.P50 != 2500*time.Microsecond || row.Latency.P95 != 4800*time.Microsecond || row.Latency.Max != 5*time.Millisecond {
		t.Errorf("latency = %+v", row.Latency)
	}
	if row.CPU != 2200*time.Microsecond {
		t.Errorf("CPU per scrape = %s, want 2.2ms", row.CPU)
	}
	var b strings.Builder
	(&results{Scrape: []scrapeRow{row}}).writeMarkdown(&b)
	out := b.String()
	for _, want := range []string{
		"### Scrape cost: GET /metrics with N claims, 1 in 10 in a state",
		"| Claims | In a state | Series of csi_resizer_claims | Scrape p50 / p95 / max | Resizer CPU per scrape | Response size | Writes |",
		"| 10,000 | 1,000 | 10 | 2.5 ms / 4.8 ms / 5.0 ms | 2.2 ms | 150.0 KiB (15.0 KiB gzipped) | 0 |",
		"Other processes' CPU during the timed scrapes: 0.1 s (4%) with 10,000 claims.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "### Memory") {
		t.Error("a report of scrape runs only has a memory section")
	}
}
