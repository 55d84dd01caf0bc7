//go:build e2e

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

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-resizer/csi-resizer/pkg/decide"
	"github.com/csi-resizer/csi-resizer/pkg/events"
	"github.com/csi-resizer/csi-resizer/pkg/plugin"
	"github.com/csi-resizer/csi-resizer/test/csidriver"
	"github.com/csi-resizer/csi-resizer/test/e2e/framework"
)

// listed is a line of `kubectl csi-resizer list` a test expects: the claim,
// operation, state, who owns the next step, and whether a time is known.
type listed struct {
	ns, name, op, state, by string
	since                   bool
}

func (l listed) String() string {
	since := "since"
	if !l.since {
		since = "<unknown>"
	}
	return fmt.Sprintf("%s/%s %s %s %s %s", l.ns, l.name, l.op, l.state, since, l.by)
}

// runList runs `kubectl csi-resizer list` as the explain identity (the
// ClusterRole of explain-rbac.yaml), logs what an operator sees, and fails
// on a non-zero exit or a warning.
func runList(t *testing.T, args ...string) string {
	t.Helper()
	args = append([]string{plugin.ListName}, args...)
	out, stderr, code := runExplain(t, args...)
	if code != plugin.ExitOK {
		t.Fatalf("list %q exited with %d: %s", args, code, stderr)
	}
	if strings.Contains(stderr, "Warning:") {
		t.Errorf("list %q could not read everything with get and list: %s", args, stderr)
	}
	t.Logf("kubectl csi-resizer %s\n%s%s", strings.Join(args, " "), out, stderr)
	return out
}

// tableLines parses list's table: the header, then the lines of the
// claims of namespaces (others' tests leave claims behind).
func tableLines(t *testing.T, out string, namespaces ...string) []listed {
	t.Helper()
	rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if h := strings.Fields(rows[0]); len(h) < 7 || strings.Join(h[:7], " ") != "NAMESPACE NAME OPERATION STATE SINCE OWNER REASON" &&
		strings.Join(h[:7], " ") != "NAMESPACE NAME OPERATION STATE SINCE OWNER DRIVER" {
		t.Fatalf("header %q", rows[0])
	}
	var got []listed
	for _, row := range rows[1:] {
		f := strings.Fields(row)
		if len(f) < 7 || !slices.Contains(namespaces, f[0]) {
			continue
		}
		got = append(got, listed{ns: f[0], name: f[1], op: f[2], state: f[3], since: f[4] != "<unknown>", by: f[5]})
	}
	return got
}

func checkListed(t *testing.T, what string, got, want []listed) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s:\n%s\nwant:\n%s", what, joinListed(got), joinListed(want))
	}
}

func joinListed(ls []listed) string {
	var s []string
	for _, l := range ls {
		s = append(s, l.String())
	}
	return strings.Join(s, "\n")
}

// patchClaimStatus patches the claim's status as kubelet writes it.
func (e *env) patchClaimStatus(claim, patch string) {
	e.t.Helper()
	_, err := cluster.Admin.CoreV1().PersistentVolumeClaims(e.ns).Patch(e.ctx, claim, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	must(e.t, err)
}

// checkSameAsMetrics checks that the resizer of e, scraped on port, counts
// in csi_resizer_claims, per operation and state, the items of its driver
// (the metrics are computed at the scrape from its caches, which may lag a
// moment behind the API server: it waits for them).
func (e *env) checkSameAsMetrics(port int, items []plugin.Item) {
	e.t.Helper()
	want := map[string]float64{}
	for _, k := range decide.KnownStages() {
		want[string(k.Operation)+" "+string(k.State)] = 0
	}
	for _, it := range items {
		if it.Driver == e.driver.Name {
			want[it.Operation+" "+it.State]++
		}
	}
	var got map[string]float64
	err := wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		body, err := scrape(ctx, port)
		if err != nil {
			return false, nil
		}
		samples, err := parseMetrics(body)
		if err != nil {
			return false, err
		}
		got = map[string]float64{}
		for _, s := range samples {
			if s.name == "csi_resizer_claims" && s.labels["driver_name"] == e.driver.Name {
				v, err := strconv.ParseFloat(s.value, 64)
				if err != nil {
					return false, err
				}
				got[s.labels["operation"]+" "+s.labels["state"]] = v
			}
		}
		return maps.Equal(got, want), nil
	})
	if err != nil {
		e.t.Errorf("csi_resizer_claims of %s = %v; list lists %v (%v)", e.driver.Name, got, want, err)
	}
}

// next lets a second pass, so that the next claim enters its state at a
// later second than the last one (conditions record seconds): the list's
// order is then the order the test made the states in.
func next() { time.Sleep(1100 * time.Millisecond) }

// TestList lists claims in every state, of two drivers in two namespaces
// and of a third driver whose resizer does not run, with the explain
// identity's get and list only: the states, who owns the next step, the
// order (oldest first, those that record no time last), and the filters
// -n, -A and --driver, as a table, wide and JSON; and that each resizer
// counts the same claims in each state in csi_resizer_claims.
func TestList(t *testing.T) {
	bindExplainer(t)
	// Slow retries keep a failed claim in its state; a long timeout keeps
	// a held call in flight. Both resizers serve their metrics.
	ports, err := framework.FreePorts(2)
	must(t, err)
	a := newEnv(t, modifiable, append(withLease, "--retry-interval-start=30s", "--retry-interval-max=5m", "--timeout=10m",
		"--http-endpoint=127.0.0.1:"+strconv.Itoa(ports[0]))...)
	b := newEnv(t, framework.DriverOptions{NodeExpansionRequired: true, OfflineOnly: true}, append(withLease, "--http-endpoint=127.0.0.1:"+strconv.Itoa(ports[1]))...)

	// The volumes first, so that the driver's answers can be scripted by
	// volume, once: a retry takes the next answer of its own volume.
	handles := map[string]string{}
	for _, name := range []string{"failing", "big", "refused", "slow", "modslow", "gold", "done"} {
		handles[name] = a.volume(name, "1Gi").Handle
	}
	var answers []framework.Answer
	for range 20 {
		answers = append(answers,
			framework.Answer{VolumeID: handles["failing"], Code: "Internal", Message: "the backend is down"},
			framework.Answer{VolumeID: handles["big"], Code: "OutOfRange", Message: "at most 5Gi per volume"},
			framework.Answer{VolumeID: handles["slow"], Delay: "10m"},
			framework.Answer{Method: csidriver.MethodModify, VolumeID: handles["refused"], Code: "InvalidArgument", Message: "iops 3000 is above the limit"},
			framework.Answer{Method: csidriver.MethodModify, VolumeID: handles["modslow"], Delay: "10m"})
	}
	must(t, a.driver.Script(answers...))
	fast := a.attributesClass("fast", map[string]string{"iops": "3000"})

	// A claim of a driver whose resizer does not run: its status says that
	// an expansion was begun, as another resizer would have left it.
	other := "other-" + a.ns + ".csi.example.com"
	_, err = framework.CreateBound(a.ctx, cluster.Admin, framework.Volume{Namespace: a.ns, Claim: "foreign", Class: a.class, Driver: other, Handle: "other-1", Size: "1Gi"})
	must(t, err)
	a.grow("foreign", "2Gi")
	a.patchClaimStatus("foreign", fmt.Sprintf(`{"status":{"allocatedResources":{"storage":"2Gi"},"allocatedResourceStatuses":{"storage":"ControllerResizeInProgress"},`+
		`"conditions":[{"type":"Resizing","status":"True","lastTransitionTime":%q}]}}`, time.Now().UTC().Format(time.RFC3339)))
	next()

	a.grow("done", "2Gi")
	a.waitClaim("done", "the resize", finished("2Gi"))
	a.grow("failing", "3Gi")
	a.waitClaim("failing", "the final failure", func(pvc *v1.PersistentVolumeClaim) bool {
		return framework.HasCondition(pvc, v1.PersistentVolumeClaimControllerResizeError)
	})
	next()
	a.grow("big", "10Gi")
	a.waitResizeStatus("big", "ControllerResizeInfeasible")
	next()
	a.setClass("refused", fast)
	a.waitModifyStatus("refused", fast, v1.PersistentVolumeClaimModifyVolumeInfeasible)
	next()
	a.grow("slow", "2Gi")
	a.waitFact("slow", fact{reason: events.ReasonResizing, words: []string{"External resizer is resizing volume"}})
	next()
	a.setClass("modslow", fast)
	a.waitFact("modslow", fact{reason: events.ReasonModify, words: []string{"external resizer is modifying volume modslow with vac " + fast}})
	next()
	a.setClass("gold", a.ns+"-gold")
	a.waitModifyStatus("gold", a.ns+"-gold", v1.PersistentVolumeClaimModifyVolumePending)

	// The node's states: the driver needs kubelet, and kubelet's writes
	// are patched in as it writes them.
	for _, name := range []string{"node", "kubelet", "podnode", "nospace"} {
		b.volume(name, "1Gi")
		next()
		b.grow(name, "2Gi")
		b.waitResizeStatus(name, "NodeResizePending")
	}
	b.runningPod("web-0", "podnode")
	b.patchClaimStatus("kubelet", `{"status":{"allocatedResourceStatuses":{"storage":"NodeResizeInProgress"}}}`)
	next()
	b.patchClaimStatus("nospace", fmt.Sprintf(`{"status":{"allocatedResourceStatuses":{"storage":"NodeResizeInfeasible"},`+
		`"conditions":[{"type":"NodeResizeError","status":"True","lastTransitionTime":%q,"message":"resize2fs: no space left on device"}]}}`, time.Now().UTC().Format(time.RFC3339)))
	b.waitResizeStatus("nospace", "NodeResizeInfeasible")
	// An offline-only driver, and a pod that uses the claim.
	b.volume("held", "1Gi")
	b.runningPod("app", "held")
	b.grow("held", "2Gi")
	b.waitFact("held", heldInUse("[app]"))

	ofA := []listed{
		{a.ns, "foreign", "resize", "controller_in_progress", plugin.ByNobody, true},
		{a.ns, "failing", "resize", "controller_error", plugin.ByResizer, true},
		{a.ns, "big", "resize", "controller_infeasible", plugin.ByUser, true},
		{a.ns, "refused", "modify", "infeasible", plugin.ByUser, true},
		{a.ns, "slow", "resize", "controller_in_progress", plugin.ByDriver, true},
		{a.ns, "modslow", "modify", "in_progress", plugin.ByDriver, true},
		{a.ns, "gold", "modify", "pending", plugin.ByUser, false},
	}
	ofB := []listed{
		{b.ns, "node", "resize", "node_pending", plugin.ByUser, true},
		{b.ns, "kubelet", "resize", "node_in_progress", plugin.ByKubelet, true},
		{b.ns, "podnode", "resize", "node_pending", plugin.ByKubelet, true},
		{b.ns, "nospace", "resize", "node_infeasible", plugin.ByUser, true},
		{b.ns, "held", "resize", "waiting_in_use", plugin.ByUser, false},
	}

	checkListed(t, "list -n "+a.ns, tableLines(t, runList(t, "-n", a.ns), a.ns), ofA)
	checkListed(t, "list -n "+a.ns+" --driver "+a.driver.Name, tableLines(t, runList(t, "-n", a.ns, "--driver", a.driver.Name), a.ns), ofA[1:])
	checkListed(t, "list -A --driver "+b.driver.Name, tableLines(t, runList(t, "-A", "--driver", b.driver.Name), a.ns, b.ns), ofB)
	checkListed(t, "list -A --driver "+other, tableLines(t, runList(t, "--all-namespaces", "--driver="+other), a.ns, b.ns), ofA[:1])

	// Every namespace: the oldest first, then those that record no time,
	// by namespace and name.
	known, unknown := slices.Concat(ofA[:6], ofB[:4]), []listed{ofA[6], ofB[4]}
	slices.SortFunc(unknown, func(x, y listed) int { return strings.Compare(x.ns+"/"+x.name, y.ns+"/"+y.name) })
	all := slices.Concat(known, unknown)
	checkListed(t, "list -A", tableLines(t, runList(t, "-A"), a.ns, b.ns), all)
	checkListed(t, "list -A -o wide", tableLines(t, runList(t, "-A", "-o", "wide"), a.ns, b.ns), all)

	var r plugin.Result
	out := runList(t, "-A", "-o", "json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("list -o json: %v\n%s", err, out)
	}
	var got []listed
	byName := map[string]plugin.Item{}
	for _, it := range r.Items {
		if it.Namespace == a.ns || it.Namespace == b.ns {
			got = append(got, listed{it.Namespace, it.Name, it.Operation, it.State, it.NextStepBy, it.Since != nil})
			byName[it.Name] = it
		}
	}
	checkListed(t, "list -A -o json", got, all)
	if len(r.Warnings) > 0 || r.Namespace != "" || time.Since(r.At) > time.Minute {
		t.Errorf("list -A -o json: at %s, namespace %q, warnings %q", r.At, r.Namespace, r.Warnings)
	}
	for name, want := range map[string]plugin.Item{
		"failing": {Driver: a.driver.Name, Target: "3Gi", SinceFrom: "ControllerResizeError", Reason: "the backend is down"},
		"refused": {Driver: a.driver.Name, Target: fast, SinceFrom: "ModifyVolumeError", Reason: "iops 3000 is above the limit"},
		"foreign": {Driver: other, Target: "2Gi", SinceFrom: "Resizing", Reason: "The resizer recorded the expansion to 2Gi"},
		"nospace": {Driver: b.driver.Name, Target: "2Gi", SinceFrom: "NodeResizeError", Reason: "resize2fs: no space left on device"},
		"held":    {Driver: b.driver.Name, Target: "2Gi", Reason: "pod(s) app use it"},
	} {
		it := byName[name]
		if it.Driver != want.Driver || it.Target != want.Target || it.SinceFrom != want.SinceFrom || !strings.Contains(it.Reason, want.Reason) ||
			it.Volume != "pv-"+it.Namespace+"-"+name {
			t.Errorf("%s: %+v; want driver %s, target %s, since from %q, a reason with %q", name, it, want.Driver, want.Target, want.SinceFrom, want.Reason)
		}
	}

	// The same states as the metrics: each resizer counts in
	// csi_resizer_claims what list lists of its driver.
	a.checkSameAsMetrics(ports[0], r.Items)
	b.checkSameAsMetrics(ports[1], r.Items)

	// Nothing unfinished: a message on stderr, as kubectl's.
	empty := "e2e-list-empty-" + a.ns
	must(t, framework.CreateNamespace(a.ctx, cluster.Admin, empty))
	stdout, stderr, code := runExplain(t, "list", "-n", empty)
	if want := `No unfinished claims found in namespace "` + empty + `".`; code != plugin.ExitOK || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("list of an empty namespace: exit code %d, stdout %q, stderr %q; want 0, nothing, %q", code, stdout, stderr, want)
	}
}
